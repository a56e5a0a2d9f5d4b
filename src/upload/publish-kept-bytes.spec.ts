import { Keypair, Transaction } from '@solana/web3.js';
import { versionOwner } from '../tracks/gc/version-owner';
import {
  PROGRAM,
  blobEntry,
  newTestService,
  aLandedThenB,
  body,
  landed,
  refusal,
} from './publish.service.spec-support';

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
