import { PublicKey } from '@solana/web3.js';
import { associatedTokenAddress } from './pdas';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from './program-ids';
import {
  createAssociatedTokenAccountIdempotent,
  initializeAccount3,
  initializeMint2,
  mintTo,
} from './spl-token-instructions';

const key = (n: number) => new PublicKey(Buffer.alloc(32, n));

describe('SPL Token instructions', () => {
  it('InitializeMint2: tag 20, decimals, authority, no freeze authority', () => {
    const ix = initializeMint2({ mint: key(1), decimals: 6, mintAuthority: key(2) });
    expect(ix.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect(ix.data.toString('hex')).toBe('1406' + '02'.repeat(32) + '00');
    expect(ix.keys.map((k) => [k.pubkey.equals(key(1)), k.isSigner, k.isWritable])).toEqual([
      [true, false, true],
    ]);
  });

  it('InitializeAccount3: tag 18 then the owner; account writable, mint read-only', () => {
    const ix = initializeAccount3({ account: key(3), mint: key(1), owner: key(4) });
    expect(ix.data.toString('hex')).toBe('12' + '04'.repeat(32));
    expect(ix.keys.map((k) => k.isWritable)).toEqual([true, false]);
  });

  it('MintTo: tag 7, u64 amount; the mint authority signs', () => {
    const ix = mintTo({ mint: key(1), destination: key(3), authority: key(2), amount: 1_000_000n });
    expect(ix.data.toString('hex')).toBe('07' + '40420f0000000000');
    expect(ix.keys.map((k) => [k.isSigner, k.isWritable])).toEqual([
      [false, true],
      [false, true],
      [true, false],
    ]);
  });

  it('CreateIdempotent: instruction 1 of the Associated Token program', () => {
    const owner = key(5);
    const ata = associatedTokenAddress(owner, key(1));
    const ix = createAssociatedTokenAccountIdempotent({
      payer: key(6),
      associatedAccount: ata,
      owner,
      mint: key(1),
    });
    expect(ix.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true);
    expect(ix.data.toString('hex')).toBe('01');
    expect(ix.keys).toHaveLength(6);
    expect(ix.keys[0]).toMatchObject({ isSigner: true, isWritable: true });
  });
});
