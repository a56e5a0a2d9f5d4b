import { Injectable } from '@nestjs/common';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array;
  location?: string;
}

/**
 * How `tape verify` reaches gateways and the RPC: plain HTTP, nothing of the gateway's own
 * (it may be one the user does not run). A port, so specs can hand in a deliberately simple one.
 */
export abstract class VerifyHttp {
  /** GET with `Accept-Encoding: identity`, redirects not followed. */
  abstract get(url: string): Promise<HttpAnswer>;
  abstract postJson(url: string, body: unknown): Promise<unknown>;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * `*.localhost` is loopback (RFC 6761), as browsers resolve it: the URLs `tape deploy` prints
 * for the local network (`http://<label>.localhost:8080/`) are checked as they are opened.
 */
function loopbackLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dnsLookup(hostname, options as never, callback as never);
}

@Injectable()
export class NodeVerifyHttp extends VerifyHttp {
  private readonly http = new HttpAgent({ keepAlive: true, maxSockets: 32 });
  private readonly https = new HttpsAgent({ keepAlive: true, maxSockets: 32 });

  get(url: string): Promise<HttpAnswer> {
    // Identity: the bytes the commitment names, and the answer that carries Content-Digest.
    return this.send(url, 'GET', { 'accept-encoding': 'identity' });
  }

  async postJson(url: string, body: unknown): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    const answer = await this.send(
      url,
      'POST',
      { 'content-type': 'application/json', 'content-length': String(payload.length) },
      payload,
    );
    return JSON.parse(Buffer.from(answer.body).toString('utf8'));
  }

  private send(
    url: string,
    method: string,
    headers: Record<string, string>,
    payload?: Buffer,
  ): Promise<HttpAnswer> {
    const secure = url.startsWith('https:');
    const request = secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { method, headers, agent: secure ? this.https : this.http, lookup: loopbackLookup },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const out: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            resolve({
              status: res.statusCode ?? 0,
              headers: out,
              body: Buffer.concat(chunks),
              location: out.location,
            });
          });
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
