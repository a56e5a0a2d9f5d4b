import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium } from 'playwright-core';

/** Flags for a headless Chromium that makes no network traffic of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessChromium {
  browser: Browser;
  pid: number;
  /** A new context (its own cookies, cache and storage). */
  context(): Promise<BrowserContext>;
  /** Closes the browser; kills its process by PID if it does not exit. */
  close(): Promise<void>;
}

export interface ChromiumOptions {
  /** Flags on top of CHROMIUM_ARGS, e.g. `--host-resolver-rules=MAP *.example.test 127.0.0.1`. */
  args?: string[];
  /** A root CA (PEM) the browser trusts, as an operator's users trust a public CA. */
  trustedRootCa?: string;
}

/**
 * The Debian `chromium` driven by playwright-core. Each launch gets a fresh temporary profile
 * (user-data-dir), created and removed by Playwright; with `trustedRootCa`, also a temporary
 * HOME whose NSS database (the store Chromium reads on Linux) trusts that CA.
 */
export async function launchChromium(options: ChromiumOptions = {}): Promise<HeadlessChromium> {
  const home = options.trustedRootCa === undefined ? undefined : nssHome(options.trustedRootCa);
  // A browser server exposes its process (so it can be stopped by PID); we drive it through
  // its WebSocket endpoint like any other Playwright browser.
  const server = await chromium.launchServer({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    headless: true,
    ...(home ? { env: { ...process.env, HOME: home } } : {}),
  });
  const pid = server.process().pid;
  if (pid === undefined) {
    await server.kill();
    throw new Error('chromium started without a process id');
  }
  let browser: Browser;
  try {
    browser = await chromium.connect(server.wsEndpoint());
  } catch (err) {
    await server.kill();
    throw err;
  }
  return {
    browser,
    pid,
    context: () => browser.newContext(),
    close: async () => {
      await browser.close().catch(() => undefined);
      await server.close().catch(() => undefined);
      try {
        process.kill(pid, 0);
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      if (home) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A temporary HOME with `~/.pki/nssdb` trusting `rootCa` to issue server certificates. */
function nssHome(rootCa: string): string {
  const home = mkdtempSync(join(tmpdir(), 'chromium-home-'));
  const db = join(home, '.pki', 'nssdb');
  mkdirSync(db, { recursive: true });
  const pem = join(home, 'root.crt');
  writeFileSync(pem, rootCa);
  execFileSync('certutil', ['-d', `sql:${db}`, '-N', '--empty-password']);
  execFileSync('certutil', ['-d', `sql:${db}`, '-A', '-t', 'C,,', '-n', 'test-root', '-i', pem]);
  return home;
}
