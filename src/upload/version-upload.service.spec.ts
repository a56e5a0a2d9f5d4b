import { Keypair, PublicKey } from '@solana/web3.js';
import { Readable } from 'node:stream';
import type { TapeRecord } from '../chain/account-layouts';
import { StorageConfig } from '../config/storage.config';
import { ApiError } from '../http/api-error';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import { STAGING_SLACK_BYTES, stagingBudget, stagingOwner } from './staging';
import { TapeWriterAccess } from './tape-writer-access';
import { UploadSlots } from './upload-slots';
import {
  MAX_MISSING_QUERY,
  parseMissingQuery,
  VersionUploadService,
} from './version-upload.service';

const HEX = 'ab'.repeat(32);

function newTestService(tape: Partial<TapeRecord>, accepted = true) {
  const address = Keypair.generate().publicKey;
  const claims: Array<{ claim: TrackClaim; max?: number }> = [];
  const store = {
    claim: async (claim: TrackClaim, o: { maxOwnerSegmentBytes?: number }) => {
      claims.push({ claim, max: o.maxOwnerSegmentBytes });
      return { accepted, inserted: true, recordedAt: 1 };
    },
    put: async () => undefined,
    has: async (c: Buffer) => c.equals(Buffer.from(HEX, 'hex')),
  } as unknown as TrackStore;
  const access = {
    authorize: async () => ({ address, tape: tape as TapeRecord, signer: address }),
  } as unknown as TapeWriterAccess;
  const storage = new StorageConfig();
  const sut = new VersionUploadService(access, store, storage, new UploadSlots(storage));
  return { sut, claims, address };
}

const request = (tape: string, size = 10) => ({
  tape,
  commitment: HEX,
  contentLength: size,
  body: Readable.from([]),
  client: 'c',
});

describe('staging', () => {
  it('budgets what the capacity has left after the kept versions and per-file tracks, plus the slack', () => {
    expect(stagingBudget({ capacity: 5000, used: 1000, keptBytes: 3000 })).toBe(
      1000 + STAGING_SLACK_BYTES,
    );
    expect(stagingBudget({ capacity: 5000, used: 1000, keptBytes: 6000 })).toBe(
      STAGING_SLACK_BYTES,
    );
  });

  it('has one owner per tape and version, never a real key of either', () => {
    const tape = Keypair.generate().publicKey;
    expect(stagingOwner(tape, 1)).toBe(stagingOwner(tape, 1));
    expect(stagingOwner(tape, 1)).not.toBe(stagingOwner(tape, 2));
    expect(stagingOwner(tape, 1)).not.toBe(stagingOwner(Keypair.generate().publicKey, 1));
    expect(() => new PublicKey(stagingOwner(tape, 0))).not.toThrow();
  });
});

describe('VersionUploadService', () => {
  it("stages the bytes under the tape's staging owner for its current version, within its budget", async () => {
    const tape = { capacity: 4096, used: 0, keptBytes: 1024, version: 7 };
    const { sut, claims, address } = newTestService(tape);
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
      max: 3072 + STAGING_SLACK_BYTES,
    });
  });

  it('answers 413 insufficient capacity past the budget', async () => {
    const { sut, address } = newTestService(
      { capacity: 1, used: 0, keptBytes: 0, version: 0 },
      false,
    );
    const err = (await sut
      .upload(request(address.toBase58()))
      .catch((e: unknown) => e)) as ApiError;
    expect(err.getStatus()).toBe(413);
    expect(err.message).toBeDefined();
    expect(JSON.stringify(err.getResponse())).toMatch(/insufficient capacity/);
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

  it('answers which commitments the store lacks', async () => {
    const { sut, address } = newTestService({});
    const other = 'cd'.repeat(32);
    const body = Buffer.from(JSON.stringify({ commitments: [HEX, other, other] }));
    expect(await sut.missing(address.toBase58(), {}, body)).toEqual([other]);
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
