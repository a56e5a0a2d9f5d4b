import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeConnectionSocket } from '../../../src/chain/close-connection';
import { readKeypair, writeKeypair } from '../../../src/chain/keypair-file';
import { CliUser } from '../clients/cli';
import { LocalnetProcess, startLocalnetProcess } from '../processes/localnet';

/**
 * An operator of `tape network …` against the local network as a standalone process (the real
 * BPF Upgradeable Loader under litesvm): a CLI user whose wallet the faucet funded, a connection
 * to read what the commands did, and a directory for program keypairs and ELFs.
 */
export interface NetworkOperator {
  net: LocalnetProcess;
  operator: CliUser;
  payer: Keypair;
  connection: Connection;
  dir: string;
  /** A new program keypair written to `dir`: its id and its file. */
  programKeypair(): { id: PublicKey; path: string };
  stop(): Promise<void>;
}

export async function startNetworkOperator(sol: number): Promise<NetworkOperator> {
  const net = await startLocalnetProcess({ slotMs: 50 });
  const operator = new CliUser({ url: 'http://127.0.0.1:9', rpcUrl: net.rpcUrl });
  const connection = new Connection(net.rpcUrl, 'confirmed');
  const dir = mkdtempSync(join(tmpdir(), 'network-operator-'));
  const stop = async () => {
    operator.cleanup();
    rmSync(dir, { recursive: true, force: true });
    closeConnectionSocket(connection);
    await net.stop();
  };
  try {
    await operator.ok(['keygen']);
    await operator.ok(['airdrop', '--sol', String(sol), '--tokens', '1']);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    net,
    operator,
    payer: readKeypair(join(operator.configDir, 'id.json')),
    connection,
    dir,
    programKeypair: () => {
      const keypair = Keypair.generate();
      const path = join(dir, `${keypair.publicKey.toBase58()}.json`);
      writeKeypair(path, keypair);
      return { id: keypair.publicKey, path };
    },
    stop,
  };
}
