import { Keypair } from '@solana/web3.js';
import { airdropRoute, tokenGrant } from './airdrop-plan';

const URL = 'https://rpc.example.net';

describe('airdrop decisions', () => {
  it('route: local faucets locally, the cluster faucet on devnet and testnet, none elsewhere', () => {
    expect(airdropRoute(URL, { local: true })).toEqual({ kind: 'local-faucet' });
    for (const cluster of ['devnet', 'testnet'] as const) {
      expect(airdropRoute(URL, { local: false, reason: 'x', cluster })).toEqual({
        kind: 'cluster-faucet',
        cluster,
      });
    }
    const mainnet = airdropRoute(URL, { local: false, reason: 'x', cluster: 'mainnet-beta' });
    expect(mainnet).toMatchObject({ kind: 'refused' });
    expect(mainnet.kind === 'refused' && mainnet.message).toMatch(
      /^mainnet-beta has no faucet \(https:\/\/rpc\.example\.net\): .*tape network fund/,
    );
    expect(airdropRoute(URL, { local: false, reason: 'it has no local-network faucet' })).toEqual({
      kind: 'refused',
      message: `the faucet exists only on a local network; ${URL} is not one (it has no local-network faucet)`,
    });
  });

  it('tokens: minted only when the wallet holds the mint authority; otherwise why not', () => {
    const wallet = Keypair.generate().publicKey;
    const other = Keypair.generate().publicKey;
    const mint = Keypair.generate().publicKey;
    expect(tokenGrant(wallet, { kind: 'mint', address: mint, authority: wallet })).toEqual({
      kind: 'mint',
      mint,
    });
    expect(tokenGrant(wallet, { kind: 'mint', address: mint, authority: other })).toEqual({
      kind: 'none',
      reason:
        `the wallet cannot mint the storage token ${mint.toBase58()} (its mint authority is ${other.toBase58()}); ` +
        `the network's operator can send some: tape network mint ${wallet.toBase58()} <amount>`,
    });
    expect(tokenGrant(wallet, { kind: 'mint', address: mint, authority: null })).toMatchObject({
      kind: 'none',
      reason: expect.stringContaining('it has no mint authority') as string,
    });
    expect(tokenGrant(wallet, { kind: 'missing', reason: 'no program' })).toEqual({
      kind: 'none',
      reason: 'no program',
    });
  });
});
