import { Keypair } from '@solana/web3.js';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliUser, keyValues } from './support/clients/cli';
import { eventually } from './support/jest/eventually';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';

/**
 * The `tape` CLI among Solana's tools (issue 36): persistent settings with their precedence,
 * the Solana CLI's config.yml as a fallback, shell completion, the faucets of devnet and
 * testnet (a fake devnet node on loopback: no internet here, and none needed), and the
 * operator's `tape network fund` and `tape network mint` on the embedded local network.
 */
const TEST_TIMEOUT_MS = 300_000;
const DEVNET = 'https://api.devnet.solana.com';
const EPOCH_SECS = 10;
const DEVNET_GENESIS = 'EtWTRABZaYq6iMfeYKouRu166VL2xqa1wcaSToNPCuqx';
/** Either way the answer names devnet's URL: no internet here; with it, no such tape there. */
const ON_DEVNET =
  /^(cannot reach the chain RPC at|no tape \S+ on) https:\/\/api\.devnet\.solana\.com$/;

describe('tape in the Solana ecosystem', () => {
  let gw: GatewayProcess;
  const cleanups: (() => void)[] = [];
  /** A user with an empty HOME of their own and no TAPE_RPC_URL: settings decide the chain. */
  const user = (env: Record<string, string | undefined> = {}) => {
    const home = mkdtempSync(join(tmpdir(), 'tape-home-'));
    const u = new CliUser(gw, { HOME: home, TAPE_RPC_URL: undefined, ...env });
    cleanups.push(() => {
      u.cleanup();
      rmSync(home, { recursive: true, force: true });
    });
    return { u, home };
  };

  beforeAll(async () => {
    // 10-second epochs, so a tape of 10 epochs reaches its warning window (its last tenth) in a test.
    gw = await startGateway({ config: { localnet: { epoch_duration_secs: EPOCH_SECS } } });
  });
  afterAll(async () => {
    cleanups.forEach((c) => c());
    await gw?.stop();
  });

  it.concurrent(
    'tape config set url devnet: tape info and tape airdrop target devnet; flags and TAPE_RPC_URL still win',
    async () => {
      const { u } = user();
      expect((await u.ok(['config', 'get', 'url'])).trim()).toBe('http://127.0.0.1:8899');
      expect(await u.ok(['config', 'set', 'url', 'devnet'])).toBe(`url: ${DEVNET}\n`);
      expect((await u.ok(['config', 'get', 'url'])).trim()).toBe(DEVNET);
      expect(await u.json(['config', 'get', 'url'])).toEqual({
        url: DEVNET,
        source: 'config',
        origin: join(u.configDir, 'config.json'),
      });
      expect(keyValues(await u.ok(['config', 'get'])).url).toBe(
        `${DEVNET} (from ${join(u.configDir, 'config.json')})`,
      );
      const tape = Keypair.generate().publicKey.toBase58();
      expect(await u.fails(['info', '--tape', tape])).toMatch(ON_DEVNET);
      await u.ok(['keygen']);
      expect(await u.fails(['airdrop'])).toMatch(ON_DEVNET);

      // -u, then TAPE_RPC_URL, override the file.
      await u.ok(['airdrop', '-u', gw.rpcUrl, '--sol', '1', '--tokens', '1']);
      expect(keyValues(await u.ok(['balance'], { env: { TAPE_RPC_URL: gw.rpcUrl } })).SOL).toBe(
        '1',
      );
      expect(
        await u.json(['config', 'get', 'url'], { env: { TAPE_RPC_URL: 'testnet' } }),
      ).toMatchObject({ url: 'https://api.testnet.solana.com', source: 'env' });
      const set = await u.run(['config', 'set', 'url', 'localhost'], {
        env: { TAPE_RPC_URL: gw.rpcUrl },
      });
      expect(set.stdout).toBe('url: http://127.0.0.1:8899\n');
      expect(set.stderr).toContain(`note: TAPE_RPC_URL overrides it here (${gw.rpcUrl})`);
      expect(await u.fails(['config', 'set', 'url', 'mainnet'])).toMatch(/^bad RPC URL 'mainnet'/);

      // gateway and keypair are settings too: keygen writes the configured wallet, others use it.
      await u.ok(['config', 'set', 'url', gw.rpcUrl]);
      await u.ok(['config', 'set', 'gateway', 'http://127.0.0.1:9']);
      expect(
        await u.json(['config', 'get', 'gateway'], { env: { TAPE_GATEWAY: undefined } }),
      ).toMatchObject({
        gateway: 'http://127.0.0.1:9',
        source: 'config',
      });
      const wallet = join(u.configDir, 'elsewhere', 'wallet.json');
      const set2 = await u.run(['config', 'set', 'keypair', wallet]);
      expect(set2.stderr).toContain(`${wallet} does not exist yet (create it: tape keygen)`);
      const pubkey = keyValues(await u.ok(['keygen'])).pubkey;
      expect(JSON.parse(readFileSync(wallet, 'utf8'))).toHaveLength(64);
      expect(keyValues(await u.ok(['balance']))).toEqual({
        wallet: pubkey,
        SOL: '0',
        'storage tokens': '0',
      });
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    "with no tape settings, the Solana CLI's config.yml gives the RPC URL and the wallet",
    async () => {
      const { u, home } = user();
      const keyPath = join(home, 'wallets', 'dev.json');
      const pubkey = keyValues(await u.ok(['keygen', '-k', keyPath])).pubkey;
      const solanaConfig = join(home, '.config', 'solana', 'cli', 'config.yml');
      mkdirSync(join(home, '.config', 'solana', 'cli'), { recursive: true });
      writeFileSync(
        solanaConfig,
        `---\njson_rpc_url: "${gw.rpcUrl}"\nwebsocket_url: ""\nkeypair_path: ~/wallets/dev.json\ncommitment: confirmed\n`,
      );
      const sources = await u.json<{
        url: string;
        keypair: string;
        sources: Record<string, { source: string }>;
      }>(['config', 'get']);
      expect(sources).toMatchObject({ url: gw.rpcUrl, keypair: keyPath });
      expect(sources.sources.url.source).toBe('solana-cli');
      expect(sources.sources.keypair.source).toBe('solana-cli');

      const drop = await u.run(['airdrop', '--sol', '3', '--tokens', '7']);
      expect(drop.code).toBe(0);
      expect(keyValues(drop.stdout).received).toBe('3 SOL, 7 storage tokens');
      const balance = await u.run(['balance']);
      expect(keyValues(balance.stdout)).toEqual({
        wallet: pubkey,
        SOL: '3',
        'storage tokens': '7',
      });
      // Each fallback is named on stderr, so nobody wonders which chain or key was used.
      expect(balance.stderr).toContain(
        `using the Solana CLI's keypair ${keyPath} (keypair_path in ${solanaConfig};`,
      );
      expect(balance.stderr).toContain(
        `using the Solana CLI's RPC URL ${gw.rpcUrl} (json_rpc_url in ${solanaConfig})`,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'tape completion bash completes commands, sub-commands, options and values; zsh and fish scripts parse',
    async () => {
      const { u, home } = user();
      const script = join(home, 'tape.bash');
      writeFileSync(script, await u.ok(['completion', 'bash']));
      const complete = (words: string[]) =>
        execFileSync(
          'bash',
          [
            '-c',
            `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _tape; echo "\${COMPREPLY[*]}"`,
            script,
            ...words,
          ],
          { encoding: 'utf8' },
        ).trim();
      // The commands each level offers are the ones its --help lists: the registered tree, not a
      // hand-written list (a command added later completes with no change here).
      const listed = async (args: string[]) =>
        [...(await u.ok([...args, '--help'])).matchAll(/^ {2}([a-z]+)\b/gm)]
          .map((m) => m[1])
          .filter((c) => c !== 'help')
          .sort();
      const offered = (words: string[]) => complete(words).split(' ').sort();
      const root = await listed([]);
      expect(root).toEqual(expect.arrayContaining(['completion', 'config', 'deploy', 'network']));
      expect(offered(['tape', ''])).toEqual(root);
      expect(offered(['tape', 'de'])).toEqual(root.filter((c) => c.startsWith('de')));
      const network = await listed(['network']);
      expect(network).toEqual(expect.arrayContaining(['deploy', 'fund', 'init', 'mint']));
      expect(offered(['tape', 'network', ''])).toEqual(network);
      expect(complete(['tape', 'network', 'mint', '--js'])).toBe('--json');
      expect(complete(['tape', 'deploy', '--pr'])).toBe('--prune --program-id');
      expect(complete(['tape', '-u', 'd'])).toBe('devnet');
      expect(complete(['tape', '-u', 'devnet', 'in'])).toBe('info');
      expect(complete(['tape', 'config', 'set', 'k'])).toBe('keypair');
      expect(complete(['tape', 'completion', ''])).toBe('bash zsh fish');

      expect(await u.fails(['completion', 'powershell'])).toBe(
        "unknown shell 'powershell' (known: bash, zsh, fish)",
      );
      for (const shell of ['zsh', 'fish']) {
        const file = join(home, `tape.${shell}`);
        writeFileSync(file, await u.ok(['completion', shell]));
        // zsh and fish come with the test command's Debian packages (scripts/install-test-deps.sh).
        const check = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
        expect(check.error).toBeUndefined();
        expect(check.stderr).toBe('');
        expect(check.status).toBe(0);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    "airdrop on devnet asks devnet's faucet for SOL and reports exactly what it received",
    async () => {
      const devnet = await startFakeDevnet();
      const refusing = await startFakeDevnet({ refuseAirdrop: true });
      try {
        const { u } = user();
        const pubkey = keyValues(await u.ok(['keygen'])).pubkey;
        const run = await u.run(['airdrop', '-u', devnet.url]);
        expect(run.code).toBe(0);
        expect(keyValues(run.stdout)).toEqual({
          wallet: pubkey,
          network: `devnet (${devnet.url})`,
          received: '1 SOL, 0 storage tokens',
          balance: '1 SOL',
        });
        expect(run.stderr).toMatch(
          /^no storage tokens: the tape program \S+ has no storage token on /m,
        );
        expect(devnet.airdrops).toEqual([[pubkey, 1_000_000_000]]);
        // Never the local network's faucet method, with or without arguments.
        expect(devnet.methods.filter((m) => m.startsWith('tape_'))).toEqual([]);

        const json = await u.json<Record<string, unknown>>([
          'airdrop',
          '-u',
          devnet.url,
          '--sol',
          '2',
        ]);
        expect(json).toMatchObject({
          network: 'devnet',
          received: { lamports: 2_000_000_000, tokens: '0' },
          tokens_skipped: expect.stringContaining('has no storage token') as string,
        });

        expect(await u.fails(['airdrop', '-u', refusing.url])).toMatch(
          /^the devnet faucet did not give 1 SOL: .*airdrop limit.* \(nothing was received; faucets limit each wallet/,
        );
        expect(await u.fails(['airdrop', '-u', 'mainnet-beta'])).toMatch(
          /^mainnet-beta has no faucet \(https:\/\/api\.mainnet-beta\.solana\.com\)/,
        );
      } finally {
        devnet.server.close();
        refusing.server.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'operators: tape network mint with the mint authority, tape network fund from a funded wallet',
    async () => {
      // The local network's faucet key is its storage token's mint authority.
      const authority = join(gw.dataDir, 'faucet-keypair.json');
      const { u: operator } = user({ TAPE_RPC_URL: gw.rpcUrl });
      const { u: someone } = user({ TAPE_RPC_URL: gw.rpcUrl });
      const recipient = keyValues(await someone.ok(['keygen'])).pubkey;

      const minted = keyValues(
        await operator.ok(['network', 'mint', recipient, '12.5', '-k', authority]),
      );
      expect(minted).toMatchObject({ to: recipient, minted: '12.5 storage tokens' });
      expect(keyValues(await someone.ok(['balance']))['storage tokens']).toBe('12.5');

      const funder = await operator.fundedWallet();
      const fund = await operator.json<{ sent_lamports: number; balance: { lamports: number } }>([
        'network',
        'fund',
        recipient,
        '--sol',
        '2.5',
      ]);
      expect(fund).toMatchObject({
        sent_lamports: 2_500_000_000,
        balance: { lamports: 2_500_000_000 },
      });
      expect(keyValues(await someone.ok(['balance']))).toMatchObject({
        SOL: '2.5',
        'storage tokens': '12.5',
      });

      expect(await operator.fails(['network', 'mint', recipient, '1'])).toMatch(
        new RegExp(
          `^the wallet cannot mint the storage token \\S+ \\(its mint authority is \\S+\\) \\(pass the mint authority's keypair with -k\\)$`,
        ),
      );
      const fresh = Keypair.generate().publicKey.toBase58();
      expect(await operator.fails(['network', 'fund', fresh, '--sol', '0.0001'])).toMatch(
        new RegExp(
          `^${fresh} would hold 0\\.0001 SOL, less than the 0\\.\\d+ SOL an account needs`,
        ),
      );
      expect(await someone.fails(['network', 'fund', funder, '--sol', '100'])).toMatch(
        /^insufficient funds: sending 100 SOL needs 100\.000005 SOL with its fee; wallet \S+ has 2\.5 SOL$/,
      );
      expect(await operator.fails(['network', 'fund', 'nope'])).toMatch(/^bad public key 'nope'/);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'tape info and tape deploy warn in the last tenth of a short reservation',
    async () => {
      const { u } = user({ TAPE_RPC_URL: gw.rpcUrl });
      await u.fundedWallet();
      // 10 epochs of 10 s: 100 s reserved, so the warning starts 10 s before the expiry.
      await u.ok(['create', '--capacity', '1m', '--epochs', '10']);
      const first = await u.run(['info']);
      expect(first.stderr).not.toMatch(/warning/);
      const { expires_at: expiresAt } = await u.json<{ expires_at: string }>(['info']);
      const warnFrom = Date.parse(expiresAt) - (EPOCH_SECS * 10 * 1000) / 10;
      // The chain clock follows wall time: wait for the window (a condition, not a sleep).
      await eventually('the warning window', () => Date.now() >= warnFrom + 500, {
        timeoutMs: 150_000,
        everyMs: 250,
      });
      const warning =
        /^warning: tape \S+ expires in (less than a minute|about \d+ seconds?) \(~.* UTC\); extend it before then \(tape extend --duration <time>\): an expired tape cannot be extended and its site stops \(410 Gone\)$/m;
      const info = await u.run(['info']);
      expect(info.code).toBe(0);
      expect(info.stderr).toMatch(warning);
      expect(keyValues(info.stdout).status).toBe('active');
      const deploy = await u.run([
        'deploy',
        join(REPO_ROOT, 'examples', 'hello-site', 'index.html'),
      ]);
      expect(deploy.stderr).toMatch(warning);
    },
    TEST_TIMEOUT_MS,
  );
});

/**
 * A node that answers as devnet would for an airdrop (genesis hash, requestAirdrop, signature
 * statuses, balances; no tape program), and records what it was asked.
 */
async function startFakeDevnet(options: { refuseAirdrop?: boolean } = {}): Promise<{
  url: string;
  server: Server;
  methods: string[];
  airdrops: [string, number][];
}> {
  const methods: string[] = [];
  const airdrops: [string, number][] = [];
  let lamports = 0;
  const context = { slot: 1 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as {
        id: number;
        method: string;
        params: unknown[];
      };
      methods.push(method);
      const answer = (reply: object) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, ...reply }));
      };
      switch (method) {
        case 'getGenesisHash':
          return answer({ result: DEVNET_GENESIS });
        case 'getSlot':
          return answer({ result: 1 });
        case 'requestAirdrop':
          if (options.refuseAirdrop) {
            return answer({
              error: {
                code: 429,
                message:
                  "You've either reached your airdrop limit today or the airdrop faucet has run dry.",
              },
            });
          }
          airdrops.push([params[0] as string, params[1] as number]);
          lamports += params[1] as number;
          return answer({ result: '5'.repeat(88) });
        case 'getSignatureStatuses':
          return answer({
            result: {
              context,
              value: [{ slot: 1, confirmations: null, err: null, confirmationStatus: 'confirmed' }],
            },
          });
        case 'getAccountInfo':
          return answer({ result: { context, value: null } });
        case 'getBalance':
          return answer({ result: { context, value: lamports } });
        default:
          return answer({ error: { code: -32601, message: 'Method not found' } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    methods,
    airdrops,
  };
}
