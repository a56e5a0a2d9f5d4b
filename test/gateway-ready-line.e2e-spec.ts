import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';

/** The first complete line the gateway wrote to stdout. */
const FIRST_LINE = /^(.*)\n/;

async function balanceOf(rpcUrl: string, key: string): Promise<number> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [key] }),
  });
  return ((await res.json()) as { result: { value: number } }).result.value;
}

async function gatewayKey(gw: GatewayProcess): Promise<string> {
  const res = await fetch(`${gw.url}/upload/config`);
  return ((await res.json()) as { gateway_key: string }).gateway_key;
}

/** What the ready line must say about this gateway, as a pattern over the whole line. */
function expectedLine(gw: GatewayProcess, key: string, sol: string): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^tape-gateway \\d+\\.\\d+\\.\\d+ ready: ${esc(gw.url)} \\(sites <label>\\.\\S+, ` +
      `S3 ${esc(gw.s3Url)}, admin ${esc(gw.adminUrl)}, local network RPC ${esc(gw.rpcUrl)}\\); ` +
      `writer, key ${key}, ${esc(sol)} SOL; program [1-9A-HJ-NP-Za-km-z]{32,44}$`,
  );
}

describe('the gateway says where it listens, first (issue 36)', () => {
  let gw: GatewayProcess | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  it('JSON when stdout is not a terminal: the first line is the ready record', async () => {
    gw = await startGateway({ env: { TAPE_LOG_LEVEL: 'info' } });
    const [, first] = await gw.waitForLine(FIRST_LINE, 10_000);
    const record = JSON.parse(first) as Record<string, unknown>;
    const key = await gatewayKey(gw);
    const lamports = await balanceOf(gw.rpcUrl, key);
    expect(record).toMatchObject({
      level: 30,
      event: 'ready',
      url: gw.url,
      s3_url: gw.s3Url,
      admin_url: gw.adminUrl,
      rpc_url: gw.rpcUrl,
      embedded_network: true,
      role: 'writer',
      gateway_key: key,
      balance_lamports: lamports,
    });
    expect(record.msg).toMatch(expectedLine(gw, key, String(lamports / 1e9)));
    // Nest's module and route lines are debug now; the start-up lines held back follow.
    expect(gw.logs()).not.toContain('InstanceLoader');
    expect(gw.logs()).toContain('"context":"s3","event":"listening"');
    // Nothing on stderr either: Node 22+ warned about whatwg-url's `punycode` (DEP0040) when the
    // code cache's require was the caller it saw (src/startup/code-cache.ts).
    expect(gw.logs()).not.toMatch(/Warning/);
  });

  it('--log-format pretty: the first line is the ready line itself, then readable lines', async () => {
    gw = await startGateway({ env: { TAPE_LOG_LEVEL: 'info' }, args: ['--log-format', 'pretty'] });
    const [, first] = await gw.waitForLine(FIRST_LINE, 10_000);
    const key = await gatewayKey(gw);
    const lamports = await balanceOf(gw.rpcUrl, key);
    expect(first).toMatch(expectedLine(gw, key, String(lamports / 1e9)));
    const [, listening] = await gw.waitForLine(/^(.* s3 {2}event=listening url=\S+)$/m, 10_000);
    expect(listening).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}s3 {2}event=listening url=http:/);
    expect(gw.logs()).not.toMatch(/^\{/m);
  });

  it('TAPE_LOG_FORMAT=pretty does the same, and a wrong --log-format stops with a usage line', async () => {
    gw = await startGateway({ env: { TAPE_LOG_LEVEL: 'info', TAPE_LOG_FORMAT: 'pretty' } });
    const [, first] = await gw.waitForLine(FIRST_LINE, 10_000);
    expect(first).toMatch(/^tape-gateway \S+ ready: /);

    const main = join(REPO_ROOT, 'dist', 'main.js');
    const wrong = spawnSync(process.execPath, [main, '--log-format', 'xml'], { encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(
      /^--log-format: expected one of auto, pretty, json, got 'xml'\nusage: /,
    );
    const help = spawnSync(process.execPath, [main, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--log-format');
  });
});
