import { Keypair, PublicKey } from '@solana/web3.js';
import { ObjectGateway, ObjectGatewayOptions, startObjectGateway } from './object-gateway';
import { TestTape, UploadClient } from './upload-client';

export const SEGMENT_BYTES = 262144;

/** A running gateway, a funded wallet and one tape with room for the tests' objects. */
export interface ObjectFixture {
  gw: ObjectGateway;
  client: UploadClient;
  wallet: Keypair;
  tape: TestTape;
  objectUrl(track: PublicKey | string): string;
  stop(): Promise<void>;
}

export async function startObjectFixture(
  options: ObjectGatewayOptions & { capacity?: number; epochs?: number } = {},
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
