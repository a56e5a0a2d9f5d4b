import { Keypair } from '@solana/web3.js';
import { HIDDEN_NAME_RULE, HiddenNameError, isHiddenName } from './hidden-names';
import { DEFAULT_TAPE_PROGRAM_ID } from './program-ids';
import { TapeInstructions } from './tape-instructions';
import { decodeInstructionData, Tag } from './tape-instruction-data';

const key = () => Keypair.generate().publicKey;

describe('hidden names', () => {
  it('are names with a segment that starts with "."', () => {
    for (const name of [
      '.env',
      '.well-known/acme-challenge/x',
      'a/.git/config',
      '.',
      '..',
      '/.x',
    ]) {
      expect(isHiddenName(name)).toBe(true);
    }
    for (const name of ['a.b', 'a./b', 'x/y.z/w', 'well-known/x', 'a..b', '%2eenv', 'index.html']) {
      expect(isHiddenName(name)).toBe(false);
    }
  });

  it('are refused by the SetName builder before anything is signed', () => {
    const ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
    const setName = (name: string) =>
      ix.setName({ payer: key(), signer: key(), tape: key(), name, track: key(), contentType: '' });
    expect(() => setName('.well-known/acme-challenge/x')).toThrow(HiddenNameError);
    expect(() => setName('a/.env')).toThrow(HIDDEN_NAME_RULE);
    expect(decodeInstructionData(setName('a.b/c').data)).toEqual({
      tag: Tag.SetName,
      name: 'a.b/c',
      contentType: '',
    });
  });
});
