import {
  ComputeBudgetProgram,
  PublicKey,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { CliError } from '../cli-error';

/**
 * The gateway hands back a transaction for the publisher to sign: before signing, the publisher
 * checks that it holds exactly the Publish it asked for (its tape, root, expected version and
 * signer, the sizes the gateway certified), compute-budget instructions and nothing else, that
 * its fee payer is the publisher's wallet and that the storage authority's signature is valid.
 * A gateway that slipped in a transfer gets no signature.
 */
export function checkPublishTransaction(
  tx: Transaction,
  expected: { publish: TransactionInstruction; feePayer: PublicKey; storageAuthority: PublicKey },
): void {
  const refuse = (why: string) => {
    throw new CliError(`the gateway's Publish transaction is not the one asked for: ${why}`);
  };
  if (!tx.feePayer?.equals(expected.feePayer)) refuse('another fee payer');
  const budget = tx.instructions.filter((ix) =>
    ix.programId.equals(ComputeBudgetProgram.programId),
  );
  const others = tx.instructions.filter(
    (ix) => !ix.programId.equals(ComputeBudgetProgram.programId),
  );
  if (budget.length > 2 || others.length !== 1) refuse('other instructions than one Publish');
  // SetComputeUnitLimit (2) and SetComputeUnitPrice (3) only: no heap or data-size requests.
  if (budget.some((ix) => ix.data[0] !== 2 && ix.data[0] !== 3)) refuse('an unexpected budget');
  if (!sameInstruction(others[0], expected.publish, expected.feePayer)) refuse('another Publish');
  const authority = tx.signatures.find((s) => s.publicKey.equals(expected.storageAuthority));
  if (!authority?.signature) refuse("no storage authority's signature");
  if (!tx.verifySignatures(false)) refuse('a signature does not verify');
}

/** The fee payer is writable in the message whatever the instruction says of it. */
function sameInstruction(
  a: TransactionInstruction,
  b: TransactionInstruction,
  feePayer: PublicKey,
): boolean {
  return (
    a.programId.equals(b.programId) &&
    a.data.equals(b.data) &&
    a.keys.length === b.keys.length &&
    a.keys.every(
      (k, i) =>
        k.pubkey.equals(b.keys[i].pubkey) &&
        k.isSigner === b.keys[i].isSigner &&
        (k.isWritable === b.keys[i].isWritable || k.pubkey.equals(feePayer)),
    )
  );
}
