import { PutObjectCommand } from '@aws-sdk/client-s3';
import { encodeKeyPath, presign } from './support/clients/s3-signing';
import { eventually } from './support/jest/eventually';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';

/**
 * Issue 15, finding 9: with the access log on, a presigned S3 URL (a bearer token for up to 7
 * days) is logged without its signature or credential scope; the path and the access key id
 * stay, so the line is still useful.
 */
jest.setTimeout(120_000);

const fx = useS3TapeFixture({
  config: { localnet: { slot_ms: 100 }, gateway: { access_log: true } },
  env: { TAPE_LOG_LEVEL: 'info' },
});

beforeAll(async () => {
  await fx.s3.send(
    new PutObjectCommand({ Bucket: fx.site.label, Key: 'docs/secret-plan.txt', Body: 'hello' }),
  );
});

describe('access log', () => {
  it('logs a presigned GET with its path and key id, without its signature or scope', async () => {
    const { host, port } = new URL(fx.lab.gw.s3Url);
    const presigned = await presign(
      {
        method: 'GET',
        path: encodeKeyPath(fx.site.label, 'docs/secret-plan.txt'),
        host,
        date: new Date(),
        accessKeyId: fx.site.accessKeyId,
        secret: fx.site.secret,
      },
      3600,
    );
    const url = `http://127.0.0.1:${port}${presigned.rawPath}?${presigned.rawQuery}`;
    const res = await fetch(url);
    expect([res.status, await res.text()]).toEqual([200, 'hello']);
    const signature = new URLSearchParams(presigned.rawQuery).get('X-Amz-Signature')!;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);

    const requestLine = (): Record<string, unknown> | undefined =>
      fx.lab.gw
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find(
          (l) =>
            l.event === 'request' &&
            l.method === 'GET' &&
            String(l.url).includes('secret-plan.txt'),
        );
    await eventually('the access log line of the presigned GET', async () => !!requestLine(), {
      timeoutMs: 10_000,
      everyMs: 250,
    });
    const line = requestLine()!;
    expect(fx.lab.gw.logs()).not.toContain(signature);
    expect(String(line.url)).toContain(`/${fx.site.label}/docs/secret-plan.txt?`);
    expect(String(line.url)).toContain('X-Amz-Signature=REDACTED');
    expect(String(line.url)).toContain(`X-Amz-Credential=${fx.site.accessKeyId}/REDACTED`);
    expect(line.status).toBe(200);
  });
});
