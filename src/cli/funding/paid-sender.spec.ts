import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { ComputeUnitEstimator } from '../../chain/compute-units';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';
import { Funds } from './payment-check';
import { PaidSender } from './paid-sender';

/**
 * The sender over a chain as simple as it needs: balances the test sets, a writer that records
 * what it was asked to send, and a watchdog that records when it was put around the send.
 */
function newTestService(balance: Funds) {
  const wallet = Keypair.generate();
  const events: string[] = [];
  const sent: Array<{ instructions: TransactionInstruction[]; signers: PublicKey[] }> = [];
  const chain = {
    reader: {
      getBalances: (owner: PublicKey) => {
        events.push(`balance ${owner.toBase58()}`);
        return Promise.resolve({ ...balance });
      },
    },
    writer: {
      packing: { computeUnits: new ComputeUnitEstimator(DEFAULT_TAPE_PROGRAM_ID) },
      send: (instructions: TransactionInstruction[], signers: Keypair[]) => {
        events.push('send');
        sent.push({ instructions, signers: signers.map((s) => s.publicKey) });
        return Promise.resolve(['the-signature']);
      },
    },
    guarded: <T>(work: Promise<T>) => {
      events.push('guarded');
      return work;
    },
  };
  const signers = { wallet: () => wallet };
  const sut = new PaidSender(chain as unknown as CliChain, signers as unknown as CliSigners);
  const ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID).setDelegate({
    authority: wallet.publicKey,
    delegate: null,
  });
  return { sut, wallet, events, sent, ix };
}

describe('PaidSender', () => {
  it('checks the balance, then signs with the wallet and sends under the watchdog', async () => {
    const { sut, wallet, events, sent, ix } = newTestService({ lamports: 10 ** 9, tokens: 0n });
    expect(await sut.send([ix], { what: 'this change' })).toBe('the-signature');
    expect(events).toEqual([`balance ${wallet.publicKey.toBase58()}`, 'send', 'guarded']);
    expect(sent).toEqual([{ instructions: [ix], signers: [wallet.publicKey] }]);
  });

  it('adds a cosigner beside the wallet, and pays its signature too', async () => {
    const cosigner = Keypair.generate();
    // 7,000 lamports pay one signature (5,000), not two.
    const { sut, wallet, sent, ix } = newTestService({ lamports: 7000, tokens: 0n });
    await expect(sut.send([ix], { cosigners: [cosigner], what: 'this change' })).rejects.toThrow(
      new CliError(
        'insufficient funds: this change costs about 0.00001 SOL; ' +
          `wallet ${wallet.publicKey.toBase58()} has 0.000007 SOL ` +
          '(fix: fund the wallet, e.g. tape airdrop on a local network)',
      ),
    );
    expect(sent).toEqual([]);
  });

  it('does not sign twice when the cosigner is the wallet', async () => {
    const { sut, wallet, sent, ix } = newTestService({ lamports: 7000, tokens: 0n });
    await sut.send([ix], { cosigners: [wallet], what: 'this change' });
    expect(sent[0].signers).toEqual([wallet.publicKey]);
  });

  it('refuses what the wallet lacks in storage tokens, naming them, and sends nothing', async () => {
    const { sut, wallet, events, sent, ix } = newTestService({
      lamports: 10 ** 9,
      tokens: 11_999n,
    });
    await expect(sut.send([ix], { tokens: 12_000n, what: 'extending the tape' })).rejects.toThrow(
      new CliError(
        'insufficient funds: extending the tape costs 0.012 storage tokens and about 0.000005 SOL; ' +
          `wallet ${wallet.publicKey.toBase58()} has 0.011999 storage tokens and 1 SOL ` +
          '(fix: fund the wallet, e.g. tape airdrop on a local network)',
      ),
    );
    expect(events).not.toContain('send');
    expect(sent).toEqual([]);
  });
});
