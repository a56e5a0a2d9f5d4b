import { connect } from 'node:net';
import { GatewayProcess, startGateway } from './support/processes/gateway';

/**
 * URLs refused before routing (Fastify's router cannot decode them, Node's parser will not take
 * their bytes, a parameter is too long) get the gateway's own answers on every route family,
 * and S3's XML on the S3 listener. Requests go over raw sockets so the bad bytes reach the
 * server exactly as written (fetch and http.request would encode or refuse them).
 */

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (request line and headers, latin1 bytes) and reads until the server closes. */
function rawExchange(port: number, head: string, body = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(Buffer.from(head + body, 'latin1'));
  });
}

function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`truncated response: ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.slice(end + 4, end + 4 + length),
    });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}

/** Every response to the requests in `head` (and `body`), until the server closes. */
async function exchange(port: number, head: string, body = ''): Promise<RawResponse[]> {
  return parseResponses(await rawExchange(port, head, body));
}

async function send(
  port: number,
  path: string,
  options: { method?: string; host?: string } = {},
): Promise<RawResponse> {
  const head =
    `${options.method ?? 'GET'} ${path} HTTP/1.1\r\n` +
    `Host: ${options.host ?? '127.0.0.1'}\r\nConnection: close\r\n\r\n`;
  const [response, ...more] = await exchange(port, head);
  expect(more).toEqual([]);
  return response;
}

/** A HEAD answer: the status and type a GET would have, no body. */
function expectBodiless(res: RawResponse, status: number, contentType: string): void {
  expect([res.status, res.headers['content-type'], res.body]).toEqual([status, contentType, '']);
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** The stable error body with its headers, and nothing of Fastify's or Node's own answer. */
function expectErrorBody(res: RawResponse, status: number, code: string): void {
  expect([res.status, res.headers['content-type']]).toEqual([
    status,
    'application/json; charset=utf-8',
  ]);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  const body = JSON.parse(res.body) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(/URL/);
  expect(res.body).not.toMatch(/FST_|statusCode|%|Client Error/);
}

/** The site's built-in page, as for every other path that cannot name a file of a site. */
function expectSitePage(res: RawResponse, status: number, title: string): void {
  expect([res.status, res.headers['content-type']]).toEqual([status, 'text/html; charset=utf-8']);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'/);
  expect(res.body).toContain(`<h1>${title}</h1>`);
}

const LONG = 'a'.repeat(9000);

let gw: GatewayProcess;
let port: number;

beforeAll(async () => {
  gw = await startGateway();
  port = gw.port;
}, 60_000);

afterAll(async () => {
  await gw?.stop('SIGTERM');
});

describe('gateway listener: URLs Fastify cannot decode', () => {
  it.each([
    ['object', '/object/%ZZ'],
    ['object', '/object/abc%E0%A4%A'],
    ['upload', '/upload/%c0%af'],
    ['upload', '/upload/config%FF'],
    ['healthz', '/healthz%ff'],
    ['no route', '/%c0%af'],
    ['no route', '/no/such/%ED%A0%80'], // an encoded lone surrogate
  ])('%s %s: 400 with the stable error body', async (_family, path) => {
    expectErrorBody(await send(port, path), 400, 'bad_request');
  });

  it('answers a PUT with a body the same way, and HEAD without a body', async () => {
    const put = await exchange(
      port,
      'PUT /upload/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n' +
        'Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n',
      'hello',
    );
    expect(put).toHaveLength(1);
    expectErrorBody(put[0], 400, 'bad_request');
    const head = await send(port, '/object/%ZZ', { method: 'HEAD' });
    expectBodiless(head, 400, 'application/json; charset=utf-8');
  });

  it('serves a site path or a site host with the site page for a bad path', async () => {
    expectSitePage(await send(port, '/site/abc/%E0%A4%A'), 400, '400 Bad Request');
    expectSitePage(await send(port, '/site/%c0%af/'), 400, '400 Bad Request');
    // `*.localhost` is the default subdomain suffix: these hosts are served as sites.
    const onHost = await send(port, '/docs/%c0%af', { host: 'abc.localhost' });
    expectSitePage(onHost, 400, '400 Bad Request');
    const headOnHost = await send(port, '/%ZZ', { method: 'HEAD', host: 'abc.localhost' });
    expectBodiless(headOnHost, 400, 'text/html; charset=utf-8');
  });

  it('answers a route parameter over the router limit: 414 off sites, no such site on them', async () => {
    expectErrorBody(await send(port, `/object/${LONG}`), 414, 'uri_too_long');
    expectSitePage(await send(port, `/site/${LONG}`), 404, '404 Not Found');
  });

  it('keeps the connection usable after the refusal', async () => {
    const both = await exchange(
      port,
      'GET /object/%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(both.map((r) => r.status)).toEqual([400, 200]);
    expect(JSON.parse(both[1].body)).toMatchObject({ status: 'ok' });
  });

  it('gives routed errors the same headers (control: a well-formed unknown route)', async () => {
    const missing = await send(port, '/no/such/route');
    expect([missing.status, missing.headers['cache-control']]).toEqual([404, 'no-store']);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect((JSON.parse(missing.body) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe("gateway listener: bytes Node's HTTP parser refuses", () => {
  it.each([
    ['a raw non-ASCII byte', '/object/\xff'],
    ['a raw control character', '/site/abc/a\x01b'],
    ['a raw DEL', '/healthz\x7f'],
  ])('%s: 400 with the stable error body, then the connection closes', async (_what, path) => {
    const res = await send(port, path);
    expectErrorBody(res, 400, 'bad_request');
    expect(res.headers.connection).toBe('close');
  });

  it('answers a request line and headers past the limit with 431', async () => {
    const res = await send(port, `/object/${'a'.repeat(20_000)}`);
    expect([res.status, res.headers['content-type']]).toEqual([
      431,
      'application/json; charset=utf-8',
    ]);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'request_header_fields_too_large',
        message: 'the request line and headers are too large',
      },
    });
  });
});

describe('S3 listener: malformed URLs get S3 XML', () => {
  it.each([
    ['bad percent-encoding', '/bucket/%ZZ'],
    ['invalid UTF-8', '/bucket/key%E0%A4%A'],
    ['a raw non-ASCII byte', '/bucket/\xff'],
    ['a raw control character', '/bucket/a\x01b'],
  ])('%s: 400 InvalidURI with its request id', async (_what, path) => {
    const res = await send(portOf(gw.s3Url), path);
    expect([res.status, res.headers['content-type']]).toEqual([400, 'application/xml']);
    expect(res.body).toContain('<Code>InvalidURI</Code>');
    expect(res.body).toContain(`<RequestId>${res.headers['x-amz-request-id']}</RequestId>`);
    expect(res.headers['x-amz-request-id']).toMatch(/^[0-9A-F]{16}$/);
    expect(res.body).not.toMatch(/FST_|statusCode|"error"/);
  });
});
