/** A 4 KiB HTML page (exactly 4096 bytes): the page the site, scale and replica benchmarks serve. */
export function page4k(): string {
  const head = '<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body>';
  const tail = '</body></html>\n';
  let body = '';
  for (let i = 0; body.length < 4096 - head.length - tail.length - 20; i++)
    body += `<p>para ${i}</p>`;
  return (head + body).padEnd(4096 - tail.length, ' ') + tail;
}
