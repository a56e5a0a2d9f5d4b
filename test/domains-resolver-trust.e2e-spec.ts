import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './support/processes/free-port';
import { REPO_ROOT, startGateway } from './support/processes/gateway';

/** Runs `node dist/main.js` with a config file until it exits; its exit code and stderr. */
async function runGateway(
  config: Record<string, unknown>,
): Promise<{ status: number | null; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tape-gw-trust-'));
  try {
    const file = join(dataDir, 'gateway.yaml');
    writeFileSync(file, stringify(config));
    const localnetPort = await freePort(true);
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      TAPE_S3_PORT: String(await freePort()),
      TAPE_ADMIN_PORT: String(await freePort()),
      TAPE_LOCALNET_PORT: String(localnetPort),
      TAPE_DATA_DIR: dataDir,
      TAPE_GATEWAY_CONFIG: file,
      TAPE_LOG_LEVEL: 'warn',
    };
    delete env.TAPE_RPC_URL;
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], { env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.resume();
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    return { status, stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('gateway: DNSSEC answers only from a trusted resolver', () => {
  it('exits 1 with one line naming the key when txt_domains is on and the resolver is remote', async () => {
    const run = await runGateway({
      gateway: { site: { txt_domains: true, dns_resolvers: ['127.0.0.1:5353', '192.0.2.7:53'] } },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'config error: gateway.site.dns_resolvers[1]: 192.0.2.7:53 is not on loopback; with ' +
        'gateway.site.txt_domains on, DNSSEC answers are trusted only from a local validating ' +
        'resolver (docs/domains.md) or with gateway.site.dns_resolvers_trusted: true',
    );
  }, 40_000);

  it('starts with the same remote resolver once the operator marks it trusted', async () => {
    const gw = await startGateway({
      config: {
        gateway: {
          site: { txt_domains: true, dns_resolvers: ['192.0.2.7:53'], dns_resolvers_trusted: true },
        },
      },
    });
    try {
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    } finally {
      await gw.stop();
    }
  }, 60_000);
});
