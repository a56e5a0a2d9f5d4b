import {
  Keypair,
  PublicKey,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RENT_PUBKEY,
} from '@solana/web3.js';
import {
  BUFFER_METADATA_SIZE,
  closeAccount,
  createBufferInstructions,
  decodeLoaderState,
  deployWithMaxDataLen,
  initializeBuffer,
  programDataAddress,
  setAuthority,
  UPGRADEABLE_LOADER_ID,
  upgradeProgram,
  WRITE_HEADER_SIZE,
  writeBuffer,
} from './upgradeable-loader';
import { addressWithSeed } from './seeded-address';

const key = (n: number) => new PublicKey(Buffer.alloc(32, n));
const payer = key(1);
const buffer = key(2);
const authority = key(3);
const programId = key(4);
const spill = key(5);

/** Account metas as [address, signer, writable] for exact comparison. */
function metas(ix: { keys: { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[] }) {
  return ix.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable]);
}
const m = (k: PublicKey, signer: boolean, writable: boolean) => [k.toBase58(), signer, writable];

describe('upgradeable loader instructions', () => {
  it('InitializeBuffer: variant 0, buffer writable, authority read-only and not a signer', () => {
    const ix = initializeBuffer({ buffer, authority });
    expect(ix.programId.equals(UPGRADEABLE_LOADER_ID)).toBe(true);
    expect(ix.data.toString('hex')).toBe('00000000');
    expect(metas(ix)).toEqual([m(buffer, false, true), m(authority, false, false)]);
  });

  it('Write: variant 1, u32 offset, u64 length, the bytes; the authority signs', () => {
    const ix = writeBuffer({ buffer, authority, offset: 0x01020304, bytes: Buffer.from('abc') });
    expect(ix.data.toString('hex')).toBe(
      '01000000' + '04030201' + '0300000000000000' + Buffer.from('abc').toString('hex'),
    );
    expect(ix.data.length).toBe(WRITE_HEADER_SIZE + 3);
    expect(metas(ix)).toEqual([m(buffer, false, true), m(authority, true, false)]);
  });

  it('DeployWithMaxDataLen: variant 2, u64 max length; accounts in the loader order', () => {
    const ix = deployWithMaxDataLen({ payer, programId, buffer, authority, maxDataLen: 95_904 });
    expect(ix.data.toString('hex')).toBe('02000000' + 'a076010000000000');
    expect(metas(ix)).toEqual([
      m(payer, true, true),
      m(programDataAddress(programId), false, true),
      m(programId, false, true),
      m(buffer, false, true),
      m(SYSVAR_RENT_PUBKEY, false, false),
      m(SYSVAR_CLOCK_PUBKEY, false, false),
      m(SystemProgram.programId, false, false),
      m(authority, true, false),
    ]);
  });

  it('Upgrade: variant 3 alone; program data, program, buffer, spill, rent, clock, authority', () => {
    const ix = upgradeProgram({ programId, buffer, authority, spill });
    expect(ix.data.toString('hex')).toBe('03000000');
    expect(metas(ix)).toEqual([
      m(programDataAddress(programId), false, true),
      m(programId, false, true),
      m(buffer, false, true),
      m(spill, false, true),
      m(SYSVAR_RENT_PUBKEY, false, false),
      m(SYSVAR_CLOCK_PUBKEY, false, false),
      m(authority, true, false),
    ]);
  });

  it('SetAuthority: variant 4; the new authority is the third account, absent for none', () => {
    const account = programDataAddress(programId);
    const to = key(9);
    const handOver = setAuthority({ account, currentAuthority: authority, newAuthority: to });
    expect(handOver.data.toString('hex')).toBe('04000000');
    expect(metas(handOver)).toEqual([
      m(account, false, true),
      m(authority, true, false),
      m(to, false, false),
    ]);
    const final = setAuthority({ account, currentAuthority: authority, newAuthority: null });
    expect(metas(final)).toEqual([m(account, false, true), m(authority, true, false)]);
  });

  it('Close: variant 5; recipient writable, authority signs, program appended for program data', () => {
    const ix = closeAccount({ account: buffer, recipient: payer, authority });
    expect(ix.data.toString('hex')).toBe('05000000');
    expect(metas(ix)).toEqual([
      m(buffer, false, true),
      m(payer, false, true),
      m(authority, true, false),
    ]);
    const program = closeAccount({
      account: programDataAddress(programId),
      recipient: payer,
      authority,
      program: programId,
    });
    expect(metas(program)[3]).toEqual(m(programId, false, true));
  });

  it('creates a seeded buffer of 37 + ELF bytes owned by the loader, then initializes it', () => {
    const base = Keypair.generate().publicKey;
    const seed = 'tape-buffer-0123456789abcdef0123';
    const address = addressWithSeed(base, seed, UPGRADEABLE_LOADER_ID);
    const [create, init] = createBufferInstructions({
      payer: base,
      buffer: address,
      seed,
      authority,
      elfLength: 1000,
      lamports: 7_850_880,
    });
    expect(create.programId.equals(SystemProgram.programId)).toBe(true);
    // System CreateAccountWithSeed (3): base, u64-length seed, lamports, space, owner.
    expect(create.data.readUInt32LE(0)).toBe(3);
    expect(new PublicKey(create.data.subarray(4, 36)).equals(base)).toBe(true);
    const seedEnd = 44 + seed.length;
    expect(create.data.subarray(44, seedEnd).toString()).toBe(seed);
    expect(create.data.readBigUInt64LE(seedEnd)).toBe(7_850_880n);
    expect(create.data.readBigUInt64LE(seedEnd + 8)).toBe(BigInt(BUFFER_METADATA_SIZE + 1000));
    expect(new PublicKey(create.data.subarray(seedEnd + 16)).equals(UPGRADEABLE_LOADER_ID)).toBe(
      true,
    );
    expect(metas(init)).toEqual([m(address, false, true), m(authority, false, false)]);
  });
});

describe('upgradeable loader states', () => {
  const header = (variant: number, ...parts: Buffer[]) => {
    const v = Buffer.alloc(4);
    v.writeUInt32LE(variant);
    return Buffer.concat([v, ...parts]);
  };

  it('decodes a buffer with and without an authority', () => {
    expect(decodeLoaderState(header(1, Buffer.from([1]), authority.toBuffer()))).toEqual({
      kind: 'buffer',
      authority,
    });
    // The header is always 37 bytes; with no authority the key bytes are zeros.
    expect(decodeLoaderState(header(1, Buffer.from([0]), Buffer.alloc(32)))).toEqual({
      kind: 'buffer',
      authority: null,
    });
  });

  it('decodes a program and its program data (slot, upgrade authority)', () => {
    const data = programDataAddress(programId);
    expect(decodeLoaderState(header(2, data.toBuffer()))).toEqual({
      kind: 'program',
      programData: data,
    });
    const slot = Buffer.alloc(8);
    slot.writeBigUInt64LE(1234n);
    const elf = Buffer.from('\x7fELF');
    expect(decodeLoaderState(header(3, slot, Buffer.from([1]), authority.toBuffer(), elf))).toEqual(
      { kind: 'programData', slot: 1234n, upgradeAuthority: authority },
    );
    expect(decodeLoaderState(header(3, slot, Buffer.from([0]), Buffer.alloc(32)))).toEqual({
      kind: 'programData',
      slot: 1234n,
      upgradeAuthority: null,
    });
  });

  it('refuses unknown variants and bad option flags', () => {
    expect(() => decodeLoaderState(header(7))).toThrow('unknown upgradeable loader state 7');
    expect(() => decodeLoaderState(header(1, Buffer.from([2]), Buffer.alloc(32)))).toThrow(
      'bad Option flag 2',
    );
    expect(decodeLoaderState(header(0))).toEqual({ kind: 'uninitialized' });
  });
});
