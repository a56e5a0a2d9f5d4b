import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectContinue, requestHead } from './support/clients/s3-raw-http';
import { awsCli } from './support/clients/s3-cli';
import { failure, sdkClient } from './support/clients/s3-sdk-client';
import { encodeKeyPath, signWithHeader } from './support/clients/s3-signing';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { gatewayGet, tapeWithCredential, TapeWithCredential } from './support/labs/s3-tape-lab';
import { currentVersion } from './support/clients/s3-version-view';

/**
 * Every refusal a site owner can meet on a real gateway, as the SDK (and aws-cli) shows it:
 * credentials (secret, clock, scope, revocation) and tape states (undelegated, full, expired).
 * Epochs last 3 s here so that a tape can expire during the run.
 */
jest.setTimeout(180_000);

const fx = useS3TapeFixture({
  config: { localnet: { slot_ms: 100, epoch_duration_secs: 3 } },
  tapes: 2,
});
const put = (s3: S3Client, bucket: string, key = 'page.html', body: string | Buffer = 'x') =>
  s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
/** The names of the tape's current version (no account per object: docs/s3.md). */
const names = async (t: TapeWithCredential) =>
  (await currentVersion(fx.lab.gw, t.tape)).entries.map((e) => e.name);

describe('credentials', () => {
  it('the right credential writes; a wrong secret is SignatureDoesNotMatch', async () => {
    await expect(put(fx.client(fx.site), fx.site.label)).resolves.toBeDefined();
    const e = await failure(put(fx.client(fx.site, 'not-the-secret-at-all'), fx.site.label));
    expect([e.name, e.status]).toEqual(['SignatureDoesNotMatch', 403]);
  });

  it('a clock 20 minutes off is RequestTimeTooSkewed', async () => {
    const e = await failure(
      put(fx.client(fx.site, fx.site.secret, { systemClockOffset: -20 * 60_000 }), fx.site.label),
    );
    expect([e.name, e.status]).toEqual(['RequestTimeTooSkewed', 403]);
  });

  it("another tape's credential is AccessDenied, for reads and writes", async () => {
    const write = await failure(put(fx.client(fx.tapes[1]), fx.site.label, 'intruder.html'));
    expect([write.name, write.status, write.message]).toEqual([
      'AccessDenied',
      403,
      'this credential is scoped to another tape',
    ]);
    const read = await failure(
      fx.client(fx.tapes[1]).send(new ListObjectsV2Command({ Bucket: fx.site.label })),
    );
    expect(read.name).toBe('AccessDenied');
    expect(await names(fx.site)).not.toContain('intruder.html');
  });

  it('a credential revoked by the operator is refused by the running gateway at once', async () => {
    const issued = await fx.lab.operator.json<{ access_key_id: string; secret_access_key: string }>(
      ['gateway', 'credentials', 'issue', '--tape', fx.site.tape],
    );
    const s3 = sdkClient(fx.lab.gw.s3Url, issued.access_key_id, issued.secret_access_key);
    await expect(
      s3.send(new ListObjectsV2Command({ Bucket: fx.site.label })),
    ).resolves.toBeDefined();
    await fx.lab.operator.ok(['gateway', 'credentials', 'revoke', issued.access_key_id]);
    const e = await failure(s3.send(new ListObjectsV2Command({ Bucket: fx.site.label })));
    expect([e.name, e.status]).toEqual(['InvalidAccessKeyId', 403]);
    const listed = await fx.lab.operator.json<
      { access_key_id: string; revoked_at: string | null }[]
    >(['gateway', 'credentials', 'list']);
    expect(listed.find((c) => c.access_key_id === issued.access_key_id)?.revoked_at).toEqual(
      expect.any(String),
    );
  });

  it('an access key id never issued is InvalidAccessKeyId', async () => {
    const s3 = sdkClient(fx.lab.gw.s3Url, 'TKAAAAAAAAAAAAAAAAAA', 'whatever-secret');
    const e = await failure(s3.send(new ListObjectsV2Command({ Bucket: fx.site.label })));
    expect([e.name, e.status]).toEqual(['InvalidAccessKeyId', 403]);
  });
});

describe('tape states', () => {
  it('an undelegated tape refuses writes, naming the command that fixes it; reads still work', async () => {
    const undelegated = await tapeWithCredential(fx.lab, { delegate: false });
    const e = await failure(put(fx.client(undelegated), undelegated.label));
    expect([e.name, e.status, e.message]).toEqual([
      'AccessDenied',
      403,
      `tape not delegated to this gateway (run: tape delegate ${fx.lab.gatewayKey})`,
    ]);
    const listing = await fx
      .client(undelegated)
      .send(new ListObjectsV2Command({ Bucket: undelegated.label }));
    expect(listing.KeyCount).toBe(0);
    // After the one-time delegation the same credential writes.
    await undelegated.owner.ok(['delegate', fx.lab.gatewayKey]);
    await expect(put(fx.client(undelegated), undelegated.label)).resolves.toBeDefined();
    // And a withdrawn delegation stops the gateway again.
    await undelegated.owner.ok(['delegate', '--revoke']);
    expect((await failure(put(fx.client(undelegated), undelegated.label))).name).toBe(
      'AccessDenied',
    );
  });

  it('a full tape answers "insufficient capacity" (507) before the body is sent; resize fixes it', async () => {
    const small = await tapeWithCredential(fx.lab, { capacity: '1m' });
    const twoMiB = randomBytes(2 * 1024 * 1024);
    const e = await failure(put(fx.client(small), small.label, 'big.bin', twoMiB));
    expect([e.name, e.status]).toEqual(['InsufficientStorage', 507]);
    expect(e.message).toMatch(/^insufficient capacity: .* \(fix: tape resize --add <size>\)$/);

    // aws-cli shows the same message (and does not retry a 507).
    const file = join(fx.work, 'big.bin');
    writeFileSync(file, twoMiB);
    const aws = awsCli(fx.lab.gw.s3Url, small.accessKeyId, small.secret);
    const cp = await aws('s3', 'cp', file, `s3://${small.label}/big.bin`);
    expect(cp.code).not.toBe(0);
    expect(cp.stderr).toContain('(InsufficientStorage)');
    expect(cp.stderr).toContain('insufficient capacity');

    // Expect: 100-continue: the refusal comes before a byte of the body.
    const path = encodeKeyPath(small.label, 'big.bin');
    const host = new URL(fx.lab.gw.s3Url).host;
    const signed = await signWithHeader({
      method: 'PUT',
      path,
      host,
      headers: {
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        'content-length': String(twoMiB.length),
        expect: '100-continue',
      },
      date: new Date(),
      accessKeyId: small.accessKeyId,
      secret: small.secret,
    });
    const exchange = await expectContinue(
      Number(new URL(fx.lab.gw.s3Url).port),
      requestHead('PUT', path, signed.rawHeaders),
      twoMiB,
    );
    expect(exchange.interim).toBe(false);
    expect(exchange.response).toMatch(/^HTTP\/1\.1 507 /);
    expect(await names(small)).toEqual([]);

    await small.owner.ok(['resize', '--add', '4m']);
    await expect(put(fx.client(small), small.label, 'big.bin', twoMiB)).resolves.toBeDefined();
  });

  it('an expired tape is refused with "tape expired" and the fix, for writes and reads', async () => {
    const brief = await tapeWithCredential(fx.lab, { reservation: ['--epochs', '1'] });
    await new Promise((r) => setTimeout(r, 7000));
    const write = await failure(put(fx.client(brief), brief.label));
    expect([write.name, write.status, write.message]).toEqual([
      'AccessDenied',
      403,
      expect.stringMatching(/^tape expired: .* \(fix: tape extend --duration <time>\)$/),
    ]);
    const read = await failure(
      fx.client(brief).send(new GetObjectCommand({ Bucket: brief.label, Key: 'page.html' })),
    );
    expect(read.message).toMatch(/^tape expired/);
  });

  it('a bucket that is no tape is NoSuchBucket', async () => {
    const e = await failure(put(fx.client(fx.site), 'a'.repeat(52)));
    expect([e.name, e.status]).toEqual(['NoSuchBucket', 404]);
  });
});

describe('site rules', () => {
  it('a _headers the fence refuses is InvalidArgument naming the line; a valid _redirects is published and served', async () => {
    const e = await failure(
      put(fx.client(fx.site), fx.site.label, '_headers', '/*\n  Set-Cookie: session=a\n'),
    );
    expect([e.name, e.status]).toEqual(['InvalidArgument', 400]);
    expect(e.message).toContain('_headers:2: a site can never set cookies');
    expect(await names(fx.site)).not.toContain('_headers');

    await put(fx.client(fx.site), fx.site.label, '_redirects', '/old /page.html 302\n');
    expect(await names(fx.site)).toContain('_redirects');
    const moved = await gatewayGet(fx.lab.gw, `/site/${fx.site.tape}/old?x=1`);
    expect(moved.status).toBe(302);
    expect(moved.headers.location).toBe(`/site/${fx.site.tape}/page.html?x=1`);
  });
});
