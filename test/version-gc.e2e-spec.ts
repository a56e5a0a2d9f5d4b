import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { versionedTrackAddress } from '../src/object/versioned-track';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { eventually } from './support/jest/eventually';
import {
  startVersionLab,
  stopVersionLab,
  VersionLab,
  versionTracks,
} from './support/labs/version-lab';
import { rawRequest, isStored, storedBytes } from './support/clients/object-http';
import { siteGet } from './support/clients/site-http';
import { TestTape } from './support/clients/upload-client';
import { putVersionBytes, VersionSite } from './support/fixtures/version-site';

/**
 * The collector keeps exactly what a tape's kept versions reference (docs/tracks.md, "Garbage
 * collection"): with the tape's `keep` set to 2, its current version and the one before. Three
 * versions of a site, each changing one file; then v1's own root, nodes and pack go, v2's and
 * v3's bytes all stay and serve (every file of v3 by the site route, v2's own file by its
 * /object address). A tenant who stages the same bytes as another tenant's live file and
 * abandons them takes nothing from it.
 *
 * The gateway runs a pass every 300 ms. The pending grace is 3 s, not 0: a version's references
 * are recorded when it is certified, before its Publish is confirmed, and only the grace keeps
 * its new bytes through a pass that reads the chain in between (the unit specs check the
 * default, one hour).
 */
const SEGMENT = 256 * 1024;
const GRACE_SECS = 3;
let lab: VersionLab;
const site = new VersionSite(SEGMENT);

beforeAll(async () => {
  // The tape keeps its 2 newest versions: a third Publish drops the first (docs/versions.md).
  lab = await startVersionLab({
    capacity: 16 << 20,
    keep: 2,
    env: {
      TAPE__STORAGE__SEGMENT_BYTES: String(SEGMENT),
      TAPE__STORAGE__GC__INTERVAL_MS: '300',
      TAPE__STORAGE__GC__PENDING_GRACE_SECS: String(GRACE_SECS),
    },
  });
}, 120_000);

afterAll(() => stopVersionLab(lab));

type Planned = Awaited<ReturnType<VersionSite['plan']>>;

/** Every track a planned version references, by hex, with what it is. */
const tracksOf = versionTracks;

function stored(hex: string): boolean {
  return isStored(lab.fx.gw.dataDir, hex);
}

/** Bytes on disk of these tracks: data and chunk lists. */
function bytesOnDisk(hexes: Iterable<string>): number {
  return storedBytes(lab.fx.gw.dataDir, hexes);
}

interface GcStats {
  passes: number;
  deleted: number;
  lastPass?: { byReason: Record<string, number> };
}

async function gcStats(): Promise<GcStats> {
  const res = await rawRequest(`${lab.fx.gw.url}/healthz`);
  return (JSON.parse(res.body.toString()) as { track_gc: GcStats }).track_gc;
}

/** Resolves once `count` whole passes that started after this call have ended. */
async function passesAfterNow(count: number): Promise<void> {
  const start = (await gcStats()).passes;
  // The pass running at `start` may have begun earlier: one more than asked.
  await eventually(
    `${count} collector passes`,
    async () => (await gcStats()).passes >= start + count + 1,
    { timeoutMs: 30_000, everyMs: 100 },
  );
}

async function publish(tape: TestTape, v: Planned, expected: number) {
  return lab.publisher.publish({
    tape: tape.address,
    tapeSigner: tape.keypair,
    wallet: lab.fx.wallet,
    // SetKeep took sequence 1: the tape's sequence is one past its version.
    expectedSequence: expected + 1,
    pathOf: (file) => site.path(file.name),
    ...v,
  });
}

/** Waits until every reference recorded up to `since` (unix ms) is past the pending grace. */
async function graceOver(since: number): Promise<void> {
  await eventually('the pending grace is over', () => Date.now() > since + GRACE_SECS * 1000, {
    timeoutMs: GRACE_SECS * 1000 + 5_000,
    everyMs: 100,
  });
}

describe('garbage collection of versions', () => {
  let v1: Planned;
  let v2: Planned;
  let v3: Planned;
  let v1OnlyPack: Buffer;

  it('keeps the bytes of the current and previous versions, and deletes what only v1 held', async () => {
    // 577 files of 7,000 bytes: 9 per 64 KiB chunk fill one 4 MiB pack with 576, so the last
    // file is alone in a second pack; 578 names also make manifest nodes below the root.
    site.write('index.html', '<!doctype html><title>v1</title>');
    const names = ['index.html'];
    for (let i = 0; i < 577; i++) {
      const name = `n/${String(i).padStart(3, '0')}.txt`;
      site.write(name, randomBytes(7000));
      names.push(name);
    }
    v1 = await site.plan(names);
    const alone = v1.plan.packs.find(
      (p) =>
        v1.plan.entries.filter(
          (e) => e.location.kind === 'packed' && e.location.pack.equals(p.commitment),
        ).length === 1,
    );
    const aloneName = v1.plan.entries.find(
      (e) => e.location.kind === 'packed' && alone && e.location.pack.equals(alone.commitment),
    )?.name;
    expect(aloneName).toBe('n/576.txt');
    v1OnlyPack = alone!.bytes;
    expect(v1.built.nodes.length).toBeGreaterThan(0);
    await publish(lab.fx.tape, v1, 0);

    // v2 changes the file alone in its pack: v1's second pack is v1's alone.
    site.write('n/576.txt', randomBytes(7000));
    v2 = await site.plan(['n/576.txt'], v1.plan);
    await publish(lab.fx.tape, v2, 1);
    // v3 changes index.html.
    const v2Index = readFileSync(site.path('index.html'));
    site.write('index.html', '<!doctype html><title>v3</title>');
    v3 = await site.plan(['index.html'], v2.plan);

    const t1 = tracksOf(v1);
    const kept = new Map([...tracksOf(v2), ...tracksOf(v3)]);
    const v1Only = [...t1].filter(([hex]) => !kept.has(hex));
    const kinds = v1Only.map(([, kind]) => kind);
    expect(new Set(kinds)).toEqual(new Set(['root', 'node', 'pack']));
    // Measured while v1 is still kept (the previous version): v3's Publish drops it, and the
    // collector may take its bytes at its next pass.
    const v1OnlyBytes = bytesOnDisk(v1Only.map(([hex]) => hex));
    expect(v1Only.every(([hex]) => stored(hex))).toBe(true);

    await publish(lab.fx.tape, v3, 2);
    const v3At = Date.now();
    const all = new Set([...t1.keys(), ...kept.keys()]);
    // v1's own tracks as measured above, plus every track v2 and v3 keep.
    const before = v1OnlyBytes + bytesOnDisk(kept.keys());

    const tape = (await lab.fx.client.chain.reader.getTape(lab.fx.tape.address))!;
    expect([tape.version, tape.history.map((v) => v.version)]).toEqual([3, [2, 3]]);

    await eventually('v1-only tracks collected', () => v1Only.every(([hex]) => !stored(hex)), {
      timeoutMs: 30_000,
      everyMs: 100,
    });
    // Past the grace, only the version references keep v2's and v3's bytes: two more passes.
    await graceOver(v3At);
    await passesAfterNow(2);
    const after = bytesOnDisk(all);
    console.log(
      `tape bytes on disk (data + chunk lists of its 3 versions' ${all.size} tracks): before ${before}, after ${after}; ` +
        `v1-only tracks deleted: ${v1Only.length} (${kinds.filter((k) => k === 'node').length} nodes, ${kinds.filter((k) => k === 'pack').length} pack, root), ${before - after} bytes`,
    );
    const missing = [...kept].filter(([hex]) => !stored(hex));
    expect(missing).toEqual([]);
    expect(before - after).toBe(v1OnlyBytes);

    // Served: every file of v3 by the site route, v2's own file (its index.html) by its address.
    const address = lab.fx.tape.address.toBase58();
    for (let i = 0; i < names.length; i += 16) {
      const answers = await Promise.all(
        names.slice(i, i + 16).map(async (name) => {
          const r = await siteGet(lab.fx.gw.url, `/site/${address}/${name}`);
          const same = r.body.equals(readFileSync(site.path(name)));
          return [name, r.status, r.headers['x-tape-version'], same];
        }),
      );
      for (const a of answers) expect(a).toEqual([a[0], 200, '3', true]);
    }
    const v2Own = await fetch(
      `${lab.fx.gw.url}/object/${versionedTrackAddress(lab.fx.tape.address, commitmentOfBuffer(v2Index).commitment)}`,
    );
    expect(v2Own.status).toBe(200);
    expect(Buffer.from(await v2Own.arrayBuffer()).equals(v2Index)).toBe(true);
  });

  it("a tenant staging the same bytes as another's live pack, then abandoning them, takes nothing", async () => {
    const walletB = await lab.fx.client.fundedWallet();
    const tapeB = await lab.fx.client.createTape(walletB, 8 << 20, 10);
    const livePack = v3.plan.packs[0];
    expect(tracksOf(v3).get(livePack.commitment.toString('hex'))).toBe('pack');
    const staged = await putVersionBytes(lab.gateway, tapeB, livePack.bytes);
    expect(staged.status).toBe(200);
    // v1's own pack is gone already: B's upload brings it back, held by B's staging alone.
    const abandoned = commitmentOfBuffer(v1OnlyPack).commitment.toString('hex');
    expect(stored(abandoned)).toBe(false);
    expect((await putVersionBytes(lab.gateway, tapeB, v1OnlyPack)).status).toBe(200);
    const stagedAt = Date.now();
    expect(stored(abandoned)).toBe(true);

    // B never publishes: past the grace its staging references are dead, and they go.
    await eventually("B's abandoned bytes collected", () => !stored(abandoned), {
      timeoutMs: 30_000,
      everyMs: 100,
    });
    await graceOver(stagedAt);
    await passesAfterNow(2);
    // A's pack, which B staged too, stays: A's current version references it, and serves.
    expect(stored(livePack.commitment.toString('hex'))).toBe(true);
    const index = await siteGet(
      lab.fx.gw.url,
      `/site/${lab.fx.tape.address.toBase58()}/index.html`,
    );
    expect([index.status, index.text]).toEqual([200, '<!doctype html><title>v3</title>']);
    const kept = new Map([...tracksOf(v2), ...tracksOf(v3)]);
    expect([...kept].filter(([hex]) => !stored(hex))).toEqual([]);
  });
});
