import {
  ComputeBudgetProgram,
  Keypair,
  SystemProgram,
  TransactionInstruction,
} from '@solana/web3.js';
import {
  COMPUTE_UNITS,
  ComputeUnitEstimator,
  DEFAULT_INSTRUCTION_COMPUTE_UNITS,
  MAX_TRANSACTION_COMPUTE_UNITS,
} from './compute-units';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEFAULT_TAPE_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from './program-ids';
import { TapeInstructions } from './tape-instructions';
import { Tag } from './tape-instruction-data';

const key = () => Keypair.generate().publicKey;
const raw = (programId = key(), data = Buffer.alloc(0)) =>
  new TransactionInstruction({ programId, keys: [], data });

describe('ComputeUnitEstimator', () => {
  it('estimates tape instructions by their tag, for the tape program it was given', () => {
    const programId = key();
    const sut = new ComputeUnitEstimator(programId);
    const ix = new TapeInstructions(programId);
    const publish = ix.publish({
      signer: key(),
      storageAuthority: key(),
      tape: key(),
      expectedSequence: 0,
      root: Buffer.alloc(32, 1),
      versionBytes: 10,
      keptBytes: 10,
    });
    expect(sut.estimate(publish)).toBe(COMPUTE_UNITS.tape[Tag.Publish]);
    expect(sut.estimate(ix.setDelegate({ authority: key(), delegate: null }))).toBe(
      COMPUTE_UNITS.tape[Tag.SetDelegate],
    );
    // The same bytes for another program id are not the tape program's.
    const elsewhere = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID).setDelegate({
      authority: key(),
      delegate: null,
    });
    expect(sut.estimate(elsewhere)).toBe(DEFAULT_INSTRUCTION_COMPUTE_UNITS);
  });

  it('gives unknown tags and programs what Solana gives an instruction without a limit', () => {
    const sut = new ComputeUnitEstimator(DEFAULT_TAPE_PROGRAM_ID);
    expect(sut.estimate(raw(DEFAULT_TAPE_PROGRAM_ID, Buffer.from([200])))).toBe(200_000);
    // The retired per-file tags (5-9) are unknown too: the program refuses them.
    for (const tag of [5, 6, 7, 8, 9]) {
      expect(sut.estimate(raw(DEFAULT_TAPE_PROGRAM_ID, Buffer.from([tag])))).toBe(200_000);
    }
    expect(sut.estimate(raw(DEFAULT_TAPE_PROGRAM_ID))).toBe(200_000);
    expect(sut.estimate(raw())).toBe(200_000);
  });

  it('estimates System, Token, Associated Token and Compute Budget instructions', () => {
    const sut = new ComputeUnitEstimator(DEFAULT_TAPE_PROGRAM_ID);
    const transfer = SystemProgram.transfer({ fromPubkey: key(), toPubkey: key(), lamports: 1 });
    expect(sut.estimate(transfer)).toBe(COMPUTE_UNITS.system);
    expect(sut.estimate(raw(TOKEN_PROGRAM_ID, Buffer.from([3])))).toBe(COMPUTE_UNITS.token);
    expect(sut.estimate(raw(ASSOCIATED_TOKEN_PROGRAM_ID))).toBe(COMPUTE_UNITS.associatedToken);
    expect(sut.estimate(ComputeBudgetProgram.setComputeUnitLimit({ units: 1 }))).toBe(150);
  });

  it('has every tape instruction within what one transaction may use', () => {
    const tags = Object.values(Tag).filter((t): t is Tag => typeof t === 'number');
    for (const tag of tags) {
      expect(COMPUTE_UNITS.tape[tag]).toBeGreaterThan(0);
      expect(COMPUTE_UNITS.tape[tag]).toBeLessThan(MAX_TRANSACTION_COMPUTE_UNITS);
    }
  });
});
