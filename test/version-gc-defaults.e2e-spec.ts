import { Keypair } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { VersionPublisher } from '../src/cli/versions/version-publisher';
import { TrackGcConfig } from '../src/config/storage.config';
import { chunkCount, CHUNK_HASH_BYTES } from '../src/tracks/commitment';
import { STAGING_SLACK_BYTES } from '../src/upload/staging';
import { eventually } from './support/jest/eventually';
import { ObjectFixture } from './support/labs/object-fixture';
import {
  startVersionLab,
  stopVersionLab,
  VersionLab,
  versionTracks,
} from './support/labs/version-lab';
import { isStored, storedBytes } from './support/clients/object-http';
import { siteGet } from './support/clients/site-http';
import { TestTape } from './support/clients/upload-client';
import { VersionSite } from './support/fixtures/version-site';

/**
 * The collector with its shipped settings (no storage.gc override: one pass every
 * `interval_ms`, 5 s; the pending grace, 1 h): a version's bytes go within one interval of
 * the Publish that dropped it, a tape's bytes in the store stay within its capacity plus the
 * documented constant at every moment, and bytes another tenant's live version references
 * stay whoever else uploaded and dropped them (docs/versions.md, "Garbage collection").
 */
const DEFAULTS = new TrackGcConfig();
const INTERVAL_MS = DEFAULTS.interval_ms;
/** Sampling and a pass's own time (a pass over one tape takes tens of ms here). */
const MARGIN_MS = 1_500;

let lab: VersionLab;
let fx: ObjectFixture;
let publisher: VersionPublisher;
let segmentBytes: number;

beforeAll(async () => {
  // Every tape here keeps its 2 newest versions: a third Publish drops the first.
  lab = await startVersionLab({ capacity: 16 << 20, keep: 2 });
  ({ fx, publisher } = lab);
  segmentBytes = lab.config.segmentBytes;
}, 120_000);

afterAll(() => stopVersionLab(lab));

type Planned = Awaited<ReturnType<VersionSite['plan']>>;

/** Every track a planned version references (root, nodes, packs, blobs), by hex. */
function tracksOf(v: Planned): Set<string> {
  return new Set(versionTracks(v).keys());
}

function stored(hex: string): boolean {
  return isStored(fx.gw.dataDir, hex);
}

/** Bytes on disk of these tracks: data and chunk lists. */
function bytesOnDisk(hexes: Iterable<string>): number {
  return storedBytes(fx.gw.dataDir, hexes);
}

async function publish(
  site: VersionSite,
  tape: TestTape,
  wallet: Keypair,
  v: Planned,
  expected: number,
) {
  return publisher.publish({
    tape: tape.address,
    tapeSigner: tape.keypair,
    wallet,
    // SetKeep 2 at creation took sequence 1: the tape's sequence is one past its version.
    expectedSequence: expected + 1,
    pathOf: (file) => site.path(file.name),
    ...v,
  });
}

describe('garbage collection of versions, default settings', () => {
  it("keeps a live file whose bytes another tenant uploaded too and dropped, and collects that tenant's own", async () => {
    const shared = randomBytes(200_000); // over 64 KiB: a blob of its own, the same for both
    const siteA = new VersionSite(segmentBytes);
    siteA.write('shared.bin', shared);
    siteA.write('index.html', '<!doctype html><title>A</title>');
    const a1 = await siteA.plan(['shared.bin', 'index.html']);
    await publish(siteA, fx.tape, fx.wallet, a1, 0);
    const sharedHex = [...tracksOf(a1)].find((hex) =>
      a1.plan.entries.some((e) => e.name === 'shared.bin' && e.commitment.toString('hex') === hex),
    )!;
    expect(sharedHex).toBeDefined();

    // Tenant B publishes the same bytes (the gateway already holds them: `missing` stages
    // them for B), then two versions without them: B's first version is dropped.
    const walletB = await fx.client.fundedWallet();
    const tapeB = await fx.client.createTape(walletB, 8 << 20, 10);
    await fx.client.setKeep(walletB, tapeB, 2);
    const siteB = new VersionSite(segmentBytes);
    siteB.write('copy.bin', shared);
    siteB.write('index.html', '<!doctype html><title>B1</title>');
    const b1 = await siteB.plan(['copy.bin', 'index.html']);
    expect(tracksOf(b1).has(sharedHex)).toBe(true);
    expect((await publish(siteB, tapeB, walletB, b1, 0)).uploadedTracks).toBeLessThan(
      tracksOf(b1).size,
    );
    siteB.write('index.html', '<!doctype html><title>B2</title>');
    const b2 = await siteB.plan(['index.html']);
    await publish(siteB, tapeB, walletB, b2, 1);
    siteB.write('index.html', '<!doctype html><title>B3</title>');
    const b3 = await siteB.plan(['index.html']);
    await publish(siteB, tapeB, walletB, b3, 2);
    const droppedAt = Date.now();

    // B's first version's own tracks (its root, its pack) go within one interval...
    const kept = new Set([...tracksOf(b2), ...tracksOf(b3), ...tracksOf(a1)]);
    const bOnly = [...tracksOf(b1)].filter((hex) => !kept.has(hex));
    expect(bOnly.length).toBeGreaterThan(0);
    await eventually("B's dropped version collected", () => bOnly.every((hex) => !stored(hex)), {
      timeoutMs: INTERVAL_MS + MARGIN_MS,
      everyMs: 50,
    });
    console.log(`B's dropped version collected ${Date.now() - droppedAt} ms after its drop`);
    // ...and after more passes, A's file, whose bytes B uploaded and dropped too, still serves.
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS));
    expect(stored(sharedHex)).toBe(true);
    const file = await siteGet(fx.gw.url, `/site/${fx.tape.address.toBase58()}/shared.bin`);
    expect([file.status, file.body.equals(shared)]).toEqual([200, true]);
    expect([...tracksOf(a1)].filter((hex) => !stored(hex))).toEqual([]);
  }, 120_000);

  it('publish → drop on a 2 MiB tape: bytes within capacity + the constant at every sample, each dropped version gone within one interval', async () => {
    const capacity = 2 << 20;
    const rounds = 14;
    const tape = await fx.client.createTape(fx.wallet, capacity, 10);
    await fx.client.setKeep(fx.wallet, tape, 2);
    const site = new VersionSite(segmentBytes);
    // The documented constant: STAGING_SLACK_BYTES, plus the chunk lists of what is on disk.
    const bound = capacity + STAGING_SLACK_BYTES;
    const limit = bound + chunkCount(bound) * CHUNK_HASH_BYTES + 64 * CHUNK_HASH_BYTES;

    const known = new Set<string>();
    const versions: Planned[] = [];
    const droppedAt = new Map<number, number>();
    const goneAt = new Map<number, number>();
    let maxOnDisk = 0;
    let samples = 0;
    const ownOf = (i: number) => {
      const keptLater = new Set([...tracksOf(versions[i + 1]), ...tracksOf(versions[i + 2])]);
      return [...tracksOf(versions[i])].filter((hex) => !keptLater.has(hex));
    };
    const sample = () => {
      maxOnDisk = Math.max(maxOnDisk, bytesOnDisk(known));
      samples++;
      for (const i of droppedAt.keys()) {
        if (!goneAt.has(i) && ownOf(i).every((hex) => !stored(hex))) goneAt.set(i, Date.now());
      }
    };
    const sampler = setInterval(sample, 20);
    try {
      for (let round = 0; round < rounds; round++) {
        // 700 KiB each: two kept versions and the next one's staged bytes fit in the bound.
        site.write('data.bin', randomBytes(700 * 1024));
        const v = await site.plan(['data.bin'], versions.at(-1)?.plan);
        for (const hex of tracksOf(v)) known.add(hex);
        versions.push(v);
        await publish(site, tape, fx.wallet, v, round);
        if (round >= 2) droppedAt.set(round - 2, Date.now());
      }
      await eventually(
        'every dropped version collected',
        () => [...droppedAt.keys()].every((i) => goneAt.has(i)),
        { timeoutMs: INTERVAL_MS + MARGIN_MS, everyMs: 50 },
      );
      sample();
    } finally {
      clearInterval(sampler);
    }
    const latencies = [...droppedAt].map(([i, at]) => goneAt.get(i)! - at);
    console.log(
      `${rounds} rounds on a ${capacity}-byte tape: at most ${maxOnDisk} bytes on disk over ${samples} samples (limit ${limit}); ` +
        `dropped versions collected after ${latencies.join(', ')} ms (interval ${INTERVAL_MS} ms)`,
    );
    expect(droppedAt.size).toBe(rounds - 2);
    expect(maxOnDisk).toBeLessThanOrEqual(limit);
    for (const ms of latencies) expect(ms).toBeLessThanOrEqual(INTERVAL_MS + MARGIN_MS);
    // What stays is exactly the two kept versions.
    const keptNow = new Set([...tracksOf(versions[rounds - 1]), ...tracksOf(versions[rounds - 2])]);
    expect([...known].filter((hex) => stored(hex) !== keptNow.has(hex))).toEqual([]);
    const file = await siteGet(fx.gw.url, `/site/${tape.address.toBase58()}/data.bin`);
    expect([file.status, file.body.equals(readFileSync(site.path('data.bin')))]).toEqual([
      200,
      true,
    ]);
  }, 300_000);
});
