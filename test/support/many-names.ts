import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { join } from 'node:path';
import { ChainServices } from '../../src/chain/chain.module';
import { readKeypair } from '../../src/chain/keypair-file';
import { ChainConfig } from '../../src/config/chain.config';
import { commitmentOfBuffer } from '../../src/tracks/commitment';

/** Names sent (and, on a failure, sent again) together. */
const CHUNK = 5000;
const ATTEMPTS = 3;

export interface ManyNamesOptions {
  rpcUrl: string;
  /** The CLI config directory that created the tape (wallet `id.json`, `tapes/<tape>.json`). */
  configDir: string;
  tape: string;
  /** Bytes of a file already deployed on the tape: every new name points at its track. */
  sharedBody: Buffer | string;
  contentType: string;
  /** The names to add. */
  names: string[];
  /** Transactions in flight at once. */
  concurrency?: number;
  onProgress?: (done: number) => void;
}

/**
 * Gives a deployed tape many more names, fast: SetName instructions through the real program,
 * all pointing at one certified track the tape already has (no bytes to upload), packed as
 * tightly as transactions allow and sent many at once. Pays their rent from the local
 * network's faucet. For benchmarks of large sites.
 */
export async function addManyNames(options: ManyNamesOptions): Promise<void> {
  const chain = new ChainServices(Object.assign(new ChainConfig(), { rpc_url: options.rpcUrl }));
  try {
    const payer = readKeypair(join(options.configDir, 'id.json'));
    const tapeKey = readKeypair(join(options.configDir, 'tapes', `${options.tape}.json`));
    const tape = new PublicKey(options.tape);
    const body = Buffer.isBuffer(options.sharedBody)
      ? options.sharedBody
      : Buffer.from(options.sharedBody);
    const track = chain.ix.pdas.track(tape, commitmentOfBuffer(body).commitment);
    const record = await chain.reader.getTrack(track);
    if (!record?.certified) throw new Error('the shared file is not a certified track of the tape');

    // Name accounts are rent-exempt: about 0.002 SOL each.
    const rent = await chain.costs.rentExempt(200);
    const needed = rent * options.names.length + 10 * LAMPORTS_PER_SOL;
    for (let have = 0; have < needed; have += 1000 * LAMPORTS_PER_SOL) {
      await chain.faucet.requestAirdrop(payer.publicKey, 1000 * LAMPORTS_PER_SOL);
    }
    let done = 0;
    for (let start = 0; start < options.names.length; start += CHUNK) {
      const instructions = options.names.slice(start, start + CHUNK).map((name) =>
        chain.ix.setName({
          payer: payer.publicKey,
          signer: tapeKey.publicKey,
          tape,
          name,
          track,
          contentType: options.contentType,
        }),
      );
      // SetName of a name to the track it already points at changes nothing: a chunk cut short
      // by a dropped connection is simply sent again.
      for (let attempt = 1; ; attempt++) {
        try {
          await chain.writer.send(instructions, signers(payer, tapeKey), {
            ordered: false,
            concurrency: options.concurrency ?? 16,
          });
          break;
        } catch (err) {
          if (attempt >= ATTEMPTS) throw err;
        }
      }
      done += instructions.length;
      options.onProgress?.(done);
    }
  } finally {
    chain.close();
  }
}

function signers(payer: Keypair, tapeKey: Keypair): Keypair[] {
  return payer.publicKey.equals(tapeKey.publicKey) ? [payer] : [payer, tapeKey];
}
