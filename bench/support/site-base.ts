import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { siteGet } from '../../test/support/clients/site-http';
import { PageAnswers, ScriptServer, startPlainNode } from './site-bench-servers';

/**
 * Another build of tape-gateway serving the benchmark's page beside this one, in the same run
 * (`BENCH_SITE_BASE=<checkout>` in bench/site.bench.ts): a change's effect on the site route is
 * smaller than this machine's run-to-run spread, so two builds are only comparable when their
 * rounds alternate. The other checkout must be built (`npm run build`, then
 * `tsc -p tsconfig.bench.json`): its own harness publishes the page with its own CLI to its own
 * chain (the tape program and the site's data model differ between versions), and its reader
 * gateway is metered as this run's is. Its floor is the same plain `node:http` handler with the
 * headers that build sends, so each build is measured against its own floor.
 */
export interface BaseSite {
  /** `git rev-parse --short HEAD` of the other checkout. */
  commit: string;
  gatewayPid: number;
  url: string;
  /** The Host header of its site (label and port). */
  host: string;
  etag: string;
  floor: ScriptServer;
  stop(): Promise<void>;
}

/** The parts of a checkout's test harness this needs, as every layout since issue 18 has them. */
interface BaseGateway {
  url: string;
  port: number;
  rpcUrl: string;
  pid: number;
  stop(): Promise<unknown>;
}
interface BaseHarness {
  startSiteGateway(options: Record<string, unknown>): Promise<BaseGateway>;
  publishSite(gw: BaseGateway, files: Record<string, string>): Promise<{ label: string }>;
}

/** Where the compiled harness lives: the grouped layout (issue 35), then the flat one before it. */
const LAYOUTS = [
  ['test/support/processes/site-gateway.js', 'test/support/labs/site-publish.js'],
  ['test/support/site-gateway.js', 'test/support/site-publish.js'],
];

function loadHarness(checkout: string): BaseHarness {
  // Absolute: `require` resolves a relative path from this file, not from the working directory.
  const compiled = join(resolve(checkout), 'dist-bench');
  for (const [gateway, publish] of LAYOUTS) {
    if (existsSync(join(compiled, gateway)) && existsSync(join(compiled, publish))) {
      /* eslint-disable @typescript-eslint/no-require-imports -- another checkout's build */
      const { startSiteGateway } = require(join(compiled, gateway)) as BaseHarness;
      const { publishSite } = require(join(compiled, publish)) as BaseHarness;
      /* eslint-enable @typescript-eslint/no-require-imports */
      return { startSiteGateway, publishSite };
    }
  }
  throw new Error(
    `${checkout} has no built site harness: run npm run build and tsc -p tsconfig.bench.json there`,
  );
}

/** The other checkout's site: writer, published page, metered reader, and its own floor. */
export async function startBaseSite(
  checkout: string,
  page: string,
  metering: Record<string, unknown>,
): Promise<BaseSite> {
  const harness = loadHarness(checkout);
  const commit = execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], {
    encoding: 'utf8',
  }).trim();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-site-base-'));
  const started: BaseGateway[] = [];
  let floor: ScriptServer | undefined;
  const stop = async () => {
    floor?.child.kill('SIGTERM');
    // The reader and the writer both stop, and the data goes, even when one fails to stop.
    const stopped = await Promise.allSettled(started.map((gw) => gw.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    const failed = stopped.find((outcome) => outcome.status === 'rejected');
    if (failed?.status === 'rejected') throw failed.reason;
  };
  try {
    const writer = await harness.startSiteGateway({ dataDir });
    started.push(writer);
    const site = await harness.publishSite(writer, { 'index.html': page });
    const reader = await harness.startSiteGateway({ dataDir, rpcUrl: writer.rpcUrl, metering });
    started.push(reader);
    const host = `${site.label}.localhost:${reader.port}`;
    const probe = await siteGet(reader.url, '/', { host });
    if (probe.status !== 200 || probe.text !== page) {
      throw new Error(`the base site (${commit}) answers ${probe.status}`);
    }
    const etag = probe.headers.etag as string;
    const revalidated = await siteGet(reader.url, '/', {
      host,
      headers: { 'if-none-match': etag },
    });
    if (revalidated.status !== 304) {
      throw new Error(`the base site (${commit}) answers ${revalidated.status} to a revalidation`);
    }
    const answers: PageAnswers = {
      page: Buffer.from(page),
      etag,
      headers200: sentHeaders(probe.headers),
      headers304: sentHeaders(revalidated.headers),
    };
    floor = await startPlainNode(answers);
    return { commit, gatewayPid: reader.pid, url: reader.url, host, etag, floor, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The headers a server chose to send, without those Node adds to every answer. */
export function sentHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) continue;
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}
