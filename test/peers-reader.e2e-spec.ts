import { Keypair, LAMPORTS_PER_SOL, SystemProgram } from '@solana/web3.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChainServices } from '../src/chain/chain.module';
import { validateChainConfig } from '../src/config/config-loader';
import { commitmentOfBuffer, commitmentToHex } from '../src/tracks/commitment';
import { ByteFlippingProxy, startByteFlippingProxy } from './support/proxies/byte-flipping-proxy';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { eventually } from './support/jest/eventually';
import { freePort } from './support/processes/free-port';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';
import { metricsText, sample } from './support/clients/metrics-text';
import { siteGet } from './support/clients/site-http';

/**
 * Any source is safe (issue 33): a reader gateway with peers only — no store, no store
 * credentials, no shared Redis, its own data directory — serves a site deployed through a
 * writer, from bytes it fetches from peer gateways and verifies against the chain. Its first
 * peer lies (a proxy in front of the writer flips a byte of every track it passes on); the
 * reader serves the honest bytes and its metrics name the lie. A byte flipped in the reader's
 * cache file is never served. Both gateways name a dead RPC endpoint first (`TAPE_RPC_URL`
 * comma-separated); the chain services write through such a list too.
 */
describe('a reader with peers only', () => {
  let net: LocalnetProcess;
  let deadRpc: string;
  let writer: GatewayProcess;
  let liar: ByteFlippingProxy;
  let reader: GatewayProcess;
  let user: CliUser;
  let tape: string;
  let siteDir: string;

  const big = Buffer.alloc(3 * 1024 * 1024 + 12_345);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 16)) % 256;
  const files: Record<string, Buffer> = {
    'index.html': Buffer.from('<!doctype html><title>peers</title><h1>served by a peer</h1>'),
    'app.css': Buffer.from('body { color: #123456 }\n'.repeat(40)),
    'img/photo.bin': Buffer.alloc(300_000, 0x5a),
    'big/archive.bin': big,
  };

  beforeAll(async () => {
    net = await startLocalnetProcess();
    deadRpc = `http://127.0.0.1:${await freePort()}`;
    const rpcList = `${deadRpc},${net.rpcUrl}`;
    writer = await startGateway({
      rpcUrl: rpcList,
      config: { chain: { gateway_keypair: join(net.dataDir, 'gateway-key.json') } },
    });
    liar = await startByteFlippingProxy(writer.url);
    reader = await startGateway({
      rpcUrl: rpcList,
      config: { storage: { tracks: { peers: [liar.url, writer.url] } } },
    });
    user = new CliUser({ url: writer.url, rpcUrl: net.rpcUrl });
    await user.fundedWallet();
    tape = keyValues(await user.ok(['create', '--capacity', '20m', '--duration', '1d']))[
      'tape address'
    ];
    siteDir = writeSite(files);
    await user.ok(['deploy', join(siteDir, 'index.html')]);
  }, 240_000);

  afterAll(async () => {
    for (const gw of [reader, writer]) await gw?.stop();
    await liar?.close();
    await net?.stop();
    user?.cleanup();
    if (siteDir) removeSite(siteDir);
  });

  const get = (path: string) => siteGet(reader.url, `/site/${tape}/${path}`);

  it('is a reader with no store: it names its backend and keeps no tracks directory', async () => {
    const health = (await (await fetch(`${reader.url}/healthz`)).json()) as {
      tracks?: { backend?: string };
    };
    expect(health.tracks?.backend).toBe('peers');
    expect(existsSync(join(reader.dataDir, 'tracks'))).toBe(false);
  });

  it('serves every file with the honest bytes although its first peer lies, and its metrics name the lie', async () => {
    for (const [name, bytes] of Object.entries(files)) {
      const res = await get(name === 'index.html' ? '' : name);
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect(res.body.equals(bytes)).toBe(true);
      expect(res.headers['x-tape-version']).toBe('1');
    }
    expect(liar.flipped.length).toBeGreaterThan(0);
    const metrics = await metricsText(reader);
    const liarPeer = new URL(liar.url).origin;
    expect(
      sample(metrics, 'tape_peer_failures_total', `peer="${liarPeer}",reason="bad_bytes"`),
    ).toBeGreaterThanOrEqual(1);
    // The honest peer is never blamed for a lie (a slow answer on a loaded machine may count).
    const honest = new URL(writer.url).origin;
    for (const reason of ['bad_bytes', 'bad_chunk_list', 'wrong_length']) {
      expect(
        sample(metrics, 'tape_peer_failures_total', `peer="${honest}",reason="${reason}"`),
      ).toBe(0);
    }
  });

  it('never serves a byte changed in its cache file: drops it, reads it again from a peer, counts it', async () => {
    const hex = commitmentToHex(commitmentOfBuffer(big).commitment);
    const cached = join(reader.dataDir, 'track-cache', hex);
    expect((await get('big/archive.bin')).body.equals(big)).toBe(true);
    await eventually('the reader caches the big file', () => {
      try {
        return readFileSync(cached).length === big.length;
      } catch {
        return false;
      }
    });
    const onDisk = readFileSync(cached);
    onDisk[2 * 1024 * 1024 + 77] ^= 0x01;
    writeFileSync(cached, onDisk);
    const before = sample(await metricsText(reader), 'tape_track_cache_mismatches_total');
    const again = await get('big/archive.bin');
    expect(again.status).toBe(200);
    expect(again.body.equals(big)).toBe(true);
    expect(sample(await metricsText(reader), 'tape_track_cache_mismatches_total')).toBe(before + 1);
    // The next whole read caches a verified copy again.
    expect((await get('big/archive.bin')).body.equals(big)).toBe(true);
    await eventually('the reader caches the big file again', () => {
      try {
        return readFileSync(cached).equals(big);
      } catch {
        return false;
      }
    });
  });

  it('answers 502 when every peer lies about a file it has not cached', async () => {
    const photo = files['img/photo.bin'];
    const photoTrack = `/tracks/${commitmentToHex(commitmentOfBuffer(photo).commitment)}`;
    // Both peers answer the version's root and nodes honestly and lie about this one file.
    const liars = [
      await startByteFlippingProxy(writer.url, (path) => path === photoTrack),
      await startByteFlippingProxy(writer.url, (path) => path === photoTrack),
    ];
    const lonely = await startGateway({
      rpcUrl: net.rpcUrl,
      config: { storage: { tracks: { peers: liars.map((l) => l.url) } } },
    });
    try {
      const res = await siteGet(lonely.url, `/site/${tape}/img/photo.bin`);
      expect(res.status).toBe(502);
      expect(res.text).toContain('could not be verified');
      expect(liars.map((l) => l.flipped.length)).toEqual([1, 1]);
      const metrics = await metricsText(lonely);
      for (const l of liars) {
        const peer = new URL(l.url).origin;
        expect(
          sample(metrics, 'tape_peer_failures_total', `peer="${peer}",reason="bad_bytes"`),
        ).toBe(1);
      }
      expect(
        (await siteGet(lonely.url, `/site/${tape}/app.css`)).body.equals(files['app.css']),
      ).toBe(true);
    } finally {
      await lonely.stop();
      for (const l of liars) await l.close();
    }
  });

  it('GET /tracks/{hex} answers raw verified bytes, one range, the chunk list, and charges the object byte budget', async () => {
    const photo = files['img/photo.bin'];
    const hex = commitmentToHex(commitmentOfBuffer(photo).commitment);
    const small = await startGateway({
      rpcUrl: net.rpcUrl,
      config: {
        gateway: { metering: { object_bytes: 400_000 } },
        storage: { tracks: { peers: [writer.url] } },
      },
    });
    try {
      const range = await siteGet(writer.url, `/tracks/${hex}`, {
        headers: { range: 'bytes=100-199' },
      });
      expect(range.status).toBe(206);
      expect(range.headers['content-range']).toBe(`bytes 100-199/${photo.length}`);
      expect(range.body.equals(photo.subarray(100, 200))).toBe(true);
      const list = await siteGet(writer.url, `/tracks/${hex}/chunks`);
      expect(list.body.equals(commitmentOfBuffer(photo).chunkHashes)).toBe(true);
      expect((await siteGet(writer.url, `/tracks/${'0'.repeat(64)}`)).status).toBe(404);
      expect((await siteGet(writer.url, '/tracks/XYZ')).status).toBe(400);
      // A reader answers a visitor from its peers; the second 300 KB answer passes 400 KB.
      const first = await siteGet(small.url, `/tracks/${hex}`);
      expect(first.status).toBe(200);
      expect(first.body.equals(photo)).toBe(true);
      expect((await siteGet(small.url, `/tracks/${hex}`)).status).toBe(429);
    } finally {
      await small.stop();
    }
  });

  it('chain services with a dead first RPC endpoint read and write through the next', async () => {
    const chain = new ChainServices(validateChainConfig({ rpc_url: [deadRpc, net.rpcUrl] }));
    try {
      const payer = Keypair.generate();
      await chain.faucet.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL);
      const to = Keypair.generate().publicKey;
      await chain.writer.send(
        [
          SystemProgram.transfer({
            fromPubkey: payer.publicKey,
            toPubkey: to,
            lamports: LAMPORTS_PER_SOL / 10,
          }),
        ],
        [payer],
      );
      expect(await chain.rpc.call((c) => c.getBalance(to))).toBe(LAMPORTS_PER_SOL / 10);
      expect(chain.rpc.url).toBe(net.rpcUrl);
    } finally {
      chain.close();
    }
  });
});
