/**
 * The loader builders against agave's real BPF Upgradeable Loader (litesvm): a buffer created,
 * written and deployed from, the program run, upgraded from a second buffer, made final, and a
 * buffer closed. Proves the layouts and account orders the unit spec pins byte by byte.
 */
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import { Keypair, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { FailedTransactionMetadata, LiteSVM, TransactionMetadata } from 'litesvm';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addressWithSeed } from './seeded-address';
import {
  BUFFER_METADATA_SIZE,
  closeAccount,
  createBufferInstructions,
  decodeLoaderState,
  deployWithMaxDataLen,
  PROGRAM_ACCOUNT_SIZE,
  programDataAddress,
  PROGRAMDATA_METADATA_SIZE,
  setAuthority,
  UPGRADEABLE_LOADER_ID,
  upgradeProgram,
  writeBuffer,
} from './upgradeable-loader';

const elf = readFileSync(join(__dirname, '..', '..', 'program', 'tape.so'));
const CHUNK = 900;

describe('upgradeable loader builders on litesvm', () => {
  const svm = new LiteSVM();
  const payer = Keypair.generate();
  const program = Keypair.generate();
  let slot = 1n;
  svm.airdrop(address(payer.publicKey.toBase58()), lamports(100_000_000_000n));

  const run = (ixs: TransactionInstruction[], signers: Keypair[]) => {
    const tx = new Transaction({
      feePayer: payer.publicKey,
      recentBlockhash: svm.latestBlockhash(),
    });
    tx.add(...ixs);
    tx.sign(...signers);
    const result = svm.sendTransaction(getTransactionDecoder().decode(tx.serialize()));
    svm.warpToSlot((slot += 1n));
    svm.expireBlockhash();
    return result;
  };
  const ok = (ixs: TransactionInstruction[], signers: Keypair[] = [payer]): TransactionMetadata => {
    const result = run(ixs, signers);
    if (result instanceof FailedTransactionMetadata) {
      throw new Error(`${result.toString()}\n${result.meta().logs().join('\n')}`);
    }
    return result;
  };
  const account = (key: { toBase58(): string }) => {
    const found = svm.getAccount(address(key.toBase58()));
    return found.exists ? found : null;
  };
  const rent = (bytes: number) => Number(svm.minimumBalanceForRentExemption(BigInt(bytes)));

  /** A buffer at a seeded address holding `bytes`, written in chunks. */
  const filledBuffer = (seed: string, bytes: Buffer) => {
    const buffer = addressWithSeed(payer.publicKey, seed, UPGRADEABLE_LOADER_ID);
    ok(
      createBufferInstructions({
        payer: payer.publicKey,
        buffer,
        seed,
        authority: payer.publicKey,
        elfLength: bytes.length,
        lamports: rent(BUFFER_METADATA_SIZE + bytes.length),
      }),
    );
    for (let offset = 0; offset < bytes.length; offset += CHUNK) {
      ok([
        writeBuffer({
          buffer,
          authority: payer.publicKey,
          offset,
          bytes: bytes.subarray(offset, offset + CHUNK),
        }),
      ]);
    }
    return buffer;
  };

  it('deploys from a buffer; the program runs from the next slot', () => {
    const buffer = filledBuffer('first', elf);
    const state = account(buffer)!;
    expect(decodeLoaderState(Buffer.from(state.data))).toEqual({
      kind: 'buffer',
      authority: payer.publicKey,
    });
    expect(Buffer.from(state.data.subarray(BUFFER_METADATA_SIZE)).equals(elf)).toBe(true);

    ok(
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: program.publicKey,
          lamports: rent(PROGRAM_ACCOUNT_SIZE),
          space: PROGRAM_ACCOUNT_SIZE,
          programId: UPGRADEABLE_LOADER_ID,
        }),
        deployWithMaxDataLen({
          payer: payer.publicKey,
          programId: program.publicKey,
          buffer,
          authority: payer.publicKey,
          maxDataLen: 2 * elf.length,
        }),
      ],
      [payer, program],
    );
    expect(account(buffer)).toBeNull(); // closed into the payer
    const data = Buffer.from(account(programDataAddress(program.publicKey))!.data);
    expect(data.length).toBe(PROGRAMDATA_METADATA_SIZE + 2 * elf.length);
    expect(decodeLoaderState(data)).toMatchObject({
      kind: 'programData',
      upgradeAuthority: payer.publicKey,
    });
    expect(
      data.subarray(PROGRAMDATA_METADATA_SIZE, PROGRAMDATA_METADATA_SIZE + elf.length),
    ).toEqual(elf);

    // Empty instruction data: the tape program runs and refuses it with its own log line.
    const call = run(
      [
        new TransactionInstruction({
          programId: program.publicKey,
          keys: [],
          data: Buffer.alloc(0),
        }),
      ],
      [payer],
    );
    expect(call).toBeInstanceOf(FailedTransactionMetadata);
    expect((call as FailedTransactionMetadata).meta().logs()).toContain(
      'Program log: Error: unexpected end of data',
    );
  });

  it('upgrades from a second buffer, then drops the authority for good', () => {
    const buffer = filledBuffer('second', elf);
    const before = account(payer.publicKey)!.lamports;
    ok([
      upgradeProgram({
        programId: program.publicKey,
        buffer,
        authority: payer.publicKey,
        spill: payer.publicKey,
      }),
    ]);
    // The buffer's rent came back to the spill account (less the fee).
    expect(account(payer.publicKey)!.lamports - before).toBe(
      BigInt(rent(BUFFER_METADATA_SIZE + elf.length) - 5000),
    );

    const programData = programDataAddress(program.publicKey);
    ok([
      setAuthority({ account: programData, currentAuthority: payer.publicKey, newAuthority: null }),
    ]);
    expect(decodeLoaderState(Buffer.from(account(programData)!.data))).toMatchObject({
      upgradeAuthority: null,
    });
    const third = filledBuffer('third', elf);
    const refused = run(
      [
        upgradeProgram({
          programId: program.publicKey,
          buffer: third,
          authority: payer.publicKey,
          spill: payer.publicKey,
        }),
      ],
      [payer],
    );
    expect(refused).toBeInstanceOf(FailedTransactionMetadata);
    expect((refused as FailedTransactionMetadata).meta().logs().join('\n')).toMatch(/immutable/i);

    ok([closeAccount({ account: third, recipient: payer.publicKey, authority: payer.publicKey })]);
    expect(account(third)).toBeNull();
  });
});
