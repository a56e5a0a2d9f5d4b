import { Keypair, PublicKey } from '@solana/web3.js';
import { NO_VERSION, type TapeRecord } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { ChainRpc } from '../chain/chain-rpc';
import { ChainWriter } from '../chain/chain-writer';
import { ComputeUnitEstimator } from '../chain/compute-units';
import { GatewayIdentity } from '../chain/gateway-identity';
import { TapeInstructions } from '../chain/tape-instructions';
import { ApiError } from '../http/api-error';
import { TrackGarbageCollector } from '../tracks/gc/track-gc.service';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import { buildVersion } from '../versions/version-builder';
import { VersionCertifier } from '../versions/version-certifier';
import { VersionEntry } from '../versions/version-entry';
import { MemoryHoldings } from '../versions/version-test-support.spec-support';
import { KeptVersionReferences } from './kept-version-references';
import { CertificationGate } from './certification-gate';
import { CertifiedVersions } from './certified-versions';
import { PublishService } from './publish.service';
import { TapeWriterAccess } from './tape-writer-access';
import { VersionBaseTracks } from './version-base-tracks';

export const PROGRAM = new PublicKey('TapeProgram11111111111111111111111111111111');

export function blobEntry(holdings: MemoryHoldings, name: string, text: string): VersionEntry {
  return holdings.blob(name, Buffer.from(text.repeat(70_000 / text.length + 1)));
}

export function newTestService(tapeFields: Partial<TapeRecord> = {}) {
  const holdings = new MemoryHoldings();
  const authority = Keypair.generate();
  const gateway = Keypair.generate();
  const tapeAddress = Keypair.generate().publicKey;
  const tape = {
    authority: authority.publicKey,
    delegate: null,
    capacity: 10 << 20,
    expiryEpoch: 100,
    ...NO_VERSION,
    ...tapeFields,
  } as unknown as TapeRecord;
  const access = {
    authorize: async () => ({ address: tapeAddress, tape, signer: authority.publicKey }),
  } as unknown as TapeWriterAccess;
  const chain = {
    getTape: async () => tape,
    currentEpoch: async () => 1,
  } as unknown as ChainReader;
  const rpc = {
    commitment: 'confirmed',
    call: async (f: (c: unknown) => Promise<unknown>) =>
      f({
        getLatestBlockhash: async () => ({
          blockhash: Keypair.generate().publicKey.toBase58(),
          lastValidBlockHeight: 99,
        }),
      }),
  } as unknown as ChainRpc;
  const sent: unknown[] = [];
  const writer = {
    packing: { computeUnits: new ComputeUnitEstimator(PROGRAM) },
    send: async (...args: unknown[]) => {
      sent.push(args);
      return ['sig'];
    },
  } as unknown as ChainWriter;
  // The reference index as a map: (commitment, owner, role) -> the claim, refreshed in place.
  const references = new Map<string, TrackClaim & { recordedAt: number }>();
  let clock = 1_000;
  const claim = (c: TrackClaim, at: number) => {
    const key = `${c.commitment.toString('hex')}|${c.track}|${c.role}`;
    const inserted = !references.has(key);
    references.set(key, { ...c, recordedAt: at });
    return { accepted: true, inserted, recordedAt: at };
  };
  const claimBatches: number[] = [];
  const store = {
    storedSize: async (c: Buffer) => holdings.tracks.get(c.toString('hex'))?.length,
    has: async (c: Buffer) => holdings.tracks.has(c.toString('hex')),
    claim: async (c: TrackClaim) => claim(c, ++clock),
    claimMany: async (claims: TrackClaim[]) => {
      claimBatches.push(claims.length);
      const at = ++clock;
      for (const c of claims) claim(c, at);
    },
  } as unknown as TrackStore;
  const watched: string[] = [];
  const gc = { watch: (tape: string) => watched.push(tape) } as unknown as TrackGarbageCollector;
  const certifier = new VersionCertifier(holdings);
  const sut = new PublishService(
    access,
    chain,
    rpc,
    writer,
    new TapeInstructions(PROGRAM),
    new GatewayIdentity(gateway),
    certifier,
    new VersionBaseTracks(certifier, store),
    store,
    new KeptVersionReferences(store, gc),
    new CertificationGate(),
    new CertifiedVersions(),
  );
  /** A version of these entries, built and held by the gateway. */
  const held = (entries: VersionEntry[], settings?: Buffer) => {
    const v = buildVersion(entries, settings);
    holdings.putVersion(v);
    return v;
  };
  /** A tenant's `POST /publish` of `root` at `expected`, its own wallet paying. */
  const cosign = (root: Buffer, expected = 0) =>
    sut.cosign('t', {}, body(root, expected, Keypair.generate().publicKey));
  return {
    sut,
    cosign,
    held,
    holdings,
    tape,
    authority,
    gateway,
    tapeAddress,
    sent,
    references,
    claimBatches,
    watched,
  };
}

/** Version 1 (a.txt) landed, version 2 (b.txt, a.txt dropped) built and held. */
export function aLandedThenB(tapeFields: Partial<TapeRecord> = {}) {
  const ctx = newTestService(tapeFields);
  const { holdings, tape } = ctx;
  const v1 = buildVersion([blobEntry(holdings, 'a.txt', 'a')]);
  holdings.putVersion(v1);
  landed(tape, v1.rootCommitment);
  const v2 = buildVersion([blobEntry(holdings, 'b.txt', 'b')]);
  holdings.putVersion(v2);
  return { ...ctx, v1, v2 };
}

export const body = (root: Buffer, expected: number, feePayer: PublicKey, alias?: string) =>
  Buffer.from(
    JSON.stringify({
      root: root.toString('hex'),
      expected_sequence: expected,
      fee_payer: feePayer.toBase58(),
      ...(alias === undefined ? {} : { alias }),
    }),
  );

/** What the program does on a landed Publish (no eviction: these tests keep few versions). */
export function landed(tape: TapeRecord, root: Buffer, alias?: string): void {
  const version = tape.latestVersion + 1;
  tape.history = [...tape.history, { version, root, bytes: 1, publishedAt: 1 }];
  tape.latestVersion = version;
  tape.sequence += 1;
  if (alias === undefined) tape.version = version;
  else tape.aliases = [...tape.aliases.filter((a) => a.name !== alias), { name: alias, version }];
}

export async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return {
    status: err.getStatus(),
    message: (err.getResponse() as { error: { message: string } }).error.message,
  };
}
