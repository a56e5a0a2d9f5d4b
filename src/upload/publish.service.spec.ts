import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { NO_VERSION, type TapeRecord } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { ChainRpc } from '../chain/chain-rpc';
import { ChainWriter } from '../chain/chain-writer';
import { ComputeUnitEstimator } from '../chain/compute-units';
import { GatewayIdentity } from '../chain/gateway-identity';
import { TapeInstructions } from '../chain/tape-instructions';
import { Tag } from '../chain/tape-instruction-data';
import { ApiError } from '../http/api-error';
import { commitmentOfBuffer } from '../tracks/commitment';
import { TrackGarbageCollector } from '../tracks/gc/track-gc.service';
import { versionOwner } from '../tracks/gc/version-owner';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import { buildVersion } from '../versions/version-builder';
import { VersionCertifier } from '../versions/version-certifier';
import { IntegrityError } from '../tracks/track-errors';
import { VersionEntry } from '../versions/version-entry';
import { MemoryHoldings } from '../versions/version-test-support.spec-support';
import { KeptVersionReferences } from './kept-version-references';
import { CertificationGate } from './certification-gate';
import { CertifiedVersions } from './certified-versions';
import { PublishService } from './publish.service';
import { TapeWriterAccess } from './tape-writer-access';
import { VersionBaseTracks } from './version-base-tracks';

const PROGRAM = new PublicKey('TapeProgram11111111111111111111111111111111');

function blobEntry(holdings: MemoryHoldings, name: string, text: string): VersionEntry {
  return holdings.blob(name, Buffer.from(text.repeat(70_000 / text.length + 1)));
}

function newTestService(tapeFields: Partial<TapeRecord> = {}) {
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
function aLandedThenB(tapeFields: Partial<TapeRecord> = {}) {
  const ctx = newTestService(tapeFields);
  const { holdings, tape } = ctx;
  const v1 = buildVersion([blobEntry(holdings, 'a.txt', 'a')]);
  holdings.putVersion(v1);
  landed(tape, v1.rootCommitment);
  const v2 = buildVersion([blobEntry(holdings, 'b.txt', 'b')]);
  holdings.putVersion(v2);
  return { ...ctx, v1, v2 };
}

const body = (root: Buffer, expected: number, feePayer: PublicKey, alias?: string) =>
  Buffer.from(
    JSON.stringify({
      root: root.toString('hex'),
      expected_sequence: expected,
      fee_payer: feePayer.toBase58(),
      ...(alias === undefined ? {} : { alias }),
    }),
  );

/** What the program does on a landed Publish (no eviction: these tests keep few versions). */
function landed(tape: TapeRecord, root: Buffer, alias?: string): void {
  const version = tape.latestVersion + 1;
  tape.history = [...tape.history, { version, root, bytes: 1, publishedAt: 1 }];
  tape.latestVersion = version;
  tape.sequence += 1;
  if (alias === undefined) tape.version = version;
  else tape.aliases = [...tape.aliases.filter((a) => a.name !== alias), { name: alias, version }];
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
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

describe('PublishService', () => {
  it('certifies, then returns Publish signed by the storage authority only, the wallet paying', async () => {
    const { sut, holdings, gateway, authority, held } = newTestService();
    const v = held([blobEntry(holdings, 'a.txt', 'a')]);
    const wallet = Keypair.generate().publicKey;
    const answer = await sut.cosign('t', {}, body(v.rootCommitment, 0, wallet));
    const tx = Transaction.from(Buffer.from(answer.transaction, 'base64'));
    expect(tx.feePayer?.equals(wallet)).toBe(true);
    const signed = tx.signatures.filter((s) => s.signature !== null).map((s) => s.publicKey);
    expect(signed.map((k) => k.toBase58())).toEqual([gateway.publicKey.toBase58()]);
    const publish = tx.instructions.find((ix) => ix.programId.equals(PROGRAM))!;
    expect(publish.data[0]).toBe(Tag.Publish);
    expect(publish.keys[0].pubkey.equals(authority.publicKey)).toBe(true);
    const bytes = v.rootBytes.length + 70_001;
    expect(answer).toMatchObject({ version: 1, version_bytes: bytes, added_bytes: bytes });
  });

  it("records each of the version's tracks under its version owner before answering, in one batch, and has the collector watch the tape", async () => {
    const { cosign, holdings, tapeAddress, references, claimBatches, watched, held } =
      newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v = held([a]);
    await cosign(v.rootCommitment);
    const owner = versionOwner(tapeAddress, 1, v.rootCommitment);
    expect(owner).toBe(`version:${tapeAddress.toBase58()}:1:${v.rootCommitment.toString('hex')}`);
    expect(claimBatches).toEqual([2]);
    expect(watched).toEqual([tapeAddress.toBase58()]);
    const rows = [...references.values()].map((r) => ({
      commitment: r.commitment.toString('hex'),
      track: r.track,
      tape: r.tape,
      role: r.role,
      size: r.size,
    }));
    expect(rows.sort((x, y) => x.commitment.localeCompare(y.commitment))).toEqual(
      [
        { commitment: v.rootCommitment.toString('hex'), size: v.rootBytes.length },
        { commitment: a.commitment.toString('hex'), size: 70_001 },
      ]
        .map((t) => ({ ...t, track: owner, tape: tapeAddress.toBase58(), role: 'track' }))
        .sort((x, y) => x.commitment.localeCompare(y.commitment)),
    );
  });

  it("records the current version's tracks again under its own owner: it stays kept as the previous one", async () => {
    const { cosign, holdings, tape, tapeAddress, references, held } = newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v1 = held([a]);
    landed(tape, v1.rootCommitment);
    const v2 = held([a, blobEntry(holdings, 'b.txt', 'b')]);
    await cosign(v2.rootCommitment, 1);
    const owned = (version: number, root: Buffer) =>
      [...references.values()]
        .filter((r) => r.track === versionOwner(tapeAddress, version, root))
        .map((r) => r.commitment.toString('hex'))
        .sort();
    expect(owned(1, v1.rootCommitment)).toEqual(
      [v1.rootCommitment, a.commitment].map((c) => c.toString('hex')).sort(),
    );
    expect(owned(2, v2.rootCommitment)).toHaveLength(3);
  });

  it('certifying the same version again records nothing new, only refreshes the time', async () => {
    const { sut, cosign, holdings, tape, gateway, tapeAddress, references, held } =
      newTestService();
    Object.assign(tape, { delegate: gateway.publicKey });
    const v = held([blobEntry(holdings, 'a.txt', 'a')]);
    await cosign(v.rootCommitment);
    const first = new Map([...references].map(([k, r]) => [k, r.recordedAt]));
    await sut.publishOwn(tapeAddress, v.rootCommitment, 0);
    expect([...references.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [key, row] of references) expect(row.recordedAt).toBeGreaterThan(first.get(key)!);
  });

  it("certifies a tape's next version from the facts of the one it certified: no base walk, no second recording of the base", async () => {
    const { cosign, holdings, tape, tapeAddress, references, claimBatches, held } =
      newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v1 = held([a]);
    await cosign(v1.rootCommitment);
    landed(tape, v1.rootCommitment);
    const v2 = held([a, blobEntry(holdings, 'b.txt', 'b')]);
    let reads = 0;
    const readTrack = holdings.readTrack.bind(holdings);
    holdings.readTrack = (c, n) => {
      reads++;
      return readTrack(c, n);
    };
    const looked: string[] = [];
    const has = holdings.tracks.has.bind(holdings.tracks);
    holdings.tracks.has = (k: string) => {
      looked.push(k);
      return has(k);
    };
    const answer = await cosign(v2.rootCommitment, 1);
    expect(answer.added_bytes).toBe(v2.rootBytes.length + 70_001);
    // v2's root only: v1's tracks come from its facts, a.txt's holding from its check.
    expect(reads).toBe(1);
    // After the claims, only v2's own tracks are looked for: a.txt is kept by v1's references.
    const b = v2.root.names;
    expect(looked.sort()).toEqual(
      [v2.rootCommitment, ...('entries' in b ? b.entries : []).map((e) => e.commitment)]
        .map((c) => c.toString('hex'))
        .filter((hex) => hex !== a.commitment.toString('hex'))
        .sort(),
    );
    expect(claimBatches).toEqual([2, 3]);
    const owned = [...references.values()].filter(
      (r) => r.track === versionOwner(tapeAddress, 1, v1.rootCommitment),
    );
    expect(owned).toHaveLength(2);
  });

  it('trusts no facts when the current version is not the one it certified at that number', async () => {
    const { cosign, holdings, tape, claimBatches, held } = newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v1 = held([a]);
    await cosign(v1.rootCommitment);
    // Another writer's version won at number 1: its tracks are walked and recorded here.
    const other = held([blobEntry(holdings, 'o.txt', 'o')]);
    landed(tape, other.rootCommitment);
    const v2 = buildVersion([a]);
    const answer = await cosign(v2.rootCommitment, 1);
    expect(answer.added_bytes).toBe(v2.rootBytes.length + 70_001);
    expect(claimBatches).toEqual([2, 2, 2]);
  });

  it('refuses (422) a version whose bytes were collected between certifying and recording', async () => {
    const { cosign, holdings, held } = newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v = held([a]);
    const hex = a.commitment.toString('hex');
    // The certifier reads the bytes (holdings.get); the look after the claims finds them gone.
    const has = holdings.tracks.has.bind(holdings.tracks);
    holdings.tracks.has = (k: string) => k !== hex && has(k);
    const { status, message } = await refusal(cosign(v.rootCommitment));
    expect([status, message]).toEqual([422, expect.stringContaining(`track ${hex}`)]);
  });

  it('counts added bytes against the current version, whose tracks it reads once', async () => {
    const { cosign, holdings, tape, held } = newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v1 = held([a]);
    landed(tape, v1.rootCommitment);
    const v2 = held([a, blobEntry(holdings, 'b.txt', 'b')]);
    const answer = await cosign(v2.rootCommitment, 1);
    expect(answer.added_bytes).toBe(v2.rootBytes.length + 70_001);
  });

  it('answers 409 on a stale expected sequence, naming the current one', async () => {
    const { cosign, holdings } = newTestService({ sequence: 3 });
    const v = buildVersion([blobEntry(holdings, 'a.txt', 'a')]);
    expect(await refusal(cosign(v.rootCommitment, 2))).toEqual({
      status: 409,
      message: 'version conflict: tape is at sequence 3, not 2',
    });
  });

  it("answers 422 with the certifier's reason", async () => {
    const { cosign, holdings, held } = newTestService();
    const entry = blobEntry(holdings, 'gone.bin', 'g');
    holdings.tracks.delete(entry.commitment.toString('hex'));
    const v = held([entry]);
    expect(await refusal(cosign(v.rootCommitment))).toEqual({
      status: 422,
      message: '"gone.bin": its bytes are not held by the gateway',
    });
  });

  it("answers 502 naming the track when a stored copy fails verification (the operator's repair)", async () => {
    const { cosign, holdings, held } = newTestService();
    const entry = blobEntry(holdings, 'rotten.bin', 'r');
    const v = held([entry]);
    const hex = entry.commitment.toString('hex');
    holdings.readTrack = async (commitment) => {
      throw new IntegrityError(commitment.toString('hex'), 'chunk 0 does not match');
    };
    holdings.holds = async () => {
      throw new IntegrityError(hex, 'chunk 0 does not match');
    };
    const answer = await refusal(cosign(v.rootCommitment));
    expect(answer.status).toBe(502);
    expect(answer.message).toMatch(
      /^track [0-9a-f]{64} failed verification: chunk 0 does not match; .*repair it/,
    );
  });

  it('answers 413 when the kept versions would pass the capacity', async () => {
    const { cosign, holdings, held } = newTestService({ capacity: 1000 });
    const v = held([blobEntry(holdings, 'a.txt', 'a')]);
    const { status, message } = await refusal(cosign(v.rootCommitment));
    expect([status, message]).toEqual([413, expect.stringMatching(/^insufficient capacity/)]);
  });

  it("never lets the gateway's key pay a tenant's fee (403)", async () => {
    const { sut, gateway } = newTestService();
    const root = commitmentOfBuffer(Buffer.from('x')).commitment;
    expect((await refusal(sut.cosign('t', {}, body(root, 0, gateway.publicKey)))).status).toBe(403);
  });

  it('publishOwn signs and sends with the gateway key when it is the delegate', async () => {
    const { sut, holdings, tape, gateway, tapeAddress, sent, held } = newTestService();
    Object.assign(tape, { delegate: gateway.publicKey });
    const v = held([blobEntry(holdings, 'a.txt', 'a')]);
    const done = await sut.publishOwn(tapeAddress, v.rootCommitment, 0);
    expect(done).toMatchObject({ expectedSequence: 0, signature: 'sig' });
    expect((sent[0] as [unknown, Keypair[]])[1]).toEqual([gateway]);
  });

  it('publishOwn refuses a tape the gateway key may not write (403)', async () => {
    const { sut, holdings, tapeAddress } = newTestService();
    const v = buildVersion([blobEntry(holdings, 'a.txt', 'a')]);
    expect((await refusal(sut.publishOwn(tapeAddress, v.rootCommitment, 0))).status).toBe(403);
  });
});

describe('PublishService: kept_bytes and aliases (program 1.3.0)', () => {
  const payer = () => Keypair.generate().publicKey;
  const sizeOf = (v: { rootBytes: Buffer }, files: number) => v.rootBytes.length + files * 70_001;

  it('signs kept_bytes = the unique bytes of every version kept after the Publish', async () => {
    const { sut, holdings, tape, held } = newTestService();
    const a = blobEntry(holdings, 'a.txt', 'a');
    const v1 = held([a]);
    const first = await sut.cosign('t', {}, body(v1.rootCommitment, 0, payer()));
    expect(first).toMatchObject({ version: 1, kept_bytes: sizeOf(v1, 1), alias: null });
    landed(tape, v1.rootCommitment);
    const v2 = held([a, blobEntry(holdings, 'b.txt', 'b')]);
    const second = await sut.cosign('t', {}, body(v2.rootCommitment, 1, payer()));
    // a.txt is shared: counted once; both roots count.
    expect(second).toMatchObject({
      version: 2,
      version_bytes: sizeOf(v2, 2),
      kept_bytes: v1.rootBytes.length + sizeOf(v2, 2),
    });
    // The instruction carries exactly what the answer says.
    const tx = Transaction.from(Buffer.from(second.transaction, 'base64'));
    const data = tx.instructions.find((ix) => ix.programId.equals(PROGRAM))!.data;
    expect(Number(data.readBigUInt64LE(1 + 8 + 32 + 8))).toBe(second.kept_bytes);
  });

  it('counts only what stays: with keep 1 a live Publish drops the old version from kept_bytes', async () => {
    const { sut, v2 } = aLandedThenB({ keep: 1 });
    const answer = await sut.cosign('t', {}, body(v2.rootCommitment, 1, payer()));
    expect(answer.kept_bytes).toBe(sizeOf(v2, 1));
    expect(answer.added_bytes).toBe(sizeOf(v2, 1));
  });

  it('publishes under an alias: the current version stays kept beside it, even with keep 1', async () => {
    const { sut, v1, v2 } = aLandedThenB({ keep: 1 });
    const answer = await sut.cosign('t', {}, body(v2.rootCommitment, 1, payer(), 'pr-4'));
    expect(answer).toMatchObject({ version: 2, alias: 'pr-4' });
    expect(answer.kept_bytes).toBe(sizeOf(v1, 1) + sizeOf(v2, 1));
    const tx = Transaction.from(Buffer.from(answer.transaction, 'base64'));
    const data = tx.instructions.find((ix) => ix.programId.equals(PROGRAM))!.data;
    const at = 1 + 8 + 32 + 8 + 8;
    expect([data[at], data.subarray(at + 1, at + 1 + 4).toString()]).toEqual([4, 'pr-4']);
  });

  it('walks a kept version it never certified once, records its references, then reuses it', async () => {
    const { sut, holdings, tape, tapeAddress, references, held } = newTestService();
    // Version 1 published through another gateway: unknown here.
    const v1 = held([blobEntry(holdings, 'a.txt', 'a')]);
    landed(tape, v1.rootCommitment);
    let reads = 0;
    const readTrack = holdings.readTrack.bind(holdings);
    holdings.readTrack = (c, n) => {
      if (c.equals(v1.rootCommitment)) reads++;
      return readTrack(c, n);
    };
    const v2 = held([blobEntry(holdings, 'b.txt', 'b')]);
    await sut.cosign('t', {}, body(v2.rootCommitment, 1, payer(), 'pr-1'));
    landed(tape, v2.rootCommitment, 'pr-1');
    const owned = [...references.values()].filter(
      (r) => r.track === versionOwner(tapeAddress, 1, v1.rootCommitment),
    );
    expect(owned).toHaveLength(2);
    const v3 = held([blobEntry(holdings, 'c.txt', 'c')]);
    const answer = await sut.cosign('t', {}, body(v3.rootCommitment, 2, payer(), 'pr-2'));
    expect(reads).toBe(1);
    expect(answer.kept_bytes).toBe(sizeOf(v1, 1) + sizeOf(v2, 1) + sizeOf(v3, 1));
  });

  it('refuses an alias that breaks the rule, and a ninth alias (400)', async () => {
    const { sut, holdings, tape, held } = newTestService();
    const v = held([blobEntry(holdings, 'a.txt', 'a')]);
    for (const bad of ['v3', 'PR-1', 'a--b', '-a', 'a'.repeat(25)]) {
      const answer = await refusal(sut.cosign('t', {}, body(v.rootCommitment, 0, payer(), bad)));
      expect([bad, answer.status]).toEqual([bad, 400]);
    }
    tape.aliases = Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, version: 1 }));
    const ninth = await refusal(sut.cosign('t', {}, body(v.rootCommitment, 0, payer(), 'p9')));
    expect(ninth).toEqual({ status: 400, message: 'a tape has at most 8 aliases' });
    // Moving an existing alias is no ninth.
    const moved = await sut.cosign('t', {}, body(v.rootCommitment, 0, payer(), 'p3'));
    expect(moved.alias).toBe('p3');
  });
});
