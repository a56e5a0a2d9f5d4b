import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { ObjectFixture, startObjectFixture } from './support/labs/object-fixture';
import { eventually } from './support/jest/eventually';
import { rawRequest, storedTrackPath } from './support/clients/object-http';

/**
 * Expired tapes, on a local network whose epochs last 2 seconds: uploads are refused with 410
 * and nothing is kept, a new version is refused, and the object route answers 410 Gone
 * for objects it served a moment before (even with the tape's record in its cache).
 */
let fx: ObjectFixture;

beforeAll(async () => {
  fx = await startObjectFixture({
    env: { TAPE__LOCALNET__EPOCH_DURATION_SECS: '2' },
    capacity: 1 << 20,
    epochs: 6, // 10-12 s: room for the steps before expiry on a loaded machine
  });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

async function waitUntilExpired(): Promise<void> {
  const tape = await fx.client.chain.reader.getTape(fx.tape.address);
  if (!tape) throw new Error('no tape');
  const deadline = Date.now() + 20_000;
  while ((await fx.client.chain.reader.currentEpoch()) < tape.expiryEpoch) {
    if (Date.now() > deadline) throw new Error('the tape did not expire');
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('an expired tape: uploads 410 with nothing kept, publishing refused, objects 410 Gone', async () => {
  const served = randomBytes(4000);
  const servedTrack = await fx.client.store(fx.wallet, fx.tape, served, 'text/plain', 1 << 20);
  const pendingBytes = randomBytes(4000);
  const pending = fx.client.track(
    fx.tape,
    new SegmentingHasher(1 << 20).update(pendingBytes).digest(),
  );
  const before = await rawRequest(fx.objectUrl(servedTrack.address));
  expect([before.status, before.body.equals(served)]).toEqual([200, true]);

  await waitUntilExpired();
  // The gateway reads the chain's clock from block times (whole seconds) with its own offset: its
  // view of the epoch can trail this client's by up to a second. Its object route says when.
  await eventually(
    'the gateway sees the tape expired',
    async () => (await rawRequest(fx.objectUrl(servedTrack.address))).status === 410,
    { timeoutMs: 10_000, everyMs: 100 },
  );

  const upload = await fx.client.put(pending, pendingBytes);
  expect([upload.status, upload.body.error?.code]).toEqual([410, 'gone']);
  const pendingPath = storedTrackPath(fx.gw.dataDir, Buffer.from(pending.commitment, 'hex'));
  expect(existsSync(pendingPath)).toBe(false);
  // No version ever named it: not certified, expired tape or not.
  expect((await rawRequest(fx.objectUrl(pending.address))).status).toBe(400);

  await expect(
    fx.client.store(fx.wallet, fx.tape, randomBytes(10), 'text/plain', 1 << 20),
  ).rejects.toThrow(/expired/);

  const gone = await rawRequest(fx.objectUrl(servedTrack.address));
  expect(gone.status).toBe(410);
  expect(gone.headers['cache-control']).toBe('no-store');
  expect(JSON.parse(gone.body.toString()).error.code).toBe('tape_expired');
  const head = await rawRequest(fx.objectUrl(servedTrack.address), { method: 'HEAD' });
  expect(head.status).toBe(410);
});
