/** A response read to the end, with the headers the metering tests look at. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** `count` requests one after another; their statuses. */
export async function statuses(
  count: number,
  url: string | ((i: number) => string),
  headers: (i: number) => Record<string, string> = () => ({}),
  method = 'GET',
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const target = typeof url === 'string' ? url : url(i);
    out.push((await send(target, { method, headers: headers(i) })).status);
  }
  return out;
}

export function xff(value: string): Record<string, string> {
  return { 'x-forwarded-for': value };
}
