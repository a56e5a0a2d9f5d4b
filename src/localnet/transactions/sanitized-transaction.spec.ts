import {
  Keypair,
  MessageV0,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import { SanitizedTransaction, TransactionDecodeError } from './sanitized-transaction';

const payer = Keypair.generate();
const other = Keypair.generate();
const blockhash = Keypair.generate().publicKey.toBase58();

function legacy(): Buffer {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: other.publicKey, lamports: 7 }),
    new TransactionInstruction({
      programId: Keypair.generate().publicKey,
      keys: [{ pubkey: other.publicKey, isSigner: true, isWritable: false }],
      data: Buffer.from('hello'),
    }),
  );
  tx.sign(payer, other);
  return tx.serialize();
}

describe('SanitizedTransaction.parse', () => {
  it('reads a legacy transaction as web3.js does: signatures, header, keys, blockhash, instructions', () => {
    const raw = legacy();
    const sut = SanitizedTransaction.parse(raw);
    const reference = VersionedTransaction.deserialize(raw);
    expect(sut.version).toBe('legacy');
    expect(sut.signatures.map((s) => s.toString('hex'))).toEqual(
      reference.signatures.map((s) => Buffer.from(s).toString('hex')),
    );
    expect(sut.header).toEqual(reference.message.header);
    expect(sut.accountKeys.map((k) => k.toBase58())).toEqual(
      reference.message.staticAccountKeys.map((k) => k.toBase58()),
    );
    expect(sut.recentBlockhash).toBe(blockhash);
    expect(sut.instructions).toEqual(
      reference.message.compiledInstructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accountIndexes: ix.accountKeyIndexes,
        data: Buffer.from(ix.data),
      })),
    );
  });

  it('reads a v0 message and refuses one with address lookup tables', () => {
    const message = MessageV0.compile({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: other.publicKey,
          lamports: 1,
        }),
      ],
    });
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const raw = Buffer.from(tx.serialize());
    expect(SanitizedTransaction.parse(raw).version).toBe(0);
    // The same message with one (empty) lookup table entry appended in place of "none".
    const lookup = Buffer.concat([
      raw.subarray(0, raw.length - 1),
      Buffer.from([1]),
      Buffer.alloc(32),
      Buffer.from([0, 0]),
    ]);
    expect(() => SanitizedTransaction.parse(lookup)).toThrow(
      /address lookup tables are not supported/,
    );
  });

  it('refuses trailing bytes, a non-canonical length prefix and a truncated message', () => {
    const raw = legacy();
    const expectRefused = (bytes: Buffer, detail: RegExp) => {
      expect(() => SanitizedTransaction.parse(bytes)).toThrow(TransactionDecodeError);
      expect(() => SanitizedTransaction.parse(bytes)).toThrow(detail);
    };
    expectRefused(Buffer.concat([raw, Buffer.from([0])]), /trailing or non-canonical/);
    expectRefused(raw.subarray(0, raw.length - 3), /unexpected end of file/);
    // The key count (after 1 + 2 x 64 signature bytes and the 3-byte header) as 0x83 0x00.
    const keysAt = 1 + 2 * 64 + 3;
    const padded = Buffer.concat([
      raw.subarray(0, keysAt),
      Buffer.from([raw[keysAt] | 0x80, 0]),
      raw.subarray(keysAt + 1),
    ]);
    expectRefused(padded, /trailing or non-canonical/);
  });
});
