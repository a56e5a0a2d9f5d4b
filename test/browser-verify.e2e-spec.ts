import { join } from 'node:path';
import { HeadlessChromium, launchChromium } from './support/clients/browser';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LyingGateway, startLyingGateway } from './support/proxies/lying-gateway';

const TIMEOUT_MS = 300_000;

interface PageVerdict {
  ok: boolean;
  reason?: string;
  range?: [number, number];
  version?: number;
}

/**
 * The verifier module the gateway serves (`GET /_tape/verify.js`), run by headless Chromium with
 * WebCrypto: it accepts an honest answer and rejects a tampered one, given the answer, its proof
 * and one RPC answer (docs/verify.md, "In a browser").
 */
describe('the browser verifier module', () => {
  let gw: GatewayProcess;
  let liar: LyingGateway;
  let chromium: HeadlessChromium;
  let u: CliUser;
  let tape: string;
  let root: string;
  const big = Buffer.alloc(150_000);
  for (let i = 0; i < big.length; i++) big[i] = (i * 11) % 251;

  beforeAll(async () => {
    gw = await startGateway();
    liar = await startLyingGateway(gw.url);
    u = new CliUser(gw);
    await u.fundedWallet();
    tape = keyValues(await u.ok(['create', '--capacity', '5m', '--duration', '1d']))[
      'tape address'
    ];
    root = writeSite({
      'index.html': '<h1>home</h1>',
      'a.txt': 'the honest bytes',
      'big.bin': big,
    });
    await u.ok(['deploy', join(root, 'index.html')]);
    chromium = await launchChromium();
  }, TIMEOUT_MS);

  afterAll(async () => {
    await chromium?.close();
    await liar?.close();
    await gw?.stop();
    u?.cleanup();
    if (root) removeSite(root);
  });

  /** The page's check of one path: the module, the answer and the proof from the gateway. */
  const checkInPage = async (path: string): Promise<PageVerdict> => {
    // The one RPC answer (the local network answers no CORS: the test hands it to the page).
    const rpc = (await (
      await fetch(gw.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getAccountInfo',
          params: [tape, { encoding: 'base64' }],
        }),
      })
    ).json()) as { result: unknown };
    const context = await chromium.context();
    try {
      const page = await context.newPage();
      await page.goto(`${liar.url}/healthz`);
      // As a page uses it: one module script importing the gateway's verifier.
      await page.addScriptTag({
        type: 'module',
        content: "import * as m from '/_tape/verify.js'; globalThis.tapeVerifier = m;",
      });
      await page.waitForFunction(() => 'tapeVerifier' in globalThis);
      return await page.evaluate(
        async ({ rpc, tape, path }) => {
          interface VerifierModule {
            verifyAnswer(input: unknown): Promise<PageVerdict>;
            webCryptoSha256: unknown;
          }
          const m = (globalThis as unknown as { tapeVerifier: VerifierModule }).tapeVerifier;
          const res = await fetch(`/site/${tape}${path}`);
          const body = new Uint8Array(await res.arrayBuffer());
          const headers: Record<string, string> = {};
          res.headers.forEach((value, name) => (headers[name] = value));
          const proof: unknown = await (await fetch(`/proof/site/${tape}${path}`)).json();
          return m.verifyAnswer({
            rpc,
            proof,
            body,
            status: res.status,
            headers,
            expect: { tape, path },
            sha256: m.webCryptoSha256,
          });
        },
        { rpc: rpc.result, tape, path },
      );
    } finally {
      await context.close();
    }
  };

  it(
    'accepts honest answers',
    async () => {
      liar.mode = { kind: 'honest' };
      expect(await checkInPage('/a.txt')).toMatchObject({ ok: true, version: 1 });
      expect(await checkInPage('/big.bin')).toMatchObject({ ok: true, version: 1 });
    },
    TIMEOUT_MS,
  );

  it(
    'rejects a tampered answer, naming the bytes',
    async () => {
      liar.mode = { kind: 'flip-byte', offset: 100_000, only: '/big.bin' };
      expect(await checkInPage('/big.bin')).toMatchObject({
        ok: false,
        reason: 'content_mismatch',
        range: [65536, 131071],
      });
      liar.mode = { kind: 'swap-names', a: '/a.txt', b: '/index.html' };
      expect(await checkInPage('/a.txt')).toMatchObject({ ok: false, reason: 'name_not_for_path' });
      liar.mode = { kind: 'forge', bytes: Buffer.from('forged') };
      expect(await checkInPage('/a.txt')).toMatchObject({ ok: false, reason: 'root_mismatch' });
    },
    TIMEOUT_MS,
  );
});
