import { probeLocalNetwork } from './local-network';

/** A stand-in node: answers each method from `answers`, records what was asked. */
function node(answers: Record<string, unknown>) {
  const asked: string[] = [];
  const post = async (body: unknown) => {
    const method = (body as { method: string }).method;
    asked.push(method);
    return method in answers
      ? answers[method]
      : { error: { code: -32601, message: 'Method not found' } };
  };
  return { asked, post };
}

describe('probeLocalNetwork', () => {
  it('says local when the faucet method refuses a call without arguments', async () => {
    const n = node({
      getGenesisHash: { result: '8Nn2XgGkqfqwvXBzrm3eRKR3W1nCzt9u8Y7TMPyZmRLs' },
      tape_requestStorageTokens: { error: { code: -32602, message: 'missing field `owner`' } },
    });
    expect(await probeLocalNetwork('http://127.0.0.1:8899', n.post)).toEqual({ local: true });
  });

  it('never sends a faucet method to a public cluster, by host or by genesis hash', async () => {
    const byHost = node({});
    expect(await probeLocalNetwork('https://api.devnet.solana.com', byHost.post)).toEqual({
      local: false,
      reason: 'api.devnet.solana.com is a public cluster',
      cluster: 'devnet',
    });
    expect(byHost.asked).toEqual([]);

    const byGenesis = node({
      getGenesisHash: { result: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' },
    });
    expect(await probeLocalNetwork('https://rpc.example.com', byGenesis.post)).toEqual({
      local: false,
      reason: "its genesis hash is mainnet-beta's",
      cluster: 'mainnet-beta',
    });
    expect(byGenesis.asked).toEqual(['getGenesisHash']);
  });

  it('is not local for any other node or answer', async () => {
    const validator = node({
      getGenesisHash: { result: 'SomeOtherGenesis1111111111111111111111111' },
    });
    expect(await probeLocalNetwork('http://10.0.0.2:8899', validator.post)).toEqual({
      local: false,
      reason: 'it has no local-network faucet',
    });
    const webPage = async () => null;
    expect((await probeLocalNetwork('http://example.com', webPage)).local).toBe(false);
  });
});
