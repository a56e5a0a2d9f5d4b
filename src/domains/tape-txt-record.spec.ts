import { Keypair } from '@solana/web3.js';
import { tapeFromTxtRecords } from './tape-txt-record';

// Fixed keys, so every run checks the same texts (a random 43-character address plus one
// character can happen to be another valid address).
const tapeA = Keypair.fromSeed(new Uint8Array(32).fill(1)).publicKey.toBase58();
const tapeB = Keypair.fromSeed(new Uint8Array(32).fill(2)).publicKey.toBase58();

function record(...strings: string[]): Buffer[] {
  return strings.map((s) => Buffer.from(s, 'latin1'));
}

describe('tapeFromTxtRecords', () => {
  it('reads one record holding an address', () => {
    expect(tapeA).toHaveLength(44);
    expect(tapeFromTxtRecords([record(tapeA)])).toEqual({ kind: 'tape', tape: tapeA });
  });

  it('joins the strings of one record, then trims whitespace and one pair of quotes', () => {
    expect(tapeFromTxtRecords([record(tapeA.slice(0, 10), tapeA.slice(10))])).toEqual({
      kind: 'tape',
      tape: tapeA,
    });
    expect(tapeFromTxtRecords([record(`  ${tapeA}\t\n`)])).toEqual({ kind: 'tape', tape: tapeA });
    expect(tapeFromTxtRecords([record(` "${tapeA}" `)])).toEqual({ kind: 'tape', tape: tapeA });
    expect(tapeFromTxtRecords([record(`"`, tapeA, ` "`)])).toEqual({ kind: 'tape', tape: tapeA });
    expect(tapeFromTxtRecords([record(tapeA, ' '.repeat(255), ' '.repeat(255))])).toEqual({
      kind: 'tape',
      tape: tapeA,
    });
  });

  it('ignores records that are not an address and sees nothing when none is', () => {
    expect(tapeFromTxtRecords([record('v=spf1 -all'), record(tapeA)])).toEqual({
      kind: 'tape',
      tape: tapeA,
    });
    for (const bad of [
      '',
      '""',
      `""${tapeA}""`,
      `O${tapeA.slice(1)}`,
      `${tapeA}x`,
      `${tapeA} ${tapeA}`,
      tapeA.slice(0, 20),
      `\u00a0${tapeA}`,
      '0'.repeat(44),
      'l'.repeat(44),
      `${tapeA}\0`,
    ]) {
      expect(tapeFromTxtRecords([record(bad)])).toEqual({ kind: 'none', reason: 'no-address' });
    }
    expect(tapeFromTxtRecords([])).toEqual({ kind: 'none', reason: 'no-address' });
    expect(tapeFromTxtRecords([record(...Array<string>(8).fill(' '.repeat(255)))])).toEqual({
      kind: 'none',
      reason: 'no-address',
    });
  });

  it('does not decode non-ASCII bytes into address characters', () => {
    const bytes = Buffer.concat([Buffer.from(tapeA.slice(0, -1)), Buffer.from([0xc3, 0x41])]);
    expect(tapeFromTxtRecords([[bytes]])).toEqual({ kind: 'none', reason: 'no-address' });
  });

  it('counts records naming one tape twice as one binding', () => {
    expect(tapeFromTxtRecords([record(tapeA), record(` ${tapeA}`)])).toEqual({
      kind: 'tape',
      tape: tapeA,
    });
  });

  it('refuses records naming two different tapes', () => {
    expect(tapeFromTxtRecords([record(tapeA), record(tapeB)])).toEqual({
      kind: 'none',
      reason: 'ambiguous',
      tapes: [tapeA, tapeB].sort(),
    });
  });
});
