import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import type { ChildProcess } from 'node:child_process';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeConfig } from '../src/chain/account-layouts';
import { COMPUTE_UNITS } from '../src/chain/compute-units';
import { readKeypair, writeKeypair } from '../src/chain/keypair-file';
import { associatedTokenAddress, TapePdas } from '../src/chain/pdas';
import { DEFAULT_TAPE_PROGRAM_ID } from '../src/chain/program-ids';
import {
  createAssociatedTokenAccountIdempotent,
  mintTo,
} from '../src/chain/spl-token-instructions';
import { decodeTokenAccount } from '../src/chain/spl-token-layouts';
import { Tag } from '../src/chain/tape-instruction-data';
import { CliDesk } from './support/labs/cli-desk';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';
import { startRpcFaultProxy } from './support/proxies/rpc-fault-proxy';
import { siteGet } from './support/clients/site-http';

/** `tape network init --json`. */
interface InitJson {
  program_id: string;
  config: { address: string; outcome: string };
  mint: { address: string; outcome: string };
  treasury: { address: string; outcome: string };
  admin: string;
  storage_authority: string;
  price_per_mib_epoch: string;
  epoch_duration_secs: number;
  differences: string[];
  spent_lamports: number;
}

const NO_GATEWAY = { url: 'http://127.0.0.1:9' };

/**
 * A second tape program on a running local network, set up the way an operator sets up devnet:
 * `tape network deploy` under a fresh program id, `tape network init` with the gateway's key as
 * the storage authority, then a gateway (TAPE_PROGRAM_ID) and the CLI (--program-id, the config
 * key program_id) that create a tape on it and publish a site through it.
 */
describe('a second tape program on a running network', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;
  let operator: CliUser;
  let admin: Keypair;
  let gw: GatewayProcess | undefined;
  let dir: string;
  let gatewayDir: string;
  let gatewayKey: string;
  const programId = Keypair.generate();
  const cleanups: (() => void)[] = [];

  beforeAll(async () => {
    net = await startLocalnetProcess({ slotMs: 50 });
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    operator = new CliUser({ ...NO_GATEWAY, rpcUrl: net.rpcUrl });
    await operator.ok(['keygen']);
    await operator.ok(['airdrop', '--sol', '100', '--tokens', '1']);
    admin = readKeypair(join(operator.configDir, 'id.json'));
    dir = mkdtempSync(join(tmpdir(), 'network-init-'));
    gatewayDir = mkdtempSync(join(tmpdir(), 'network-gw-'));
    // The writer gateway's key, read where the gateway will run, as an operator would.
    gatewayKey = (
      await operator.ok(['gateway', 'key'], { env: { TAPE_DATA_DIR: gatewayDir } })
    ).trim();
  });
  afterAll(async () => {
    cleanups.forEach((c) => c());
    await gw?.stop();
    operator?.cleanup();
    client?.close();
    for (const d of [dir, gatewayDir]) if (d) rmSync(d, { recursive: true, force: true });
    await net?.stop();
  });

  const keypairFile = (keypair: Keypair) => {
    const path = join(dir, `${keypair.publicKey.toBase58()}.json`);
    writeKeypair(path, keypair, true);
    return path;
  };
  const init = (id: PublicKey, args: string[], env: Record<string, string> = {}) =>
    operator.json<InitJson>(['network', 'init', '--program-id', id.toBase58(), ...args], { env });
  const INIT_ARGS = () => [
    '--price',
    '0.001',
    '--epoch-duration',
    '1h',
    '--storage-authority',
    gatewayKey,
  ];

  it('deploys and initialises it: mint, treasury, Config; init again changes nothing and never overwrites', async () => {
    const id = programId.publicKey;
    await operator.ok(['network', 'deploy', '--program-keypair', keypairFile(programId)]);
    const out = await init(id, INIT_ARGS());
    expect(out).toMatchObject({
      program_id: id.toBase58(),
      config: { address: new TapePdas(id).config().toBase58(), outcome: 'created' },
      mint: { outcome: 'created' },
      treasury: { outcome: 'created' },
      admin: admin.publicKey.toBase58(),
      storage_authority: gatewayKey,
      price_per_mib_epoch: '1000',
      epoch_duration_secs: 3600,
      differences: [],
    });
    const config = decodeConfig(
      (await client.connection.getAccountInfo(new TapePdas(id).config()))!.data,
    );
    expect(config.mint.toBase58()).toBe(out.mint.address);
    expect(config.treasury.toBase58()).toBe(out.treasury.address);
    const treasury = decodeTokenAccount(
      (await client.connection.getAccountInfo(config.treasury))!.data,
    );
    expect(treasury.owner.equals(admin.publicKey)).toBe(true);
    expect(treasury.mint.equals(config.mint)).toBe(true);

    // What init cost, measured: the rent of three accounts and three transactions' fees.
    const rent = (bytes: number) => client.connection.getMinimumBalanceForRentExemption(bytes);
    const rents = (await rent(82)) + (await rent(165)) + (await rent(154));
    expect(out.spent_lamports).toBe(rents + 3 * 5000);
    console.log(
      `tape network init on the local network: ${(out.spent_lamports / LAMPORTS_PER_SOL).toFixed(9)} SOL ` +
        `(mint 82 bytes, treasury 165 bytes, Config 154 bytes: ${(rents / LAMPORTS_PER_SOL).toFixed(9)} SOL of rent; 3 transactions)`,
    );

    const again = await init(id, INIT_ARGS());
    expect(again).toMatchObject({
      config: { outcome: 'existed' },
      mint: { address: out.mint.address, outcome: 'existed' },
      treasury: { address: out.treasury.address, outcome: 'existed' },
      spent_lamports: 0,
    });
    expect(await init(id, [])).toMatchObject({ config: { outcome: 'existed' }, differences: [] });
    expect(
      await operator.fails([
        'network',
        'init',
        '--program-id',
        id.toBase58(),
        '--price',
        '0.002',
        '--epoch-duration',
        '1h',
      ]),
    ).toBe(
      `the Config of ${id.toBase58()} already exists with other values: price is 1000, not 2000 (a Config is never overwritten)`,
    );
  });

  it('a gateway (TAPE_PROGRAM_ID) and the CLI (--program-id, config key program_id) create a tape and serve a site on it', async () => {
    const id = programId.publicKey;
    // The gateway certifies uploads and pays for it: it needs SOL on this network.
    await client.confirm(
      await client.connection.requestAirdrop(new PublicKey(gatewayKey), 10 * LAMPORTS_PER_SOL),
    );
    gw = await startGateway({
      rpcUrl: net.rpcUrl,
      dataDir: gatewayDir,
      env: { TAPE_PROGRAM_ID: id.toBase58() },
    });
    const user = new CliUser(gw);
    cleanups.push(() => user.cleanup());
    const wallet = await user.fundedWallet();

    // Storage tokens of this program's mint: the admin holds its mint authority.
    const config = decodeConfig(
      (await client.connection.getAccountInfo(new TapePdas(id).config()))!.data,
    );
    const ata = associatedTokenAddress(new PublicKey(wallet), config.mint);
    await client.send(
      [
        createAssociatedTokenAccountIdempotent({
          payer: admin.publicKey,
          associatedAccount: ata,
          owner: new PublicKey(wallet),
          mint: config.mint,
        }),
        mintTo({
          mint: config.mint,
          destination: ata,
          authority: admin.publicKey,
          amount: 1_000_000_000n,
        }),
      ],
      [admin],
    );

    const created = keyValues(
      await user.ok([
        'create',
        '--capacity',
        '1m',
        '--duration',
        '2h',
        '--program-id',
        id.toBase58(),
      ]),
    );
    const tape = new PublicKey(created['tape address']);
    expect((await client.connection.getAccountInfo(tape))!.owner.equals(id)).toBe(true);
    // The payment went to this program's treasury.
    const treasury = decodeTokenAccount(
      (await client.connection.getAccountInfo(config.treasury))!.data,
    );
    expect(treasury.amount).toBeGreaterThan(0n);

    await user.ok(['config', 'set', 'program_id', id.toBase58()]);
    expect((await user.ok(['config', 'get', 'program_id'])).trim()).toBe(id.toBase58());
    const root = writeSite({ 'index.html': '<h1>on the second program</h1>', 'a.txt': 'hello' });
    cleanups.push(() => removeSite(root));
    const deployed = (await user.ok(['deploy', join(root, 'index.html')])).trim().split('\n');
    expect(deployed[0]).toBe('Deployed 2 files (2 uploaded, 0 unchanged)');
    const url = new URL(deployed[2].slice('URL:  '.length));
    const page = await siteGet(gw.url, '/', { host: url.host });
    expect(page.status).toBe(200);
    expect(page.text).toContain('on the second program');
    expect((await siteGet(gw.url, '/a.txt', { host: url.host })).text).toBe('hello');

    // Under the local network's own program that tape does not exist.
    expect(await user.fails(['info', '--program-id', DEFAULT_TAPE_PROGRAM_ID.toBase58()])).toBe(
      `no tape ${tape.toBase58()} on ${net.rpcUrl}`,
    );
  });

  it('init finishes after a crash between its steps, reusing what the first run made', async () => {
    const third = Keypair.generate();
    await operator.ok(['network', 'deploy', '--program-keypair', keypairFile(third)]);
    let sent = 0;
    let cli: ChildProcess | undefined;
    // The mint's transaction goes through; then the network swallows everything and the CLI dies.
    const proxy = await startRpcFaultProxy(net.rpcUrl, (request) => {
      if (sent >= 1) return 'hold';
      if (request.method === 'sendTransaction' && ++sent === 1) {
        setTimeout(() => cli?.kill('SIGKILL'), 500);
      }
      return 'forward';
    });
    try {
      const killed = await operator.run(
        [
          'network',
          'init',
          '--program-id',
          third.publicKey.toBase58(),
          ...INIT_ARGS(),
          '-u',
          proxy.url,
        ],
        { onStderr: (_text, child) => (cli = child) },
      );
      expect(killed.signal).toBe('SIGKILL');
    } finally {
      await proxy.close();
    }
    const resumed = await operator.run([
      'network',
      'init',
      '--program-id',
      third.publicKey.toBase58(),
      ...INIT_ARGS(),
      '--json',
    ]);
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as InitJson;
    expect(out).toMatchObject({
      config: { outcome: 'created' },
      mint: { outcome: 'existed' },
      treasury: { outcome: 'created' },
    });
    expect(resumed.stderr).toContain(`found mint ${out.mint.address} of an earlier run`);
  });

  it('reuses a mint given with --mint and refuses what cannot be initialised', async () => {
    const fourth = Keypair.generate();
    const id = fourth.publicKey.toBase58();
    expect(await operator.fails(['network', 'init', '--program-id', id, ...INIT_ARGS()])).toBe(
      `no program at ${id} on ${net.rpcUrl} (deploy it first: tape network deploy)`,
    );
    await operator.ok(['network', 'deploy', '--program-keypair', keypairFile(fourth)]);
    expect(await operator.fails(['network', 'init', '--program-id', id, '--price', '1'])).toBe(
      `the Config of ${id} does not exist yet; creating it needs --epoch-duration, --storage-authority`,
    );
    expect(
      await operator.fails([
        'network',
        'init',
        '--program-id',
        id,
        ...INIT_ARGS(),
        '--mint',
        gatewayKey,
      ]),
    ).toBe(`${gatewayKey} is not an SPL Token mint`);
    expect(await operator.fails(['network', 'init', '--program-id', 'x', ...INIT_ARGS()])).toBe(
      "bad program id (--program-id) 'x': expected a base58 public key",
    );
    // The local network's storage token, shared: its faucet then pays for tapes on both programs.
    const genesisMint = (await client.networkConfig()).mint;
    const out = await init(fourth.publicKey, [
      ...INIT_ARGS(),
      '--mint',
      genesisMint.toBase58(),
      '--price',
      '0',
    ]);
    expect(out).toMatchObject({
      mint: { address: genesisMint.toBase58(), outcome: 'reused' },
      treasury: { outcome: 'created' },
      price_per_mib_epoch: '0',
    });
  });
});

/** The local network's WebSocket listens on the RPC port + 1. */
function wsUrlOf(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  return `ws://${url.hostname}:${Number(url.port) + 1}`;
}

/** A node that answers like a Solana RPC of another cluster, and records what it was asked. */
async function startForeignNode(
  genesisHash: string,
): Promise<{ url: string; methods: string[]; server: Server }> {
  const methods: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      methods.push(method);
      res.setHeader('content-type', 'application/json');
      const reply =
        method === 'getGenesisHash'
          ? { result: genesisHash }
          : method === 'getSlot'
            ? { result: 1 }
            : { error: { code: -32601, message: 'Method not found' } };
      res.end(JSON.stringify({ jsonrpc: '2.0', id, ...reply }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, methods, server };
}

describe('chain.program_id on the embedded network, faucets and priority fees', () => {
  let gw: GatewayProcess;
  const programId = Keypair.generate().publicKey;
  const desk = new CliDesk();
  const user = (env: Record<string, string> = {}) => desk.user(gw, env);

  beforeAll(async () => {
    gw = await startGateway({ env: { TAPE_PROGRAM_ID: programId.toBase58() } });
  });
  afterAll(async () => {
    desk.cleanup();
    await gw?.stop();
  });

  it('deploys the tape program at TAPE_PROGRAM_ID at genesis, and only there', async () => {
    const client = new LocalnetClient(gw.rpcUrl, wsUrlOf(gw.rpcUrl));
    try {
      expect((await client.connection.getAccountInfo(programId))!.executable).toBe(true);
      expect(await client.connection.getAccountInfo(DEFAULT_TAPE_PROGRAM_ID)).toBeNull();
    } finally {
      client.close();
    }
    const u = user({ TAPE_PROGRAM_ID: programId.toBase58() });
    await u.fundedWallet();
    const created = keyValues(await u.ok(['create', '--capacity', '1m', '--duration', '1h']));
    const root = writeSite({ 'index.html': '<h1>embedded, configured id</h1>' });
    try {
      const out = (await u.ok(['deploy', join(root, 'index.html')])).trim().split('\n');
      expect(out[1]).toBe(`Tape: ${created['tape address']}`);
      const page = await siteGet(gw.url, '/', { host: new URL(out[2].slice(6)).host });
      expect(page.text).toContain('embedded, configured id');
    } finally {
      removeSite(root);
    }
    // Without the id, the CLI looks for the local network's default program and finds no Config.
    const other = user();
    await other.ok(['keygen']);
    expect(await other.fails(['create', '--capacity', '1m', '--duration', '1h'])).toMatch(
      /^the tape program is not initialised on /,
    );
  });

  it('never asks mainnet or an unknown node for funds; asks devnet only for SOL', async () => {
    const u = user();
    await u.ok(['keygen']);
    expect(await u.fails(['airdrop', '-u', 'm'])).toMatch(
      /^mainnet-beta has no faucet \(https:\/\/api\.mainnet-beta\.solana\.com\): /,
    );
    const devnetLike = await startForeignNode('EtWTRABZaYq6iMfeYKouRu166VL2xqa1wcaSToNPCuqx');
    const mainnetLike = await startForeignNode('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    const private_ = await startForeignNode(Keypair.generate().publicKey.toBase58());
    try {
      // devnet's faucet is asked for SOL (this node has none), never the local faucet method.
      expect(await u.fails(['airdrop', '-u', devnetLike.url])).toMatch(
        /^the devnet faucet did not give 1 SOL: .*Method not found.* \(nothing was received;/,
      );
      expect(devnetLike.methods).toContain('requestAirdrop');
      expect(devnetLike.methods).not.toContain('tape_requestStorageTokens');
      expect(await u.fails(['airdrop', '-u', mainnetLike.url])).toMatch(
        new RegExp(`^mainnet-beta has no faucet \\(${mainnetLike.url}\\)`),
      );
      expect(await u.fails(['airdrop', '-u', private_.url])).toBe(
        `the faucet exists only on a local network; ${private_.url} is not one (it has no local-network faucet)`,
      );
      for (const node of [mainnetLike, private_])
        expect(node.methods).not.toContain('requestAirdrop');
    } finally {
      devnetLike.server.close();
      mainnetLike.server.close();
      private_.server.close();
    }
  });

  it('--with-compute-unit-price: the estimate includes the priority fee, and the transaction pays it', async () => {
    const u = user({ TAPE_PROGRAM_ID: programId.toBase58() });
    const wallet = new PublicKey(await u.fundedWallet());
    const PRICE = 1_000_000; // one lamport per compute unit: the fee is the limit
    const limit = COMPUTE_UNITS.tape[Tag.CreateTape] + 2 * COMPUTE_UNITS.computeBudget;
    const dry = (extra: string[]) =>
      u.json<{ cost: { lamports_estimate: number } }>([
        'create',
        '--capacity',
        '1m',
        '--epochs',
        '2',
        '--dry-run',
        ...extra,
      ]);
    const plain = (await dry([])).cost.lamports_estimate;
    const priced = (await dry(['--with-compute-unit-price', String(PRICE)])).cost.lamports_estimate;
    expect(priced - plain).toBe(limit);

    const client = new LocalnetClient(gw.rpcUrl, wsUrlOf(gw.rpcUrl));
    try {
      const before = await client.connection.getBalance(wallet);
      await u.ok([
        'create',
        '--capacity',
        '1m',
        '--epochs',
        '2',
        '--with-compute-unit-price',
        String(PRICE),
      ]);
      const after = await client.connection.getBalance(wallet);
      // The tape's rent, two signatures and the priority fee: exactly the estimate.
      expect(before - after).toBe(priced);
    } finally {
      client.close();
    }
  });
});
