import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerConfig } from '../src/config/server.config';
import { GATEWAY_NODE_FLAGS } from '../src/node-flags';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';
import { metricsText } from './support/clients/metrics-text';

/**
 * Issue 36's operator kit: the systemd unit passes `systemd-analyze verify` (Debian's systemd)
 * and runs the gateway as `npm start` does; the Prometheus alert rules pass `promtool test
 * rules` (Debian's prometheus) on their unit-test file, and every metric they name is one a
 * running gateway exports.
 */
const DEPLOY = join(REPO_ROOT, 'deploy');
const UNIT = readFileSync(join(DEPLOY, 'tape-gateway.service'), 'utf8');
const RULES = readFileSync(join(DEPLOY, 'prometheus-alerts.yml'), 'utf8');

function run(command: string, args: string[], cwd = DEPLOY) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** `systemd-analyze verify` of `text` as a unit file; its ExecStart's node is this one. */
function verifyUnit(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'tape-unit-'));
  try {
    const file = join(dir, 'tape-gateway.service');
    // The unit names Debian's /usr/bin/node; the machine running the test may keep it elsewhere.
    writeFileSync(
      file,
      text.replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `),
    );
    return run('systemd-analyze', ['verify', file], dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const directive = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(UNIT)?.[1];

describe('deploy/tape-gateway.service', () => {
  it('passes systemd-analyze verify with nothing to say; a misspelt directive would not', () => {
    expect(verifyUnit(UNIT)).toEqual({ code: 0, out: '' });
    const typo = verifyUnit(UNIT.replace('Restart=on-failure', 'Restat=on-failure'));
    expect(typo.out).toContain("Unknown key 'Restat'");
  });

  it('starts dist/main.js with the node flags of npm start, and outlasts the shutdown grace', () => {
    expect(directive('ExecStart')).toBe(
      ['/usr/bin/node', ...GATEWAY_NODE_FLAGS, '/opt/tape-gateway/dist/main.js'].join(' '),
    );
    expect(Number(directive('TimeoutStopSec')) * 1000).toBeGreaterThan(
      new ServerConfig().shutdown_grace_ms,
    );
    expect(UNIT).toMatch(/^Environment=TAPE_DATA_DIR=\/var\/lib\/tape-gateway$/m);
    expect(directive('StateDirectory')).toBe('tape-gateway');
  });
});

describe('deploy/prometheus-alerts.yml', () => {
  let gw: GatewayProcess;
  afterAll(async () => {
    await gw?.stop();
  });

  it('passes promtool check rules and its unit tests (prometheus-alerts.test.yml)', () => {
    const checked = run('promtool', ['check', 'rules', 'prometheus-alerts.yml']);
    expect(checked).toMatchObject({ code: 0 });
    expect(checked.out).toContain('SUCCESS: 10 rules found');
    const tested = run('promtool', ['test', 'rules', 'prometheus-alerts.test.yml']);
    expect(tested.out).toContain('SUCCESS');
    expect(tested.code).toBe(0);
  });

  it('names only metrics a running gateway exports', async () => {
    gw = await startGateway();
    const text = await metricsText(gw);
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const named = new Set(RULES.match(/\btape_[a-z0-9_]+/g));
    expect([...named].sort()).toEqual([
      'tape_health_check_ok',
      'tape_http_requests_total',
      'tape_metering_store_healthy',
      'tape_storage_authority_balance_lamports',
      'tape_storage_authority_threshold_lamports',
      'tape_tls_ask_refusals_total',
    ]);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });
});
