import { Keypair, PublicKey } from '@solana/web3.js';
import { GatewayOptions, GatewayProcess, startGateway } from '../processes/gateway';
import { TestTape, UploadClient } from '../clients/upload-client';

export const SEGMENT_BYTES = 262144;

/** A running gateway, a funded wallet and one tape with room for the tests' objects. */
export interface ObjectFixture {
  gw: GatewayProcess;
  client: UploadClient;
  wallet: Keypair;
  tape: TestTape;
  objectUrl(track: PublicKey | string): string;
  stop(): Promise<void>;
}

/**
 * The object tests' gateway: slots of 100 ms (a tape's transactions confirm quickly) unless
 * `env` says otherwise.
 */
export function startObjectGateway(options: GatewayOptions = {}): Promise<GatewayProcess> {
  return startGateway({
    ...options,
    env: { TAPE__LOCALNET__SLOT_MS: '100', ...options.env },
  });
}

export async function startObjectFixture(
  options: GatewayOptions & { capacity?: number; epochs?: number } = {},
): Promise<ObjectFixture> {
  const gw = await startObjectGateway(options);
  const client = new UploadClient(gw.url, gw.rpcUrl);
  try {
    const wallet = await client.fundedWallet();
    const tape = await client.createTape(
      wallet,
      options.capacity ?? 64 << 20,
      options.epochs ?? 100,
    );
    return {
      gw,
      client,
      wallet,
      tape,
      objectUrl: (track) =>
        `${gw.url}/object/${typeof track === 'string' ? track : track.toBase58()}`,
      stop: async () => {
        client.close();
        await gw.stop();
      },
    };
  } catch (err) {
    client.close();
    await gw.stop();
    throw err;
  }
}
