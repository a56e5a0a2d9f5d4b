import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { ComputeUnitEstimator } from '../../chain/compute-units';
import { TapeInstructions } from '../../chain/tape-instructions';
import { withComputeBudget } from '../../chain/transaction-packer';
import { checkPublishTransaction } from './publish-transaction-check';

const ix = new TapeInstructions(new PublicKey('TapeProgram11111111111111111111111111111111'));

function newTestCase() {
  const wallet = Keypair.generate();
  const signer = Keypair.generate();
  const authority = Keypair.generate();
  const publish = (versionBytes = 100) =>
    ix.publish({
      signer: signer.publicKey,
      storageAuthority: authority.publicKey,
      tape: Keypair.generate().publicKey,
      expectedSequence: 0,
      root: Buffer.alloc(32, 1),
      versionBytes,
      keptBytes: 100,
    });
  const asked = publish();
  const tx = (instructions = [asked], feePayer = wallet.publicKey) => {
    const t = new Transaction({
      feePayer,
      blockhash: Keypair.generate().publicKey.toBase58(),
      lastValidBlockHeight: 1,
    });
    t.add(
      ...withComputeBudget(instructions, { computeUnits: new ComputeUnitEstimator(ix.programId) })
        .transactionInstructions,
    );
    t.partialSign(authority);
    return Transaction.from(t.serialize({ requireAllSignatures: false }));
  };
  const expected = {
    publish: asked,
    feePayer: wallet.publicKey,
    storageAuthority: authority.publicKey,
  };
  return { tx, expected, publish, wallet };
}

describe('checkPublishTransaction', () => {
  it('accepts exactly the Publish asked for, co-signed by the storage authority', () => {
    const { tx, expected } = newTestCase();
    expect(() => checkPublishTransaction(tx(), expected)).not.toThrow();
  });

  it('refuses another fee payer, other sizes, or an instruction slipped in', () => {
    const { tx, expected, publish, wallet } = newTestCase();
    const other = Keypair.generate().publicKey;
    expect(() => checkPublishTransaction(tx(undefined, other), expected)).toThrow(/fee payer/);
    expect(() => checkPublishTransaction(tx([publish(99)]), expected)).toThrow(/another Publish/);
    const transfer = SystemProgram.transfer({
      fromPubkey: wallet.publicKey,
      toPubkey: other,
      lamports: 1,
    });
    expect(() => checkPublishTransaction(tx([expected.publish, transfer]), expected)).toThrow(
      /other instructions/,
    );
  });

  it("refuses a transaction without the storage authority's valid signature", () => {
    const { tx, expected } = newTestCase();
    const t = tx();
    t.signatures[
      t.signatures.findIndex((s) => s.publicKey.equals(expected.storageAuthority))
    ].signature = Buffer.alloc(64, 7);
    expect(() => checkPublishTransaction(t, expected)).toThrow(/does not verify/);
  });
});
