import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from './support/processes/free-port';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { CliDesk } from './support/labs/cli-desk';
import { keyValues } from './support/clients/cli';

/**
 * The built `tape` CLI as a subprocess against a real gateway with the local network embedded:
 * every command except deploy (test/cli-deploy.e2e-spec.ts), its output lines and its errors.
 * Epochs last 3 s here so that a tape can expire within a test.
 */
/**
 * it.concurrent does not take the project's testTimeout: each test names its own, roomy: CI
 * machines are shared, and Jest runs another file beside this one (two workers on 2 cores).
 */
const TEST_TIMEOUT_MS = 300_000;

describe('tape CLI', () => {
  const EPOCH_SECS = 3;
  let gw: GatewayProcess;
  const desk = new CliDesk();
  const user = (env: Record<string, string> = {}) => desk.user(gw, env);

  beforeAll(async () => {
    gw = await startGateway({ config: { localnet: { epoch_duration_secs: EPOCH_SECS } } });
  });
  afterAll(async () => {
    desk.cleanup();
    await gw?.stop();
  });

  it.concurrent(
    'answers --help for every command, naming the global options',
    async () => {
      const u = user();
      const root = await u.ok(['--help']);
      for (const name of [
        'keygen',
        'airdrop',
        'balance',
        'create',
        'deploy',
        'object',
        'info',
        'extend',
        'resize',
        'delegate',
        'config',
        'versions',
        'rollback',
        'promote',
        'alias',
        'keep',
      ]) {
        expect(root).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
      }
      const commands = [
        ['keygen'],
        ['airdrop'],
        ['balance'],
        ['create'],
        ['deploy'],
        ['object', 'ls'],
        ['object', 'rm'],
        ['info'],
        ['extend'],
        ['resize'],
        ['delegate'],
        ['config', 'set'],
        ['config', 'get'],
        ['versions'],
        ['rollback'],
        ['promote'],
        ['alias', 'rm'],
        ['keep'],
      ];
      const helps = await Promise.all(commands.map((c) => u.run([...c, '--help'])));
      helps.forEach((r, i) => {
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`Usage: tape ${commands[i].join(' ')}`);
        for (const flag of [
          '-k, --keypair <path>',
          '-u, --url <rpc_url>',
          '--tape <address>',
          '--json',
        ]) {
          expect(r.stdout).toContain(flag);
        }
      });
      expect(helps[3].stdout).toMatch(
        /--capacity <size>[\s\S]*--duration <time>[\s\S]*--epochs <n>[\s\S]*--dry-run/,
      );
      expect(helps[4].stdout).toContain('--prune');
      expect((await u.run(['object'])).code).not.toBe(0);
      expect(await u.fails(['frobnicate'])).toMatch(/unknown command 'frobnicate'/);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'keygen writes id.json (Solana CLI format) and refuses to overwrite it without --force',
    async () => {
      const u = user();
      const out = keyValues(await u.ok(['keygen']));
      const path = join(u.configDir, 'id.json');
      expect(out.keypair).toBe(path);
      const bytes = JSON.parse(readFileSync(path, 'utf8')) as number[];
      expect(bytes).toHaveLength(64);
      expect(await u.fails(['keygen'])).toBe(
        `${path} already exists (use --force to replace it; the old key is then lost)`,
      );
      expect(readFileSync(path, 'utf8')).toBe(JSON.stringify(bytes));
      const again = await u.json<{ pubkey: string }>(['keygen', '--force']);
      expect(again.pubkey).not.toBe(out.pubkey);
      const custom = join(u.configDir, 'other', 'key.json');
      await u.ok(['keygen', '-k', custom]);
      expect(JSON.parse(readFileSync(custom, 'utf8'))).toHaveLength(64);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'airdrop funds the wallet from the faucet; balance shows both balances',
    async () => {
      const u = user();
      const pubkey = keyValues(await u.ok(['keygen'])).pubkey;
      expect(keyValues(await u.ok(['balance']))).toEqual({
        wallet: pubkey,
        SOL: '0',
        'storage tokens': '0',
      });
      const drop = keyValues(await u.ok(['airdrop', '--sol', '2.5', '--tokens', '12.5']));
      expect(drop.received).toBe('2.5 SOL, 12.5 storage tokens');
      const balance = await u.json<{
        lamports: number;
        tokens: string;
        sol: string;
        storage_tokens: string;
      }>(['balance']);
      expect(balance).toMatchObject({
        lamports: 2_500_000_000,
        tokens: '12500000',
        sol: '2.5',
        storage_tokens: '12.5',
      });
      await u.ok(['airdrop']);
      expect(keyValues(await u.ok(['balance']))).toMatchObject({
        SOL: '12.5',
        'storage tokens': '1012.5',
      });
      expect(await u.fails(['airdrop', '--sol', 'lots'])).toMatch(/^bad SOL amount 'lots'/);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'create --dry-run prints the cost and the wallet balance and reserves nothing',
    async () => {
      const u = user();
      await u.fundedWallet();
      const before = await u.json<{ lamports: number; tokens: string }>(['balance']);
      const out = await u.ok(['create', '--capacity', '100m', '--epochs', '24', '--dry-run']);
      const lines = out.trim().split('\n');
      expect(lines.map((l) => l.split(':')[0])).toEqual([
        'capacity',
        'epochs',
        'epoch duration',
        'expires',
        'cost',
        'wallet balance',
        'dry run',
      ]);
      expect(lines[6]).toBe('dry run: nothing was reserved');
      const kv = keyValues(out);
      expect(kv.capacity).toBe('104857600 bytes (100 MiB)');
      const [, active, expiry] = /^active=(\d+) expiry=(\d+)$/.exec(kv.epochs)!.map(Number);
      expect(expiry - active).toBe(24);
      expect(kv['epoch duration']).toBe(`${EPOCH_SECS}s`);
      expect(kv.expires).toMatch(
        /^~\d{4}-\d\d-\d\d \d\d:\d\d UTC \(in (about \d+ \w+|less than a minute)\)$/,
      );
      // 100 MiB x 24 epochs x 1000 base units = 2.4 storage tokens, exactly; SOL is an estimate.
      expect(kv.cost).toMatch(/^2\.4 storage tokens \+ ~0\.\d+ SOL$/);
      expect(kv['wallet balance']).toBe('100000 storage tokens, 50 SOL');
      expect(out).not.toMatch(/tape address|label/);
      expect(await u.json(['balance'])).toEqual(before);
      expect(existsSync(join(u.configDir, 'tapes'))).toBe(false);
      expect(await u.fails(['info'])).toMatch(/^no active tape/);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'create reserves a tape, saves its keypair, makes it active; info, extend, resize, delegate',
    async () => {
      const u = user();
      await u.fundedWallet();
      const created = keyValues(await u.ok(['create', '--capacity', '512k', '--duration', '90s']));
      const tape = created['tape address'];
      expect(tape).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(created.label).toMatch(/^[a-z2-7]{52}$/);
      expect(created.capacity).toBe('524288 bytes (512 KiB)');
      const [, active, expiry] = /^active=(\d+) expiry=(\d+)$/.exec(created.epochs)!.map(Number);
      // 90 s at 3 s per epoch, plus what is left of the current epoch: 30 or 31 epochs.
      expect(expiry - active).toBeGreaterThanOrEqual(30);
      expect(expiry - active).toBeLessThanOrEqual(31);
      expect(created.cost).toMatch(/^0\.031? storage tokens \+ ~0\.\d+ SOL$/);
      expect(readdirSync(join(u.configDir, 'tapes'))).toEqual([`${tape}.json`]);
      expect(JSON.parse(readFileSync(join(u.configDir, 'config.json'), 'utf8')).active_tape).toBe(
        tape,
      );

      const info = keyValues(await u.ok(['info']));
      expect(info).toMatchObject({
        'tape address': tape,
        label: created.label,
        status: 'active',
        capacity: '524288 bytes (512 KiB)',
        used: '0 bytes (0 bytes, 0%)',
        objects: '0',
        epochs: created.epochs,
        delegate: 'none',
        version: 'none',
        URL: `http://${created.label}.localhost:${gw.port}/`,
      });
      expect(info.expires).toMatch(/^~.* UTC \(in about \d+ minutes?\)$/);
      expect(info['kept versions']).toBe('0 (keep 10 newest)');

      const extended = keyValues(await u.ok(['extend', '--epochs', '10']));
      expect(extended.epochs).toBe(`active=${active} expiry=${expiry + 10}`);
      expect(extended.cost).toBe('0.01 storage tokens');
      await u.ok(['extend', '--duration', '30s']);
      const afterDuration = await u.json<Record<string, unknown>>(['info']);
      expect(afterDuration.expiry_epoch).toBe(expiry + 20);
      // The tape records who paid its rent; no version is published yet.
      expect(afterDuration).toMatchObject({
        version: 0,
        root: null,
        kept_bytes: 0,
        keep: 10,
        kept_versions: 0,
      });
      expect(afterDuration.payer).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

      const resized = keyValues(await u.ok(['resize', '--add', '1m']));
      expect(resized.capacity).toBe(`${524288 + 1048576} bytes (1.5 MiB)`);
      expect((await u.json<{ capacity: number }>(['info'])).capacity).toBe(524288 + 1048576);

      const { gateway_key: gatewayKey } = (await (
        await fetch(`${gw.url}/upload/config`)
      ).json()) as { gateway_key: string };
      expect(keyValues(await u.ok(['delegate', gatewayKey])).delegate).toBe(gatewayKey);
      expect((await u.json<{ delegate: string }>(['info'])).delegate).toBe(gatewayKey);
      expect(keyValues(await u.ok(['delegate', '--revoke'])).delegate).toBe('none');
      expect((await u.json<{ delegate: string | null }>(['info'])).delegate).toBeNull();
      expect(await u.fails(['delegate', 'not-a-key'])).toMatch(
        /^bad gateway public key 'not-a-key'/,
      );
      expect(await u.fails(['delegate'])).toMatch(/a gateway public key is required/);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'create fails before signing anything when the wallet cannot pay',
    async () => {
      const u = user();
      await u.ok(['keygen']);
      await u.ok(['airdrop', '--sol', '1', '--tokens', '1']);
      const before = await u.json(['balance']);
      const error = await u.fails(['create', '--capacity', '1g', '--epochs', '100']);
      expect(error).toMatch(
        /^insufficient funds: this tape costs 102\.4 storage tokens and about 0\.\d+ SOL; wallet \S+ has 1 storage tokens and 1 SOL/,
      );
      expect(await u.json(['balance'])).toEqual(before);
      expect(existsSync(join(u.configDir, 'tapes'))).toBe(false);
      // Enough tokens but no SOL for rent and fees: also refused before signing.
      const poor = user();
      await poor.ok(['keygen']);
      await poor.ok(['airdrop', '--sol', '0.001', '--tokens', '1000']);
      expect(await poor.fails(['create', '--capacity', '1m', '--epochs', '1'])).toMatch(
        /^insufficient funds: /,
      );
      expect(existsSync(join(poor.configDir, 'tapes'))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'bad sizes, durations and missing pieces are one line and a non-zero exit',
    async () => {
      const u = user();
      expect(await u.fails(['create', '--capacity', '10q', '--duration', '1h'])).toMatch(
        /^bad capacity '10q': expected/,
      );
      expect(await u.fails(['create', '--capacity', '-5m', '--duration', '1h'])).toMatch(
        /^bad capacity '-5m'/,
      );
      expect(await u.fails(['create', '--capacity', '1m', '--duration', '5'])).toMatch(
        /^bad duration '5' \(a unit is required\)/,
      );
      expect(
        await u.fails(['create', '--capacity', '1m', '--duration', '1h', '--epochs', '3']),
      ).toBe('create: give --duration or --epochs, not both');
      expect(await u.fails(['create', '--duration', '1h'])).toMatch(
        /--capacity <size> is required/,
      );
      expect(await u.fails(['resize', '--add', 'big'])).toMatch(/^bad size 'big'/);
      expect(await u.fails(['extend', '--duration', '2 days'])).toMatch(/^bad duration '2 days'/);
      expect(await u.fails(['balance'])).toBe(
        `no keypair at ${join(u.configDir, 'id.json')} (create one: tape keygen)`,
      );
      await u.ok(['keygen']);
      expect(await u.fails(['info'])).toMatch(/^no active tape \(create one: tape create/);
      expect(await u.fails(['object', 'ls'])).toMatch(/^no active tape/);
      expect(await u.fails(['info', '--tape', 'nope'])).toBe("bad tape address 'nope'");
      const stranger = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
      expect(await u.fails(['info', '--tape', stranger])).toBe(
        `no tape ${stranger} on ${gw.rpcUrl}`,
      );
      expect(await u.fails(['-k', join(u.configDir, 'missing.json'), 'balance'])).toBe(
        `no keypair at ${join(u.configDir, 'missing.json')}`,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'an unreachable RPC or gateway is named in the error',
    async () => {
      const u = user();
      await u.ok(['keygen']);
      const dead = `http://127.0.0.1:${await freePort()}`;
      expect(await u.fails(['balance', '-u', dead])).toBe(`cannot reach the chain RPC at ${dead}`);
      expect(await u.fails(['balance'], { env: { TAPE_RPC_URL: dead } })).toBe(
        `cannot reach the chain RPC at ${dead}`,
      );
      expect(await u.fails(['-u', dead, 'create', '--capacity', '1m', '--epochs', '1'])).toBe(
        `cannot reach the chain RPC at ${dead}`,
      );
      expect(await u.fails(['balance', '-u', 'localhost:8899'])).toMatch(
        /^bad RPC URL 'localhost:8899'/,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'airdrop on a cluster without the faucet says it is for a local network',
    async () => {
      // A JSON-RPC endpoint that, like a public cluster, does not know the faucet method.
      const cluster = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          res.end('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}');
        });
      });
      await new Promise<void>((r) => cluster.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(cluster.address() as AddressInfo).port}`;
      try {
        const u = user();
        await u.ok(['keygen']);
        expect(await u.fails(['airdrop', '-u', url])).toBe(
          `the faucet exists only on a local network; ${url} is not one (it has no local-network faucet)`,
        );
        expect(await u.fails(['airdrop', '-u', gw.url])).toMatch(
          /faucet exists only on a local network/,
        );
      } finally {
        await new Promise((r) => cluster.close(r));
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a tape that expired cannot be extended or resized, with a clear line',
    async () => {
      const u = user();
      await u.fundedWallet();
      await u.ok(['create', '--capacity', '1k', '--epochs', '1']);
      await new Promise((r) => setTimeout(r, (EPOCH_SECS + 1) * 1000));
      expect((await u.json<{ status: string }>(['info'])).status).toBe('expired');
      expect((await u.run(['info'])).stderr).toMatch(
        /^warning: tape \S+ expired .*: it cannot be extended, resized or written to.*no new version can be published/m,
      );
      expect(await u.fails(['extend', '--duration', '1h'])).toMatch(
        /^tape \S+ expired .*\(epoch \d+, ~.* UTC\): it cannot be extended/,
      );
      expect(await u.fails(['resize', '--add', '1k'])).toMatch(
        /^tape \S+ expired .*: it cannot be extended, resized/,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    "a keypair that is not the tape's is refused before anything is signed",
    async () => {
      const owner = user();
      await owner.fundedWallet();
      const tape = keyValues(await owner.ok(['create', '--capacity', '1m', '--epochs', '100']))[
        'tape address'
      ];
      const other = user();
      const otherKey = await other.fundedWallet();
      const before = await other.json(['balance']);
      expect(await other.fails(['delegate', otherKey, '--tape', tape])).toMatch(
        new RegExp(
          `^unauthorized signer: ${otherKey} is not the tape's keypair for tape ${tape} .*pass it with -k\\)$`,
        ),
      );
      expect(await other.fails(['object', 'rm', 'index.html', '--tape', tape])).toMatch(
        new RegExp(`^unauthorized signer: ${otherKey} is not the tape's keypair or its delegate`),
      );
      expect(await other.json(['balance'])).toEqual(before);
      // With the tape's own keypair (-k), the same command works.
      const tapeKey = join(owner.configDir, 'tapes', `${tape}.json`);
      await other.ok(['airdrop', '-k', tapeKey, '--sol', '1', '--tokens', '1']);
      expect(
        keyValues(await other.ok(['delegate', otherKey, '--tape', tape, '-k', tapeKey])).delegate,
      ).toBe(otherKey);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'config set/get keep site_domain, and TAPE_SITE_DOMAIN overrides it',
    async () => {
      const u = user();
      await u.fundedWallet();
      const label = keyValues(await u.ok(['create', '--capacity', '1k', '--epochs', '100'])).label;
      expect((await u.ok(['config', 'get', 'site_domain'])).trim()).toBe('localhost:8080');
      expect(await u.ok(['config', 'set', 'site_domain', 'Sites.Example.NET'])).toBe(
        'site_domain: sites.example.net\n',
      );
      expect(keyValues(await u.ok(['info'])).URL).toBe(`https://${label}.sites.example.net/`);
      expect(
        keyValues(await u.ok(['info'], { env: { TAPE_SITE_DOMAIN: 'localhost:9999' } })).URL,
      ).toBe(`http://${label}.localhost:9999/`);
      expect(await u.fails(['config', 'set', 'site_domain', 'https://x.com/'])).toMatch(
        /^bad site domain/,
      );
      expect(await u.fails(['config', 'get', 'colour'])).toMatch(/^unknown config key 'colour'/);
      const all = await u.json<Record<string, string>>(['config', 'get']);
      expect(all).toMatchObject({ config_dir: u.configDir, site_domain: 'sites.example.net' });
      expect(all.active_tape).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    },
    TEST_TIMEOUT_MS,
  );
});
