import { Keypair, PublicKey } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { NO_VERSION, TapeRecord } from '../../chain/account-layouts';
import type { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity, GatewayRole } from '../../chain/gateway-identity';
import { atVersion, keeping } from '../../chain/tape-record.spec-support';
import { TapePointerFeed, TapePointerHandlers } from '../../chain/tape-pointer-feed';
import { StorageConfig } from '../../config/storage.config';
import { bodyOf, newTestStore } from '../../../test/support/fixtures/tracks';
import { commitmentOfBuffer } from '../commitment';
import type { TrackStore } from '../track-store';
import { TrackGarbageCollector } from './track-gc.service';
import { stagingOwner, versionOwner } from './version-owner';
import { eventually } from '../../../test/support/jest/eventually';

const GENESIS = 1_600_000_000;

/** Whether the store still holds each of these tracks, in order. */
function held(store: TrackStore, commitments: Buffer[]): Promise<boolean[]> {
  return Promise.all(commitments.map((c) => store.has(c)));
}

/** A chain where tests publish and drop tapes' versions; every tape is active. */
class FakeChain {
  /** Tapes' pointers by address; any other tape is active with no version. */
  readonly pointers = new Map<string, Partial<TapeRecord>>();
  tapeReads: string[][] = [];
  onRead?: () => Promise<void>;

  async getTapes(addresses: PublicKey[]): Promise<(TapeRecord | null)[]> {
    this.tapeReads.push(addresses.map((a) => a.toBase58()));
    await this.onRead?.();
    return addresses.map(
      (a) =>
        ({
          expiryEpoch: 1e12,
          ...NO_VERSION,
          ...this.pointers.get(a.toBase58()),
        }) as TapeRecord,
    );
  }
  async networkConfig() {
    return { genesisTime: GENESIS, epochDurationSecs: 10 };
  }
  async chainTime() {
    return Math.floor(Date.now() / 1000);
  }
}

function newTestCollector(maxPerPass = 1000, role: GatewayRole = 'writer', feed?: TapePointerFeed) {
  const { store } = newTestStore();
  const chain = new FakeChain();
  const storage = new StorageConfig();
  storage.gc = Object.assign(storage.gc, {
    pending_grace_secs: 0,
    max_tracks_per_pass: maxPerPass,
  });
  storage.gc.interval_ms = 100;
  const identity = new GatewayIdentity(Keypair.generate(), role);
  const sut = new TrackGarbageCollector(
    store,
    chain as unknown as ChainReader,
    storage,
    identity,
    undefined,
    feed,
  );
  const tape = Keypair.generate().publicKey;
  /** A version 1 of its own tape holding these bytes: the reference, then the bytes. */
  const upload = async (bytes = randomBytes(5000), tapeKey = Keypair.generate().publicKey) => {
    const { commitment } = commitmentOfBuffer(bytes);
    const root = randomBytes(32);
    const claim = {
      commitment,
      track: versionOwner(tapeKey, 1, root),
      tape: tapeKey.toBase58(),
      role: 'track' as const,
      size: bytes.length,
    };
    await store.claim(claim);
    await store.put(commitment, bytes.length, bodyOf(bytes));
    chain.pointers.set(tapeKey.toBase58(), atVersion(1, root));
    return { commitment, tape: tapeKey, claim, bytes };
  };
  /** Two later versions without these bytes: version 1 is no longer kept. */
  const drop = (u: { tape: PublicKey }) =>
    chain.pointers.set(
      u.tape.toBase58(),
      keeping(3, [
        [2, randomBytes(32)],
        [3, randomBytes(32)],
      ]),
    );
  return { sut, store, chain, upload, drop, tape, storage };
}

describe('TrackGarbageCollector', () => {
  it('never runs on a reader: no scheduled pass, runPass refused, the stats say why', async () => {
    const { sut, store, chain, upload, drop } = newTestCollector(1000, 'reader');
    const closed = await upload();
    drop(closed);
    sut.onApplicationBootstrap();
    await new Promise((r) => setTimeout(r, 350)); // three intervals
    await expect(sut.runPass()).rejects.toThrow(/reader/);
    expect(chain.tapeReads).toEqual([]);
    expect(await store.has(closed.commitment)).toBe(true);
    expect(sut.stats()).toMatchObject({ enabled: false, disabledReason: 'reader', passes: 0 });
    await sut.onModuleDestroy();
  });

  it('a writer with the same settings runs its passes on schedule', async () => {
    const { sut, store, upload, drop } = newTestCollector();
    const closed = await upload();
    drop(closed);
    sut.onApplicationBootstrap();
    await eventually('a scheduled pass ran', () => sut.stats().passes > 0);
    await sut.onModuleDestroy();
    expect(sut.stats()).toMatchObject({ enabled: true, passes: expect.any(Number) });
    expect(sut.stats().passes).toBeGreaterThan(0);
    expect(await store.has(closed.commitment)).toBe(false);
  });

  it('deletes the bytes of dropped versions and keeps kept ones', async () => {
    const { sut, store, upload, drop } = newTestCollector();
    const closed = await upload();
    const live = await upload();
    drop(closed);
    const pass = await sut.runPass();
    expect([pass.checked, pass.deleted, pass.deletedBytes]).toEqual([2, 1, 5000]);
    expect(await store.has(closed.commitment)).toBe(false);
    expect(await store.has(live.commitment)).toBe(true);
    expect(sut.stats()).toMatchObject({ passes: 1, deleted: 1, deletedBytes: 5000 });
  });

  it('keeps a blob two tapes uploaded until neither tape keeps it', async () => {
    const { sut, store, upload, drop } = newTestCollector();
    const bytes = randomBytes(3000);
    const a = await upload(bytes);
    const b = await upload(bytes);
    drop(a);
    expect((await sut.runPass()).kept).toBe(1);
    expect(await store.has(a.commitment)).toBe(true);
    drop(b);
    expect((await sut.runPass()).deleted).toBe(1);
    expect(await store.has(a.commitment)).toBe(false);
  });

  it('does not delete bytes an upload claims again while the pass reads the chain', async () => {
    const { sut, store, chain, upload, drop } = newTestCollector();
    const first = await upload();
    drop(first);
    chain.onRead = async () => {
      // The same bytes uploaded again, under the same owner, while the pass looks.
      await new Promise((r) => setTimeout(r, 2));
      await store.claim(first.claim);
      await store.put(first.commitment, first.bytes.length, bodyOf(first.bytes));
    };
    const pass = await sut.runPass();
    expect([pass.deleted, pass.kept]).toEqual([0, 1]);
    expect(await store.has(first.commitment)).toBe(true);
  });

  it('examines at most max_tracks_per_pass blobs per pass and resumes where it stopped', async () => {
    const { sut, store, chain, upload, drop } = newTestCollector(2);
    const all = [];
    for (let i = 0; i < 5; i++) all.push(await upload());
    for (const u of all) drop(u);
    const passes = [await sut.runPass(), await sut.runPass(), await sut.runPass()];
    expect(passes.map((p) => p.checked)).toEqual([2, 2, 1]);
    expect(chain.tapeReads.every((tapes) => tapes.length <= 2)).toBe(true);
    for (const u of all) expect(await store.has(u.commitment)).toBe(false);
  });

  it("keeps what the tape's kept versions reference, reading the tape once", async () => {
    const { sut, store, chain, tape } = newTestCollector();
    const stored = async (bytes: Buffer) => {
      const { commitment } = commitmentOfBuffer(bytes);
      await store.put(commitment, bytes.length, bodyOf(bytes));
      return commitment;
    };
    const shared = await stored(randomBytes(4000));
    const roots = [Buffer.alloc(32, 1), Buffer.alloc(32, 2), Buffer.alloc(32, 3)];
    const own: Buffer[] = [];
    for (const [i, root] of roots.entries()) {
      own.push(await stored(randomBytes(1000)));
      for (const commitment of [shared, own.at(-1)!]) {
        await store.claim({
          commitment,
          track: versionOwner(tape, i + 1, root),
          tape: tape.toBase58(),
          role: 'track',
          size: 1000,
        });
      }
    }
    chain.pointers.set(
      tape.toBase58(),
      keeping(3, [
        [2, roots[1]],
        [3, roots[2]],
      ]),
    );
    const pass = await sut.runPass();
    expect(pass).toMatchObject({ checked: 4, deleted: 1, kept: 1, referencesDropped: 2 });
    expect(pass.byReason['version-dropped']).toBe(2);
    expect(await held(store, [shared, ...own])).toEqual([true, false, true, true]);
    expect(chain.tapeReads).toEqual([[tape.toBase58()]]);
  });

  describe('targeted checks: a watched tape is checked whole at the next pass', () => {
    /** Blobs of versions 1..n of one tape, each with one own blob and one shared by all. */
    async function versions(n: number, feed?: TapePointerFeed) {
      const ctx = newTestCollector(1, 'writer', feed);
      const { store, tape } = ctx;
      // A version still to come, and staged bytes, are kept for the grace.
      ctx.storage.gc.pending_grace_secs = 3600;
      ctx.storage.gc.rebase_grace_secs = 120;
      const stored = async (bytes: Buffer) => {
        const { commitment } = commitmentOfBuffer(bytes);
        await store.put(commitment, bytes.length, bodyOf(bytes));
        return commitment;
      };
      const claim = (commitment: Buffer, track: string) =>
        store.claim({ commitment, track, tape: tape.toBase58(), role: 'track', size: 1000 });
      const shared = await stored(randomBytes(1000));
      const roots: Buffer[] = [];
      const own: Buffer[] = [];
      for (let i = 1; i <= n; i++) {
        roots.push(randomBytes(32));
        own.push(await stored(randomBytes(1000)));
        for (const c of [shared, own.at(-1)!]) await claim(c, versionOwner(tape, i, roots.at(-1)!));
      }
      const pointAt = (version: number) =>
        ctx.chain.pointers.set(
          tape.toBase58(),
          keeping(version, [
            [version, roots[version - 1]],
            ...(version > 1 ? [[version - 1, roots[version - 2]] as [number, Buffer]] : []),
          ]),
        );
      return { ...ctx, shared, own, roots, claim, pointAt, stored };
    }

    it("deletes a dropped version's own bytes in one pass, whatever the cursor's page size", async () => {
      const { sut, store, tape, own, shared, pointAt } = await versions(3);
      pointAt(3);
      await new Promise((r) => setTimeout(r, 5));
      sut.watch(tape.toBase58());
      // One blob per cursor page: the cursor alone would need four passes to see them all.
      const pass = await sut.runPass();
      expect(pass).toMatchObject({ tapesChecked: 1, deleted: 1 });
      expect(pass.byReason['version-dropped']).toBe(2);
      expect(await held(store, [shared, ...own])).toEqual([true, false, true, true]);
      // Settled: no reference waits on the chain, so the tape is not checked again.
      expect(sut.stats().watchedTapes).toBe(0);
      expect((await sut.runPass()).tapesChecked).toBe(0);
    });

    it('checks a tape it served again when the chain says its table changed (a rollback, SetKeep)', async () => {
      let handlers: TapePointerHandlers | undefined;
      const feed: TapePointerFeed = {
        watch: (h: TapePointerHandlers) => {
          handlers = h;
          return { close: () => undefined };
        },
      };
      const { sut, store, tape, own, roots, chain, storage } = await versions(3, feed);
      storage.gc.interval_ms = 1e9; // passes by hand only
      sut.onApplicationBootstrap();
      try {
        chain.pointers.set(
          tape.toBase58(),
          keeping(3, [
            [2, roots[1]],
            [3, roots[2]],
          ]),
        );
        sut.watch(tape.toBase58());
        expect((await sut.runPass()).deleted).toBe(1); // version 1's own
        expect(sut.stats().watchedTapes).toBe(0);
        // The owner sends SetKeep 1 itself: version 2 leaves the table, nothing was published here.
        const record = { ...NO_VERSION, ...keeping(3, [[3, roots[2]]]), keep: 1 } as TapeRecord;
        chain.pointers.set(tape.toBase58(), record);
        handlers!.changed(tape.toBase58(), record);
        // A tape this gateway never served is not checked for its changes.
        handlers!.changed(Keypair.generate().publicKey.toBase58(), record);
        expect(sut.stats().watchedTapes).toBe(1);
        const pass = await sut.runPass();
        expect(pass).toMatchObject({ tapesChecked: 1, deleted: 1 });
        expect(await held(store, own)).toEqual([false, false, true]);
      } finally {
        await sut.onModuleDestroy();
      }
    });

    it('keeps checking a tape while a certified version is not published yet, then collects at once', async () => {
      const { sut, store, tape, own, pointAt, chain } = await versions(3);
      pointAt(2); // version 3 is certified; its Publish has not landed
      sut.watch(tape.toBase58());
      expect((await sut.runPass()).deleted).toBe(0);
      expect(sut.stats().watchedTapes).toBe(1);
      pointAt(3); // it lands: version 1 is dropped
      const reads = chain.tapeReads.length;
      const pass = await sut.runPass();
      expect(pass).toMatchObject({ tapesChecked: 1, deleted: 1 });
      expect(chain.tapeReads.length).toBeGreaterThan(reads);
      expect(await store.has(own[0])).toBe(false);
      expect(sut.stats().watchedTapes).toBe(0);
    });

    it('drops bytes staged on a version the tape moved past; keeps those staged on its current one', async () => {
      const { sut, store, tape, pointAt, stored, claim, storage } = await versions(2);
      pointAt(2);
      storage.gc.rebase_grace_secs = 0;
      const old = await stored(randomBytes(500));
      const current = await stored(randomBytes(500));
      const rebasing = await stored(randomBytes(500));
      await claim(old, stagingOwner(tape, 1));
      await claim(current, stagingOwner(tape, 2));
      await claim(rebasing, stagingOwner(tape, 1));
      // Version 2 took `old` in: its staged reference goes whatever the rebase grace.
      await claim(old, versionOwner(tape, 2, randomBytes(32)));
      // A reference recorded in the pass's own millisecond counts as fresh: let one go by.
      await new Promise((r) => setTimeout(r, 5));
      sut.watch(tape.toBase58());
      const pass = await sut.runPass();
      expect(pass.byReason['staged-superseded']).toBe(2);
      expect(await held(store, [old, current, rebasing])).toEqual([false, true, false]);
      // An upload in progress: the tape is checked again at the next pass.
      expect(sut.stats().watchedTapes).toBe(1);
    });

    it('collectTape checks one tape now, outside the passes', async () => {
      const { sut, store, tape, own, pointAt } = await versions(3);
      pointAt(3);
      await new Promise((r) => setTimeout(r, 5));
      const result = await sut.collectTape(tape.toBase58());
      expect(result).toMatchObject({ tapesChecked: 1, deleted: 1 });
      expect(await store.has(own[0])).toBe(false);
      // Not a pass, but counted in the totals.
      expect(sut.stats()).toMatchObject({ passes: 0, deleted: 1, tapesChecked: 1 });
    });

    it('a reader watches nothing', () => {
      const { sut, tape } = newTestCollector(1, 'reader');
      sut.watch(tape.toBase58());
      expect(sut.stats().watchedTapes).toBe(0);
    });
  });
});
