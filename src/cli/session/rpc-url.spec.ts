import { expandRpcMoniker } from './rpc-url';

describe('expandRpcMoniker', () => {
  it.each([
    ['localhost', 'http://127.0.0.1:8899'],
    ['l', 'http://127.0.0.1:8899'],
    ['devnet', 'https://api.devnet.solana.com'],
    ['d', 'https://api.devnet.solana.com'],
    ['testnet', 'https://api.testnet.solana.com'],
    ['t', 'https://api.testnet.solana.com'],
    ['mainnet-beta', 'https://api.mainnet-beta.solana.com'],
    ['m', 'https://api.mainnet-beta.solana.com'],
  ])('%s is %s, as in the Solana CLI', (moniker, url) => {
    expect(expandRpcMoniker(moniker)).toBe(url);
  });

  it('leaves URLs and anything else alone', () => {
    expect(expandRpcMoniker('http://10.0.0.1:8899')).toBe('http://10.0.0.1:8899');
    expect(expandRpcMoniker('mainnet')).toBe('mainnet');
    expect(expandRpcMoniker('toString')).toBe('toString');
  });
});
