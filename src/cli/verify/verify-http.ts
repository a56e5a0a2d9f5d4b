import { Injectable } from '@nestjs/common';

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

@Injectable()
export class FetchVerifyHttp extends VerifyHttp {
  async get(url: string): Promise<HttpAnswer> {
    const res = await fetch(url, {
      redirect: 'manual',
      // Identity: the bytes the commitment names, and the answer that carries Content-Digest.
      headers: { 'accept-encoding': 'identity' },
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    return {
      status: res.status,
      headers,
      body: new Uint8Array(await res.arrayBuffer()),
      location: res.headers.get('location') ?? undefined,
    };
  }

  async postJson(url: string, body: unknown): Promise<unknown> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.json();
  }
}
