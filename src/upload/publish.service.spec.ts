import { Keypair, Transaction } from '@solana/web3.js';
import { Tag } from '../chain/tape-instruction-data';
import { commitmentOfBuffer } from '../tracks/commitment';
import { versionOwner } from '../tracks/gc/version-owner';
import { buildVersion } from '../versions/version-builder';
import { IntegrityError } from '../tracks/track-errors';
import {
  PROGRAM,
  blobEntry,
  newTestService,
  body,
  landed,
  refusal,
} from './publish.service.spec-support';

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
