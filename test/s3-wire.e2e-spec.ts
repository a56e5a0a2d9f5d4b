import {
  expectContinue,
  rawExchange,
  requestHead,
  send,
  signedRequest,
} from './support/clients/s3-raw-http';
import { signWithHeader } from './support/clients/s3-signing';
import { useS3TestApp } from './support/apps/s3-app-fixture';
import { startS3TestApp } from './support/apps/s3-test-app';

/**
 * The S3 listener on the wire: what reaches it that no SDK sends (anonymous, malformed, hostile,
 * abandoned requests), and the HTTP details clients depend on.
 */
jest.setTimeout(120000);

const TAPE = 'TapeOnTheWire1111111111111111111111111111';
const BUCKET = 'wirebucketlabel5555555555555555555555555555555555aa';
const KEY_ID = 'AKWIRE';
const SECRET = 'wire-secret';
const UNSIGNED = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
const EMPTY = {
  'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
};

const fx = useS3TestApp({ tape: TAPE, bucket: BUCKET, accessKeyId: KEY_ID, secret: SECRET });
const signed = (options: Parameters<typeof signedRequest>[1]) =>
  signedRequest(fx.app.port, { accessKeyId: KEY_ID, secret: SECRET, ...options });

afterEach(() => {
  jest.restoreAllMocks();
  fx.app.meter.refuse = false;
});

describe('errors on the wire', () => {
  it('refuses anonymous requests with S3 error XML and a request id', async () => {
    const res = await send(fx.app.port, 'GET', `/${BUCKET}?list-type=2`, {});
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/xml');
    expect(res.body).toContain('<Code>AccessDenied</Code>');
    expect(res.body).toContain(`<RequestId>${String(res.headers['x-amz-request-id'])}</RequestId>`);
    expect(res.body).toContain(`<Resource>/${BUCKET}</Resource>`);
  });

  it('answers HEAD errors with a status and no body', async () => {
    const res = await signed({ method: 'HEAD', path: '/missingbucketlabel', headers: EMPTY });
    expect(res.status).toBe(404);
    expect(res.body).toBe('');
  });

  it('answers a malformed URI 400 InvalidURI and an unknown method 405, in XML', async () => {
    const bad = await send(fx.app.port, 'GET', `/${BUCKET}/%ZZ`, {});
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('<Code>InvalidURI</Code>');
    const patch = await send(fx.app.port, 'PATCH', `/${BUCKET}/k`, {});
    expect(patch.status).toBe(405);
    expect(patch.body).toContain('<Code>MethodNotAllowed</Code>');
  });

  it('never sends internal details or stack traces', async () => {
    jest
      .spyOn(fx.app.backend, 'listObjects')
      .mockRejectedValueOnce(new Error('secret internal detail'));
    const res = await signed({ method: 'GET', path: `/${BUCKET}?list-type=2`, headers: EMPTY });
    expect(res.status).toBe(500);
    expect(res.body).toContain('<Code>InternalError</Code>');
    expect(res.body).not.toContain('secret internal detail');
    expect(res.body).not.toMatch(/\bat \S+ \(/);
  });

  it('refuses a backend that claims success without reading the verified body', async () => {
    jest
      .spyOn(fx.app.backend, 'putObject')
      .mockResolvedValueOnce({ etag: 'x', lastModified: new Date() });
    const res = await signed({
      method: 'PUT',
      path: `/${BUCKET}/unread`,
      headers: UNSIGNED,
      body: Buffer.from('data'),
    });
    expect(res.status).toBe(500);
  });
});

describe('request bodies', () => {
  it('stores any Content-Type string, even one Fastify could not parse', async () => {
    const res = await signed({
      method: 'PUT',
      path: `/${BUCKET}/odd-type`,
      headers: { ...UNSIGNED, 'content-type': 'not a media type' },
      body: Buffer.from('x'),
    });
    expect(res.status).toBe(200);
    expect(fx.app.backend.tape(BUCKET).objects.get('odd-type')?.head.contentType).toBe(
      'not a media type',
    );
  });

  it('keeps the connection after a normal answer and closes it after refusing an unread body', async () => {
    const ok = await signed({ method: 'GET', path: `/${BUCKET}?list-type=2`, headers: EMPTY });
    expect(ok.headers.connection).not.toBe('close');
    const refused = await signed({
      method: 'PUT',
      path: '/missingbucketlabel/k',
      headers: UNSIGNED,
      body: Buffer.alloc(4 * 1024 * 1024),
    });
    expect(refused.status).toBe(404);
    expect(refused.headers.connection).toBe('close');
  });

  it('refuses a hostile aws-chunked size and stores nothing', async () => {
    const res = await signed({
      method: 'PUT',
      path: `/${BUCKET}/hostile`,
      headers: {
        'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': '10',
      },
      body: Buffer.from('ffffffffffff\r\n0123456789\r\n0\r\n\r\n'),
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('<Code>InvalidRequest</Code>');
    expect(fx.app.backend.tape(BUCKET).objects.has('hostile')).toBe(false);
  });

  it('refuses an oversized DeleteObjects document', async () => {
    const objects = '<Object><Key>k</Key></Object>'.repeat(120000);
    const res = await signed({
      method: 'POST',
      path: `/${BUCKET}?delete=`,
      headers: UNSIGNED,
      body: Buffer.from(`<Delete>${objects}</Delete>`),
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('<Code>MaxMessageLengthExceeded</Code>');
  });

  it('leaves nothing half-written when the client drops the connection mid-body', async () => {
    const request = await signWithHeader({
      method: 'PUT',
      path: `/${BUCKET}/dropped`,
      host: `127.0.0.1:${fx.app.port}`,
      headers: { ...UNSIGNED, 'content-length': '100000' },
      date: new Date(),
      accessKeyId: KEY_ID,
      secret: SECRET,
    });
    const head = requestHead('PUT', request.rawPath, request.rawHeaders);
    await rawExchange(
      fx.app.port,
      Buffer.concat([Buffer.from(head), Buffer.alloc(5000, 'a')]),
      true,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(fx.app.backend.tape(BUCKET).objects.has('dropped')).toBe(false);
    const after = await signed({ method: 'GET', path: `/${BUCKET}?list-type=2`, headers: EMPTY });
    expect(after.status).toBe(200);
  });
});

describe('Expect: 100-continue', () => {
  async function continueHead(key: string, length: number): Promise<string> {
    const request = await signWithHeader({
      method: 'PUT',
      path: `/${BUCKET}/${key}`,
      host: `127.0.0.1:${fx.app.port}`,
      headers: {
        ...UNSIGNED,
        'content-length': String(length),
        expect: '100-continue',
        connection: 'close',
      },
      date: new Date(),
      accessKeyId: KEY_ID,
      secret: SECRET,
    });
    return requestHead('PUT', request.rawPath, request.rawHeaders);
  }

  it('asks for the body only when the backend starts reading it', async () => {
    const body = Buffer.from('continued body');
    const ok = await expectContinue(
      fx.app.port,
      await continueHead('continued', body.length),
      body,
    );
    expect(ok.interim).toBe(true);
    expect(ok.response).toMatch(/^HTTP\/1\.1 200 /);
    expect(fx.app.backend.tape(BUCKET).objects.get('continued')?.data.equals(body)).toBe(true);
  });

  it('refuses a full tape before the client sends a byte of the body', async () => {
    fx.app.backend.tape(BUCKET).capacity = 10;
    try {
      const big = Buffer.alloc(1024 * 1024);
      const refused = await expectContinue(
        fx.app.port,
        await continueHead('too-big', big.length),
        big,
      );
      expect(refused.interim).toBe(false);
      expect(refused.response).toMatch(/^HTTP\/1\.1 507 /);
      expect(refused.response).toContain('insufficient capacity');
    } finally {
      fx.app.backend.tape(BUCKET).capacity = undefined;
    }
  });
});

describe('metering and addressing', () => {
  it('answers 503 SlowDown with Retry-After when the meter refuses, and meters by kind', async () => {
    fx.app.meter.refuse = true;
    const res = await signed({
      method: 'PUT',
      path: `/${BUCKET}/metered`,
      headers: UNSIGNED,
      body: Buffer.from('x'),
    });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body).toContain('<Code>SlowDown</Code>');
    expect(fx.app.meter.seen.at(-1)).toBe('127.0.0.1 write');
    await signed({ method: 'GET', path: `/${BUCKET}/metered`, headers: EMPTY });
    expect(fx.app.meter.seen.at(-1)).toBe('127.0.0.1 read');
  });

  it('serves virtual-hosted-style requests when virtual_host is configured', async () => {
    const vhost = await startS3TestApp({ virtual_host: 's3.tape.test' });
    try {
      vhost.backend.addTape(BUCKET, TAPE);
      vhost.credentials.issue(KEY_ID, SECRET, TAPE);
      const host = `${BUCKET}.s3.tape.test:${vhost.port}`;
      const put = await signedRequest(vhost.port, {
        method: 'PUT',
        path: '/docs/v%20host.html',
        host,
        headers: UNSIGNED,
        body: Buffer.from('virtual'),
        accessKeyId: KEY_ID,
        secret: SECRET,
      });
      expect(put.status).toBe(200);
      expect(vhost.backend.tape(BUCKET).objects.get('docs/v host.html')?.data.toString()).toBe(
        'virtual',
      );
      const list = await signedRequest(vhost.port, {
        method: 'GET',
        path: '/?list-type=2',
        host,
        headers: EMPTY,
        accessKeyId: KEY_ID,
        secret: SECRET,
      });
      expect(list.body).toContain('<Key>docs/v host.html</Key>');
    } finally {
      await vhost.close();
    }
  });
});
