import { Connection, Keypair } from '@solana/web3.js';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ChainFaucet } from './chain-faucet';
import { ChainRpc } from './chain-rpc';

/** A JSON-RPC node on loopback that answers `tape_requestStorageTokens` with `reply`. */
async function newTestFaucet(reply: { result?: unknown; error?: unknown }) {
  const requests: { method: string; params: unknown[] }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(JSON.parse(body) as { method: string; params: unknown[] });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, ...reply }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const confirmed: string[] = [];
  const connection = {
    requestAirdrop: async () => 'airdrop-signature',
    confirmTransaction: async (signature: string) => {
      confirmed.push(signature);
      return { value: { err: null } };
    },
  } as unknown as Connection;
  const sut = new ChainFaucet(new ChainRpc(connection, url, 'confirmed'));
  const close = () => new Promise((resolve) => server.close(resolve));
  return { sut, requests, confirmed, url, close };
}

describe('ChainFaucet', () => {
  const owner = Keypair.generate().publicKey;

  it('asks the local network for storage tokens and waits for the transfer', async () => {
    const t = await newTestFaucet({ result: 'token-signature' });
    try {
      expect(await t.sut.requestStorageTokens(owner, 5_000_000n)).toBe('token-signature');
      expect(t.requests).toEqual([
        expect.objectContaining({
          method: 'tape_requestStorageTokens',
          params: [owner.toBase58(), '5000000'],
        }),
      ]);
      expect(t.confirmed).toEqual(['token-signature']);
    } finally {
      await t.close();
    }
  });

  it('says the storage-token faucet is the local network’s alone', async () => {
    const t = await newTestFaucet({ error: { code: -32601, message: 'Method not found' } });
    try {
      await expect(t.sut.requestStorageTokens(owner, 1n)).rejects.toThrow(
        `the storage-token faucet exists only on a local network (${t.url})`,
      );
      expect(t.confirmed).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('airdrops SOL and waits for it', async () => {
    const t = await newTestFaucet({});
    try {
      expect(await t.sut.requestAirdrop(owner, 1000)).toBe('airdrop-signature');
      expect(t.confirmed).toEqual(['airdrop-signature']);
    } finally {
      await t.close();
    }
  });
});
