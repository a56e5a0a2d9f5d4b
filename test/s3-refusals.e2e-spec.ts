import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { failure } from './support/clients/s3-sdk-client';
import { APP_OWNER, useS3TestApp } from './support/apps/s3-app-fixture';

/**
 * Every refusal a site owner syncing with an SDK can meet, by the name and status the client
 * shows: credentials (secret, clock, scope, revocation) and tape states (undelegated, full, expired).
 */
jest.setTimeout(120000);

const OTHER_TAPE = 'TapeOfSomeoneElse11111111111111111111111';
const BUCKET = APP_OWNER.bucket;
const OTHER = 'otherbucketlabel3333333333333333333333333333333333aa';

const fx = useS3TestApp();
const client = fx.client;

beforeAll(() => {
  fx.app.backend.addTape(OTHER, OTHER_TAPE);
  fx.app.credentials.issue('AKOTHER', 'other-secret', OTHER_TAPE);
});

describe('refusals, by the names clients show', () => {
  const put = (s3: S3Client, bucket = BUCKET) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'refused.txt', Body: 'x' }));

  it('wrong secret: SignatureDoesNotMatch', async () => {
    const e = await failure(put(client('AKOWNER', 'not-the-secret')));
    expect([e.name, e.status]).toEqual(['SignatureDoesNotMatch', 403]);
  });

  it('skewed clock: RequestTimeTooSkewed, whose server time lets the SDK correct its offset', async () => {
    const s3 = client('AKOWNER', 'owner-secret', { systemClockOffset: 3600_000 });
    const skewed = await failure(put(s3));
    expect([skewed.name, skewed.status]).toEqual(['RequestTimeTooSkewed', 403]);
    // The SDK took the server's time from the error and corrected its clock for the next call.
    expect(Math.abs(s3.config.systemClockOffset)).toBeLessThan(60_000);
    await expect(put(s3)).resolves.toBeDefined();
  });

  it("another tape's credential: AccessDenied; an unknown bucket: NoSuchBucket", async () => {
    const e = await failure(put(client('AKOTHER', 'other-secret')));
    expect([e.name, e.status]).toEqual(['AccessDenied', 403]);
    const missing = await failure(put(client(), 'nosuchbucketlabel'));
    expect([missing.name, missing.status]).toEqual(['NoSuchBucket', 404]);
  });

  it('revoked or unknown credential: InvalidAccessKeyId', async () => {
    fx.app.credentials.issue('AKREVOKED', 'revoked-secret', APP_OWNER.tape).revoked = true;
    expect((await failure(put(client('AKREVOKED', 'revoked-secret')))).name).toBe(
      'InvalidAccessKeyId',
    );
    expect((await failure(put(client('AKNEVER', 'x')))).name).toBe('InvalidAccessKeyId');
  });

  it('undelegated tape: AccessDenied naming the fix', async () => {
    fx.app.backend.tape(BUCKET).undelegated = true;
    try {
      const e = await failure(put(client()));
      expect(e.name).toBe('AccessDenied');
      expect(e.message).toContain('tape delegate');
    } finally {
      fx.app.backend.tape(BUCKET).undelegated = false;
    }
  });

  it('full tape: 507 InsufficientStorage "insufficient capacity (fix: tape resize --add <size>)"', async () => {
    fx.app.backend.tape(BUCKET).capacity = 0;
    try {
      const e = await failure(put(client()));
      expect([e.name, e.status]).toEqual(['InsufficientStorage', 507]);
      expect(e.message).toMatch(/^insufficient capacity.*\(fix: tape resize --add <size>\)$/);
    } finally {
      fx.app.backend.tape(BUCKET).capacity = undefined;
    }
  });

  it('expired tape: AccessDenied "tape expired (fix: tape extend --duration <time>)"', async () => {
    fx.app.backend.tape(OTHER).expired = true;
    try {
      const e = await failure(put(client('AKOTHER', 'other-secret'), OTHER));
      expect([e.name, e.status]).toEqual(['AccessDenied', 403]);
      expect(e.message).toBe('tape expired (fix: tape extend --duration <time>)');
    } finally {
      fx.app.backend.tape(OTHER).expired = false;
    }
  });
});
