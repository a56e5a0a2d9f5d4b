import {
  Keypair,
  LAMPORTS_PER_SOL,
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
} from '@solana/web3.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { LocalnetClient } from './support/clients/localnet-client';
import { metricsText, requiredSample } from './support/clients/metrics-text';
import { awsCli } from './support/clients/s3-cli';
import {
  startTapeS3Lab,
  TapeS3Lab,
  tapeWithCredential,
  TapeWithCredential,
} from './support/labs/s3-tape-lab';

interface Health {
  status: string;
  checks: Record<string, string>;
  reasons: string[];
}

/**
 * Issue 36: a writer gateway whose storage-authority key is drained says so on /healthz and in
 * its metrics, and an S3 write through it fails at once naming the key to
 * fund; funded from the local network's faucet, the same process is healthy again and the
 * writes go through.
 */
describe('the storage-authority key runs dry', () => {
  let lab: TapeS3Lab;
  let chain: LocalnetClient;
  let gatewayKey: Keypair;
  let owner: TapeWithCredential;
  let site: string;
  let aws: ReturnType<typeof awsCli>;

  const health = async (): Promise<{ code: number; body: Health }> => {
    const res = await fetch(`${lab.gw.url}/healthz`);
    return { code: res.status, body: (await res.json()) as Health };
  };
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const started = Date.now();
    const result = await work();
    return [result, (Date.now() - started) / 1000];
  };

  beforeAll(async () => {
    lab = await startTapeS3Lab({
      // Read the balance every second (default 30 s) so the drained key is seen at once; info
      // level for the line saying the key is funded again.
      env: { TAPE__GATEWAY__KEY_BALANCE__REFRESH_SECS: '1', TAPE_LOG_LEVEL: 'info' },
    });
    const ws = lab.gw.rpcUrl.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`);
    chain = new LocalnetClient(lab.gw.rpcUrl, ws);
    gatewayKey = Keypair.fromSecretKey(
      Uint8Array.from(
        JSON.parse(readFileSync(join(lab.gw.dataDir, 'gateway-key.json'), 'utf8')) as number[],
      ),
    );
    owner = await tapeWithCredential(lab, { capacity: '1m' });
    aws = awsCli(lab.gw.s3Url, owner.accessKeyId, owner.secret);
    site = writeSite({ 'index.html': '<h1>funded</h1>', 'about.html': '<p>about</p>' });
  }, 120_000);

  afterAll(async () => {
    chain?.close();
    if (site) removeSite(site);
    await lab?.stop();
  });

  it('is degraded and refuses writes at once naming the key; funded, both recover in the same process', async () => {
    const key = gatewayKey.publicKey.toBase58();
    expect((await health()).body.status).toBe('ok');

    // Drain the key: everything but the transfer's own fee goes elsewhere.
    const lamports = await chain.connection.getBalance(gatewayKey.publicKey);
    await sendAndConfirmTransaction(
      chain.connection,
      new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: gatewayKey.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: lamports - 5000,
        }),
      ),
      [gatewayKey],
    );
    expect(await chain.connection.getBalance(gatewayKey.publicKey)).toBe(0);

    await eventually(
      '/healthz says degraded',
      async () => (await health()).body.status === 'degraded',
      ACROSS_PROCESSES,
    );
    const degraded = await health();
    expect(degraded.code).toBe(200); // still ready: sites are served
    expect(degraded.body.checks['key-balance']).toBe(
      `the storage-authority key ${key} holds 0 SOL, less than 0.018 SOL (an hour of expected ` +
        `fees, gateway.key_balance); it cannot pay for one transaction, so S3 writes are ` +
        `refused: fund ${key}`,
    );
    expect(degraded.body.reasons).toEqual([`key-balance: ${degraded.body.checks['key-balance']}`]);
    const metrics = await metricsText(lab.gw);
    expect(requiredSample(metrics, 'tape_storage_authority_balance_lamports')).toBe(0);
    expect(requiredSample(metrics, 'tape_storage_authority_threshold_lamports')).toBe(18_000_000);
    expect(requiredSample(metrics, 'tape_health_check_ok', 'check="key-balance"')).toBe(0);
    expect(requiredSample(metrics, 'tape_health_check_ok', 'check="chain"')).toBe(1);

    // A tenant's deploy is a version whose Publish the tenant's wallet pays: the storage
    // authority only co-signs, so a dry key does not stop it, and pays nothing for it.
    const [deployed, deploySecs] = await timed(() =>
      owner.owner.ok(['deploy', join(site, 'index.html')]),
    );
    console.log(`tape deploy through the unfunded gateway took ${deploySecs.toFixed(2)} s`);
    expect(deployed).toMatch(/^Deployed 2 files \(2 uploaded, 0 unchanged\)$/m);
    expect(await chain.connection.getBalance(gatewayKey.publicKey, 'confirmed')).toBe(0);
    // The gateway's log names the route, status, code and why: no bare "Api Error".
    const logs = lab.gw.logs();
    expect(logs).not.toContain('"msg":"Api Error"');
    expect(logs).toContain('"event":"key_balance_low"');

    // aws-cli does not retry a 507: one request, answered before the body is read.
    const [put, putSecs] = await timed(() =>
      aws('s3', 'cp', join(site, 'about.html'), `s3://${owner.label}/about.html`),
    );
    console.log(`aws s3 cp through the unfunded gateway failed after ${putSecs.toFixed(2)} s`);
    expect(put.code).not.toBe(0);
    expect(put.stderr).toContain('(InsufficientStorage)');
    expect(put.stderr).toContain(`must fund ${key}`);
    expect(lab.gw.logs()).toContain('answered 507 InsufficientStorage: the gateway cannot pay');

    // The operator funds the key from the faucet; no restart.
    await chain.confirm(
      await chain.connection.requestAirdrop(gatewayKey.publicKey, 5 * LAMPORTS_PER_SOL),
    );
    await eventually(
      '/healthz says ok',
      async () => (await health()).body.status === 'ok',
      ACROSS_PROCESSES,
    );
    expect((await health()).body.checks['key-balance']).toBe('ok');
    expect(
      requiredSample(await metricsText(lab.gw), 'tape_storage_authority_balance_lamports'),
    ).toBe(5 * LAMPORTS_PER_SOL);
    expect(await owner.owner.ok(['deploy', join(site, 'index.html')])).toMatch(/^Deployed 2 files/);
    const copied = await aws('s3', 'cp', join(site, 'about.html'), `s3://${owner.label}/copy.html`);
    expect(copied.code).toBe(0);
    expect(lab.gw.logs()).toContain('"event":"key_balance_ok"');
  });
});
