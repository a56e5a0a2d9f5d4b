import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/**
 * HTTP for site tests. `fetch` may not set `Host`, and hostname routes are chosen by it, so
 * requests go through node:http (the Host header is sent as given) or, for paths no URL parser
 * would leave alone (`/../x`, `//x`), as raw bytes over a socket.
 */
export interface SiteResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export interface SiteRequest {
  method?: string;
  host?: string;
  headers?: Record<string, string>;
}

export function siteGet(
  baseUrl: string,
  path: string,
  options: SiteRequest = {},
): Promise<SiteResponse> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? 'GET',
        path,
        headers: { ...(options.host ? { host: options.host } : {}), ...(options.headers ?? {}) },
        agent: false,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(parts);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: body.toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Sends `GET <rawPath>` exactly as written and returns the status line's code and the body. */
export function rawGet(
  baseUrl: string,
  rawPath: string,
  host?: string,
): Promise<{ status: number; text: string }> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname);
    let data = '';
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      socket.write(
        `GET ${rawPath} HTTP/1.1\r\nHost: ${host ?? base.host}\r\nConnection: close\r\n\r\n`,
        'latin1',
      );
    });
    socket.on('data', (d: string) => (data += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(data);
      const bodyStart = data.indexOf('\r\n\r\n');
      resolve({
        status: match ? Number(match[1]) : 0,
        text: bodyStart < 0 ? '' : data.slice(bodyStart + 4),
      });
    });
  });
}

/**
 * A slow reader: sends `head` on a raw connection and reads nothing until `read()` is called,
 * then at most one socket read every `intervalMs`, until the server closes the connection.
 * Resolves with every byte received (head and body).
 */
export function slowReader(
  port: number,
  head: string,
  intervalMs: number,
): { read: () => Promise<Buffer> } {
  const socket = connect(port, '127.0.0.1', () => socket.write(head));
  socket.pause();
  const chunks: Buffer[] = [];
  const closed = new Promise<Buffer>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    socket.pause();
    setTimeout(() => socket.resume(), intervalMs);
  });
  return {
    read: () => {
      socket.resume();
      return closed;
    },
  };
}
