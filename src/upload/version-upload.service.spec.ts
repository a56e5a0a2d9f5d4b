import { Keypair } from '@solana/web3.js';
import { Readable } from 'node:stream';
import type { TapeRecord } from '../chain/account-layouts';
import { StorageConfig } from '../config/storage.config';
import { ApiError } from '../http/api-error';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import { TrackGarbageCollector } from '../tracks/gc/track-gc.service';
import { stagingOwner } from '../tracks/gc/version-owner';
import { STAGING_SLACK_BYTES, tapeStoreBound } from './staging';
import { TapeWriterAccess } from './tape-writer-access';
import { UploadSlots } from './upload-slots';
import {
  MAX_MISSING_QUERY,
  parseMissingQuery,
  VersionUploadService,
} from './version-upload.service';

const HEX = 'ab'.repeat(32);

/**
 * A store holding HEX (10 bytes) and whatever `held` adds; claims accepted while `room` allows
 * (the collector's `collectTape` adds `freed` to it, once).
 */
function newTestService(tape: Partial<TapeRecord>, room = Infinity, freed = 0) {
  const address = Keypair.generate().publicKey;
  const claims: Array<{ claim: TrackClaim; max?: number }> = [];
  const held = new Map<string, number>([[HEX, 10]]);
  let left = room;
  const store = {
    claim: async (claim: TrackClaim, o: { maxTapeBytes?: number }) => {
      claims.push({ claim, max: o.maxTapeBytes });
      const accepted = claim.size <= left;
      if (accepted) left -= claim.size;
      return { accepted, inserted: accepted, recordedAt: 1 };
    },
    put: async () => undefined,
    has: async (c: Buffer) => held.has(c.toString('hex')),
    storedSize: async (c: Buffer) => held.get(c.toString('hex')),
  } as unknown as TrackStore;
  const access = {
    authorize: async () => ({ address, tape: tape as TapeRecord, signer: address }),
  } as unknown as TapeWriterAccess;
  const storage = new StorageConfig();
  const collected: string[] = [];
  const watched = new Set<string>();
  const gc = {
    collectTape: async (t: string) => {
      collected.push(t);
      left += freed;
      freed = 0;
    },
    watch: (t: string) => watched.add(t),
  } as unknown as TrackGarbageCollector;
  const sut = new VersionUploadService(access, store, storage, new UploadSlots(storage), gc);
  return { sut, claims, address, held, collected, watched };
}

const request = (tape: string, size = 10) => ({
  tape,
  commitment: HEX,
  contentLength: size,
  body: Readable.from([]),
  client: 'c',
});

describe('staging', () => {
  it("bounds a tape's bytes in the store by its capacity plus the slack", () => {
    expect(tapeStoreBound({ capacity: 5000 })).toBe(5000 + STAGING_SLACK_BYTES);
    expect(STAGING_SLACK_BYTES).toBe(1 << 20);
  });
});

describe('VersionUploadService', () => {
  it("stages the bytes under the tape's staging owner for its latest version (a rollback lowers only the current one), within the tape's bound", async () => {
    const tape = { capacity: 4096, used: 0, keptBytes: 1024, version: 2, latestVersion: 7 };
    const { sut, claims, address, watched } = newTestService(tape);
    const result = await sut.upload(request(address.toBase58()));
    expect(result).toEqual({ tape: address.toBase58(), commitment: HEX, size: 10, staged: true });
    expect(claims[0]).toEqual({
      claim: {
        commitment: Buffer.from(HEX, 'hex'),
        track: stagingOwner(address, 7),
        tape: address.toBase58(),
        role: 'segment',
        size: 10,
      },
      max: 4096 + STAGING_SLACK_BYTES,
    });
    expect([...watched]).toEqual([address.toBase58()]);
  });

  it('at the bound, has the tape collected first, then stages', async () => {
    const { sut, address, collected, claims } = newTestService({ capacity: 1, version: 0 }, 0, 10);
    await sut.upload(request(address.toBase58()));
    expect(collected).toEqual([address.toBase58()]);
    expect(claims).toHaveLength(2);
  });

  it('answers 413 insufficient capacity when collecting freed nothing', async () => {
    const { sut, address, collected } = newTestService({ capacity: 1, version: 0 }, 0);
    const err = (await sut
      .upload(request(address.toBase58()))
      .catch((e: unknown) => e)) as ApiError;
    expect(err.getStatus()).toBe(413);
    expect(JSON.stringify(err.getResponse())).toMatch(/insufficient capacity/);
    expect(collected).toHaveLength(1);
  });

  it('refuses a malformed commitment and a missing length (400)', async () => {
    const { sut, address } = newTestService({});
    const bad = await sut
      .upload({ ...request(address.toBase58()), commitment: 'AB' })
      .catch((e: ApiError) => e.getStatus());
    const noLength = await sut
      .upload({ ...request(address.toBase58()), contentLength: undefined })
      .catch((e: ApiError) => e.getStatus());
    expect([bad, noLength]).toEqual([400, 400]);
  });

  it('answers which commitments the store lacks, staging each one it holds first', async () => {
    const { sut, address, claims, watched } = newTestService({
      capacity: 100,
      version: 4,
      latestVersion: 4,
    });
    const other = 'cd'.repeat(32);
    const body = Buffer.from(JSON.stringify({ commitments: [HEX, other, other] }));
    expect(await sut.missing(address.toBase58(), {}, body)).toEqual([other]);
    expect(claims).toEqual([
      {
        claim: {
          commitment: Buffer.from(HEX, 'hex'),
          track: stagingOwner(address, 4),
          tape: address.toBase58(),
          role: 'segment',
          size: 10,
        },
        max: 100 + STAGING_SLACK_BYTES,
      },
    ]);
    expect([...watched]).toEqual([address.toBase58()]);
  });

  it('answers as lacking a held commitment the tape cannot take, or one deleted before its claim', async () => {
    const full = newTestService({ capacity: 1, version: 0 }, 0);
    const body = Buffer.from(JSON.stringify({ commitments: [HEX] }));
    expect(await full.sut.missing(full.address.toBase58(), {}, body)).toEqual([HEX]);
    expect(full.collected).toEqual([full.address.toBase58()]);

    const racing = newTestService({ capacity: 100, version: 0 });
    const { sut, address, held } = racing;
    const store = (sut as unknown as { store: TrackStore }).store;
    const claim = store.claim.bind(store);
    store.claim = async (...args) => {
      held.delete(HEX); // a pass deletes it between the first look and the claim
      return claim(...args);
    };
    expect(await sut.missing(address.toBase58(), {}, body)).toEqual([HEX]);
  });
});

describe('parseMissingQuery', () => {
  it('takes a bounded list of lowercase hex commitments', () => {
    const status = (body: string) => {
      try {
        parseMissingQuery(Buffer.from(body));
        return 200;
      } catch (e) {
        return (e as ApiError).getStatus();
      }
    };
    expect(status(JSON.stringify({ commitments: [HEX] }))).toBe(200);
    expect(status('not json')).toBe(400);
    expect(status(JSON.stringify({ commitments: ['AB'.repeat(32)] }))).toBe(400);
    expect(status(JSON.stringify({ commitments: HEX }))).toBe(400);
    expect(status(JSON.stringify({ commitments: Array(MAX_MISSING_QUERY + 1).fill(HEX) }))).toBe(
      413,
    );
  });
});
