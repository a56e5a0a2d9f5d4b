import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliUser } from './support/clients/cli';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';

/**
 * The README's quick start on Node 24 (issue 36): the gateway with its embedded network
 * (`npm start`'s `dist/main.js`) and the `tape` CLI's keygen, airdrop, create and deploy, all run
 * by Node 24 on the same install, and the site served. The test command installs Node 24 from
 * the npm registry's `node` package (scripts/install-test-deps.sh); `TAPE_NODE24` names another.
 */
jest.setTimeout(300_000);

const NODE24 = process.env.TAPE_NODE24 ?? '/opt/node24/node_modules/.bin/node';

describe('the README quick start on Node 24', () => {
  let gw: GatewayProcess | undefined;
  let user: CliUser | undefined;

  afterAll(async () => {
    user?.cleanup();
    expect(await gw?.stop()).toBe(0);
  });

  it('starts the gateway, reserves a tape and deploys the example site, served', async () => {
    // No skip: without Node 24 the test fails and says how to get it.
    expect(existsSync(NODE24) ? NODE24 : `missing: run scripts/install-test-deps.sh`).toBe(NODE24);
    const version = spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout.trim();
    expect(version).toMatch(/^v24\./);
    // Node 24 has node:sqlite: the gateway uses it, never the better-sqlite3 addon.
    expect(spawnSync(NODE24, ['-e', "require('node:sqlite')"]).status).toBe(0);

    gw = await startGateway({ node: NODE24, env: { TAPE_LOG_LEVEL: 'info' } });
    const [, ready] = await gw.waitForLine(/^(.*"event":"ready".*)$/m, 30_000);
    expect(ready).toContain('tape-gateway');
    expect(gw.logs()).not.toMatch(/DeprecationWarning|ERR_DLOPEN|EBADENGINE/);

    user = new CliUser(gw, {}, NODE24);
    await user.ok(['keygen']);
    await user.ok(['airdrop']);
    await user.ok(['create', '--capacity', '10m', '--duration', '2h']);
    const index = join(REPO_ROOT, 'examples', 'hello-site', 'index.html');
    const deployed = await user.ok(['deploy', index]);
    const url = /URL:\s+(\S+)/.exec(deployed)?.[1];
    expect(url).toMatch(/^http:\/\/[a-z0-9]+\.localhost:\d+\/$/);
    const info = await user.json<{ tape: string; version: number }>(['info']);
    expect(info.version).toBe(1);
    const page = await fetch(`${gw.url}/site/${info.tape}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-tape-version')).toBe('1');
    expect(await page.text()).toBe(readFileSync(index, 'utf8'));
  });
});
