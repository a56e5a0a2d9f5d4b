/** `0`…`999` and `000`…`999`, made once: the digits every answer's numbers are built from. */
const SMALL: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i));
const TRIPLES: readonly string[] = SMALL.map((text) => text.padStart(3, '0'));

/**
 * The decimal text of a number, as `String(n)` writes it, for figures that change on every
 * answer (`RateLimit-Remaining`, a range's `Content-Length` and `Content-Range`).
 *
 * Why not `String(n)`: V8 keeps every number it turns into a string in a process-wide cache
 * (the number-string cache, in the old generation). A figure that is new on each request puts a
 * new young string in that cache each time, so each young-generation collection finds a few
 * thousand of them alive, copies them and promotes them, and the cache's slots become roots it
 * must scan. Measured on a plain `node:http` server answering 304s with one such header: the
 * scavenges took 0.9 ms instead of 0.2 ms, promoted 41 KB each instead of nothing, and the
 * server answered 12 % fewer requests a second (docs/site.md, "Performance"). Built here from
 * the tables above, the string is garbage once the answer is written, as every other string of
 * the answer is.
 *
 * Anything but a non-negative safe integer is `String(n)`'s.
 */
export function decimalText(n: number): string {
  if (!(n >= 0 && Number.isSafeInteger(n))) return String(n);
  if (n < 1000) return SMALL[n];
  let text = TRIPLES[n % 1000];
  let rest = Math.floor(n / 1000);
  while (rest >= 1000) {
    text = TRIPLES[rest % 1000] + text;
    rest = Math.floor(rest / 1000);
  }
  return SMALL[rest] + text;
}
