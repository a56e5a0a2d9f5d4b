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

/**
 * The Debian `chromium` driven by playwright-core. Each launch gets a fresh temporary profile
 * (user-data-dir), created and removed by Playwright.
 */
export async function launchChromium(): Promise<HeadlessChromium> {
  // A browser server exposes its process (so it can be stopped by PID); we drive it through
  // its WebSocket endpoint like any other Playwright browser.
  const server = await chromium.launchServer({
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
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
    },
  };
}
