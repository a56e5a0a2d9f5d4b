import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { NetworkConfig, NO_VERSION, TapeRecord } from '../chain/account-layouts';
import { applyPublish } from '../chain/tape-history';
import { ChainReader } from '../chain/chain-reader';
import { commitmentOfBuffer } from '../tracks/commitment';
import { ApiError } from '../http/api-error';
import { StoreVersionNodes } from '../versions/store-version-nodes';
import { buildVersion, BuiltVersion } from '../versions/version-builder';
import { fakeEntry } from '../versions/version-test-support.spec-support';
import { newTestStore } from '../../test/support/fixtures/tracks';
import { TrackResolver } from './track-resolver';
import { parseVersionedTrack, versionedTrackAddress } from './versioned-track';

describe('versioned track addresses', () => {
  it('are base58 of tape || commitment, and parse back; nothing else parses', () => {
    const tape = Keypair.generate().publicKey;
    const commitment = randomBytes(32);
    const address = versionedTrackAddress(tape, commitment);
    expect(bs58.decode(address)).toEqual(new Uint8Array([...tape.toBytes(), ...commitment]));
    expect(parseVersionedTrack(address)).toEqual({ tape: tape.toBase58(), commitment });
    expect(parseVersionedTrack(tape.toBase58())).toBeNull(); // a 32-byte account address
    expect(parseVersionedTrack(bs58.encode(randomBytes(65)))).toBeNull(); // too long
    expect(parseVersionedTrack(address.replace(/.$/, '0'))).toBeNull(); // not base58
    expect(parseVersionedTrack(bs58.encode(randomBytes(63)))).toBeNull();
  });
});

describe('TrackResolver: files of published versions', () => {
  const GENESIS = 1_700_000_000;

  async function newVersionedResolver() {
    const { store } = newTestStore();
    const nodes = new StoreVersionNodes(store);
    const tapeKey = Keypair.generate().publicKey;
    const tape: TapeRecord = {
      authority: tapeKey,
      delegate: null,
      capacity: 1 << 20,
      activeEpoch: 0,
      expiryEpoch: 100,
      createdAt: GENESIS,
      payer: tapeKey,
      ...NO_VERSION,
      keep: 2,
    };
    const chain = {
      getTape: async () => ({ ...tape }),
      networkConfig: async () => ({ genesisTime: GENESIS, epochDurationSecs: 60 }) as NetworkConfig,
      chainTime: async () => GENESIS,
    } as unknown as ChainReader;
    let now = 0;
    const sut = new TrackResolver(chain, { tapeTtlMs: 5_000, now: () => now }, nodes);
    const publish = async (version: BuiltVersion) => {
      for (const bytes of [version.rootBytes, ...version.nodes.map((n) => n.bytes)]) {
        const c = commitmentOfBuffer(bytes).commitment;
        if (!(await store.has(c))) await store.put(c, bytes.length, Readable.from([bytes]));
      }
      Object.assign(
        tape,
        applyPublish(tape, {
          root: version.rootCommitment,
          bytes: version.rootBytes.length,
          keptBytes: 0,
          publishedAt: 0,
        }),
      );
    };
    const address = (name: string, revision = 0) =>
      versionedTrackAddress(tapeKey, fakeEntry(name, revision).commitment);
    const refusal = (text: string) =>
      sut.resolve(text).then(
        () => 'served',
        (err: ApiError) => `${err.getStatus()} ${err.code}`,
      );
    return { sut, publish, address, refusal, advance: (ms: number) => (now += ms) };
  }

  it('serves a commitment of a kept version (keep 2), refuses any other (400)', async () => {
    const { sut, publish, address, refusal, advance } = await newVersionedResolver();
    expect(await refusal(address('a.html'))).toBe('400 track_not_certified'); // no version yet
    await publish(buildVersion([fakeEntry('a.html'), fakeEntry('b.css')]));
    advance(6_000);
    const track = await sut.resolve(address('a.html'));
    expect(track.ref).toMatchObject({ kind: 'blob', size: 1000 });
    expect(track.etag).toBe(`"${fakeEntry('a.html').commitment.toString('hex')}"`);
    expect(track.headers.representation['cache-control']).toContain('immutable');
    // Which version answered and the entry's commitment (docs/verify.md, "Headers").
    expect(track.headers.representation).toMatchObject({
      'x-tape-version': '1',
      'x-tape-commitment': fakeEntry('a.html').commitment.toString('hex'),
    });
    await publish(buildVersion([fakeEntry('a.html', 1)]));
    advance(6_000);
    expect(await refusal(address('b.css'))).toBe('served'); // in the previous version
    expect((await sut.resolve(address('b.css'))).headers.notModified['x-tape-version']).toBe('1');
    expect((await sut.resolve(address('a.html', 1))).headers.notModified['x-tape-version']).toBe(
      '2',
    );
    await publish(buildVersion([fakeEntry('a.html', 2)]));
    advance(6_000);
    expect(await refusal(address('b.css'))).toBe('400 track_not_certified'); // kept no more
    expect(await refusal(address('a.html', 7))).toBe('400 track_not_certified');
  });
});
