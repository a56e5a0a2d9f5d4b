import { Keypair } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { TrackKind } from '../../chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { TapeInstructions } from '../../chain/tape-instructions';
import { memoizedInstructions } from './memoized-instructions';

describe('memoizedInstructions', () => {
  it('builds the same instructions as TapeInstructions, deriving each address once', () => {
    const plain = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
    const memo = memoizedInstructions(DEFAULT_TAPE_PROGRAM_ID);
    const payer = Keypair.generate().publicKey;
    const signer = Keypair.generate().publicKey;
    const tape = Keypair.generate().publicKey;
    const commitment = randomBytes(32);
    const args = {
      payer,
      signer,
      tape,
      commitment,
      size: 3,
      kind: TrackKind.Blob,
      contentType: 'text/plain',
    };
    expect(memo.writeTrack(args)).toEqual(plain.writeTrack(args));
    expect(memo.writeTrack(args)).toEqual(plain.writeTrack(args));
    const track = plain.pdas.track(tape, commitment);
    const named = { payer, signer, tape, name: 'ü dir/a b.html', track, contentType: 'text/html' };
    expect(memo.setName(named)).toEqual(plain.setName(named));
    expect(memo.pdas.name(tape, 'x')).toEqual(plain.pdas.name(tape, 'x'));
    expect(memo.pdas.name(tape, 'y')).not.toEqual(memo.pdas.name(tape, 'x'));
    expect(memo.pdas.tape(signer)).toEqual(plain.pdas.tape(signer));
    expect(memo.pdas.config()).toEqual(plain.pdas.config());
  });
});
