import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import type { HttpRequest } from '@smithy/types';
import { TrackS3Config } from '../../config/storage.config';
import { RangedGetError, signedRangedGet } from './ranged-get';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
}

async function consume(body: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('signedRangedGet', () => {
  let server: Server;
  let port: number;
  const seen: Seen[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
    answer = (req, res) => {
      res.writeHead(206, { 'content-length': '5', 'x-amz-meta-tape-chunks': 'bGlzdA==' });
      res.end('bytes');
    };
  });

  function config(overrides: Partial<TrackS3Config> = {}): TrackS3Config {
    return Object.assign(new TrackS3Config(), {
      endpoint: `http://127.0.0.1:${port}`,
      bucket: 'tape-tracks',
      access_key_id: 'AKIDEXAMPLE',
      secret_access_key: 'secret',
      ...overrides,
    });
  }

  it('sends a path-style ranged GET signed with SigV4 and answers the bytes and metadata', async () => {
    const get = signedRangedGet(config());
    const out = await get('tracks/ab12', 65536, 131071);
    expect(await consume(out.body)).toEqual(Buffer.from('bytes'));
    expect(out.contentLength).toBe(5);
    expect(out.metadata('tape-chunks')).toBe('bGlzdA==');
    expect(out.metadata('other')).toBeUndefined();
    const [{ url, headers }] = seen;
    expect(url).toBe('/tape-tracks/tracks/ab12');
    expect(headers.host).toBe(`127.0.0.1:${port}`);
    expect(headers.range).toBe('bytes=65536-131071');
    expect(headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
  });

  it('escapes each key segment once, as S3 signs the path as sent', async () => {
    const get = signedRangedGet(config({ prefix: 'net 1/' }));
    await consume((await get("net 1/a+b(c)!*'", 0, 0)).body);
    expect(seen[0].url).toBe('/tape-tracks/net%201/a%2Bb%28c%29%21%2A%27');
  });

  it('puts the bucket in the host name for virtual-hosted style', async () => {
    const sent: HttpRequest[] = [];
    const handler = {
      handle: (request: HttpRequest) => {
        sent.push(request);
        return Promise.resolve({
          response: { statusCode: 206, headers: {}, body: Readable.from([Buffer.from('x')]) },
        });
      },
    } as unknown as Pick<NodeHttpHandler, 'handle'>;
    const get = signedRangedGet(
      config({ endpoint: 'https://s3.example.net', path_style: false }),
      handler,
    );
    await consume((await get('tracks/ab12', 0, 0)).body);
    expect(sent[0]).toMatchObject({
      protocol: 'https:',
      hostname: 'tape-tracks.s3.example.net',
      path: '/tracks/ab12',
    });
    expect(sent[0].port).toBeUndefined();
    expect(sent[0].headers.host).toBe('tape-tracks.s3.example.net');
    expect(sent[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('goes unsigned without an access key (a public-read bucket)', async () => {
    const get = signedRangedGet(config({ access_key_id: undefined, secret_access_key: undefined }));
    await consume((await get('tracks/ab12', 0, 4)).body);
    expect(seen[0].headers.authorization).toBeUndefined();
  });

  it('names a missing object 404 and any other refusal by its status', async () => {
    const get = signedRangedGet(config());
    answer = (req, res) => {
      res.writeHead(req.url?.endsWith('missing') ? 404 : 503, {
        'content-type': 'application/xml',
      });
      res.end('<Error><Code>NoSuchKey</Code></Error>');
    };
    const missing = await get('tracks/missing', 0, 4).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(RangedGetError);
    expect(missing).toMatchObject({ status: 404, name: 'NoSuchKey' });
    const busy = await get('tracks/busy', 0, 4).catch((err: unknown) => err);
    expect(busy).toMatchObject({ status: 503, $metadata: { httpStatusCode: 503 } });
  });

  it('tries once more after a dropped connection or a 5xx, never after a 4xx', async () => {
    const get = signedRangedGet(config());
    let calls = 0;
    answer = (req, res) => {
      calls++;
      if (req.url?.endsWith('dropped') && calls === 1) return void req.socket.destroy();
      if (req.url?.endsWith('busy')) return void res.writeHead(503).end();
      if (req.url?.endsWith('denied')) return void res.writeHead(403).end();
      res.writeHead(206, { 'content-length': '5' }).end('bytes');
    };
    expect(await consume((await get('tracks/dropped', 0, 4)).body)).toEqual(Buffer.from('bytes'));
    expect(calls).toBe(2);
    calls = 0;
    await expect(get('tracks/busy', 0, 4)).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(2);
    calls = 0;
    await expect(get('tracks/denied', 0, 4)).rejects.toMatchObject({ status: 403 });
    expect(calls).toBe(1);
  });

  it('fails a store that does not answer within the request timeout', async () => {
    const get = signedRangedGet(config({ request_timeout_ms: 200 }));
    answer = () => undefined; // never answers
    await expect(get('tracks/slow', 0, 4)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
