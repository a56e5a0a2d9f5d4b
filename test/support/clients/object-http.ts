import http from 'node:http';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitmentToHex } from '../../../src/tracks/commitment';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** False when the connection ended before the promised Content-Length arrived. */
  complete: boolean;
}

/**
 * One request over a fresh connection with Node's own client, keeping whatever bytes arrive even
 * when the server cuts the connection mid-body (fetch would throw them away).
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        const body = Buffer.concat(parts);
        const promised = res.headers['content-length'];
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          complete:
            res.complete &&
            (promised === undefined ||
              Number(promised) === body.length ||
              options.method === 'HEAD'),
        });
      };
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', finish);
      res.on('aborted', finish);
      res.on('error', finish);
      res.on('close', finish);
    });
    req.end();
  });
}

export interface BytePart {
  contentType: string;
  contentRange: string;
  bytes: Buffer;
}

/** Splits a multipart/byteranges body (RFC 9110 §14.6) into its parts, strictly. */
export function parseByteranges(body: Buffer, contentType: string): BytePart[] {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const parts: BytePart[] = [];
  let at = 0;
  for (;;) {
    const delimiter = Buffer.from(`${parts.length === 0 ? '' : '\r\n'}--${boundary}`);
    if (!body.subarray(at, at + delimiter.length).equals(delimiter)) {
      throw new Error(`expected a delimiter at ${at}`);
    }
    at += delimiter.length;
    if (body.subarray(at, at + 4).toString() === '--\r\n') {
      if (at + 4 !== body.length) throw new Error('bytes after the closing delimiter');
      return parts;
    }
    const headerEnd = body.indexOf('\r\n\r\n', at);
    const lines = body
      .subarray(at + 2, headerEnd)
      .toString('latin1')
      .split('\r\n');
    const field = (name: string) =>
      lines
        .find((l) => l.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim() ?? '';
    const contentRange = field('content-range');
    const match = /^bytes (\d+)-(\d+)\/\d+$/.exec(contentRange);
    if (!match) throw new Error(`bad part Content-Range ${contentRange}`);
    const length = Number(match[2]) - Number(match[1]) + 1;
    const start = headerEnd + 4;
    parts.push({
      contentType: field('content-type'),
      contentRange,
      bytes: body.subarray(start, start + length),
    });
    at = start + length;
  }
}

/** Where the embedded FileTrackStore keeps a track's bytes. */
export function storedTrackPath(dataDir: string, commitment: Buffer): string {
  const hex = commitmentToHex(commitment);
  return join(dataDir, 'tracks', hex.slice(0, 2), hex.slice(2, 4), hex);
}

/** Whether the gateway's file store holds the track (hex commitment). */
export function isStored(dataDir: string, hex: string): boolean {
  return existsSync(storedTrackPath(dataDir, Buffer.from(hex, 'hex')));
}

/** Bytes on disk of these tracks (hex commitments): data and chunk lists; absent ones count 0. */
export function storedBytes(dataDir: string, hexes: Iterable<string>): number {
  let total = 0;
  for (const hex of hexes) {
    const path = storedTrackPath(dataDir, Buffer.from(hex, 'hex'));
    for (const p of [path, `${path}.chunks`]) {
      try {
        total += statSync(p).size;
      } catch {
        // absent, or collected between the two looks
      }
    }
  }
  return total;
}

/** Flips one byte of a stored track (or, with `.chunks`, of its chunk list) in place. */
export function flipStoredByte(
  dataDir: string,
  commitment: Buffer,
  offset: number,
  suffix: '' | '.chunks' = '',
): void {
  const path = storedTrackPath(dataDir, commitment) + suffix;
  const bytes = readFileSync(path);
  bytes[offset] ^= 0xff;
  writeFileSync(path, bytes);
}
