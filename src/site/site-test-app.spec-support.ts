import { Module } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { APP_FILTER } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  inject as lightInject,
  type DispatchFunc,
  type InjectOptions,
  type Response as LightResponse,
} from 'light-my-request';
import { Keypair } from '@solana/web3.js';
import { AllExceptionsFilter } from '../http/all-exceptions.filter';
import { ChainModule } from '../chain/chain.module';
import { ConfigModule } from '../config/config.module';
import { validateConfig } from '../config/config-loader';
import { HealthModule } from '../health/health.module';
import { commitmentOfBuffer } from '../tracks/commitment';
import { TrackStore } from '../tracks/track-store';
import { rewriteTarget } from '../http/target-rewrite';
import { SiteModule } from './site.module';
import {
  NO_VERSION,
  SiteObject,
  SitePointer,
  SiteRead,
  SiteSource,
  TapeStatus,
} from './site-source';
import { versionObjects } from './version-objects';
import { StoreVersionNodes } from '../versions/store-version-nodes';
import { buildVersion } from '../versions/version-builder';
import { VersionEntry } from '../versions/version-entry';
import { TapePointerFeed } from '../chain/tape-pointer-feed';
import { labelFromAddress } from '../chain/tape-label';
import { compileSiteRules, encodeSiteRules } from '../versions/rules/site-rules';

/** Stands in for ChainModule: the test's site source reads no chain. */
@Module({})
class NoChainModule {}

/** Tapes and their objects in memory (the chain's part); bytes go to the real track store. */
export class MemorySiteSource extends SiteSource {
  readonly tapes = new Map<
    string,
    { status: TapeStatus; objects: SiteObject[]; pointer?: SitePointer }
  >();
  /** Every read: the names asked for, and whether the tape's status was. */
  readonly reads: { tape: string; names: readonly string[]; withStatus: boolean }[] = [];

  constructor(private readonly store: () => TrackStore) {
    super();
  }

  /** Reads that asked for the tape's status. */
  get statusReads(): number {
    return this.reads.filter((r) => r.withStatus).length;
  }

  async read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead> {
    this.reads.push({ tape, names, withStatus });
    const site = this.tapes.get(tape);
    return {
      status: withStatus ? (site?.status ?? { kind: 'unknown' }) : undefined,
      pointer: withStatus ? (site?.pointer ?? NO_VERSION) : undefined,
      objects: names.map((name) => site?.objects.find((o) => o.name === name) ?? null),
    };
  }

  async readVersion(root: Buffer, names: readonly string[]): Promise<(SiteObject | null)[]> {
    const nodes = new StoreVersionNodes(this.store());
    return versionObjects(nodes.reader(), await nodes.root(root), names);
  }

  async versionSettings(root: Buffer): Promise<Buffer> {
    return (await new StoreVersionNodes(this.store()).root(root)).settings;
  }

  async pointers(tapes: readonly string[]): Promise<SitePointer[]> {
    return tapes.map((tape) => this.tapes.get(tape)?.pointer ?? NO_VERSION);
  }

  override async versionRules(root: Buffer): Promise<Buffer> {
    return (await new StoreVersionNodes(this.store()).root(root)).rules;
  }

  async readWhole(object: SiteObject): Promise<Buffer> {
    const chunks: Buffer[] = [];
    if (object.size === 0) return Buffer.alloc(0);
    for await (const c of this.store().openRange(
      object.commitment,
      object.size,
      0,
      object.size - 1,
    )) {
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks);
  }
}

export interface SiteTestApp {
  app: NestFastifyApplication;
  /**
   * A request injected into the HTTP server's request listener, as a socket's would reach it:
   * through the main listener (the site edge first), then Fastify (Fastify's own `inject` starts
   * after the listener).
   */
  inject(options: InjectOptions): Promise<LightResponse>;
  source: MemorySiteSource;
  store: TrackStore;
  /** A new active tape with these files (name -> body, content type from a small table). */
  addSite(
    files: Record<string, string | Buffer>,
    status?: TapeStatus,
    versioned?: { rules?: Buffer },
  ): Promise<{ tape: string; label: string }>;
  /**
   * Publishes a version of these files on `tape` (a new active tape when absent): live, or
   * under `alias`; every version stays kept. Pointers do not move by themselves: tell the
   * directory (`SiteDirectory.pointerChanged`) as the subscription would.
   */
  publish(
    files: Record<string, string | Buffer>,
    options?: { tape?: string; alias?: string; settings?: string; rules?: Buffer },
  ): Promise<{ tape: string; label: string; pointer: SitePointer }>;
  /** SetCurrent: a kept version becomes the live one (rollback, promote). */
  setCurrent(tape: string, version: number): SitePointer;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  json: 'application/json',
  png: 'image/png',
  txt: 'text/plain; charset=utf-8',
  pdf: 'application/pdf',
};

export async function newSiteTestApp(
  site: Record<string, unknown> = {},
  metering: Record<string, unknown> = {},
): Promise<SiteTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'site-app-'));
  const config = validateConfig({ gateway: { site, metering }, storage: { data_dir: dataDir } });
  const holder: { store?: TrackStore } = {};
  const source = new MemorySiteSource(() => holder.store!);
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), HealthModule, SiteModule],
    providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
  })
    .overrideProvider(SiteSource)
    .useValue(source)
    // No chain to subscribe to: pointers never change here.
    .overrideProvider(TapePointerFeed)
    .useValue({ watch: () => ({ close: () => undefined }) })
    // The site source is in memory: no chain behind it, no RPC connection to open.
    .overrideModule(ChainModule)
    .useModule(NoChainModule)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(
    new FastifyAdapter({
      rewriteUrl: rewriteTarget,
      routerOptions: { ignoreDuplicateSlashes: false, maxParamLength: 8192 },
    }),
    { logger: false, bodyParser: false },
  );
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const store = app.get(TrackStore);
  holder.store = store;

  /**
   * `versioned`: the tape is at version 1 whose root carries `rules` (by default the compiled
   * `_redirects`/`_headers` among the files, as the planner makes them).
   */
  async function addSite(
    files: Record<string, string | Buffer>,
    status?: TapeStatus,
    versioned?: { rules?: Buffer },
  ) {
    if (versioned) {
      const fileBytes = (name: string) =>
        files[name] === undefined ? undefined : Buffer.from(files[name]);
      const rules =
        versioned.rules ??
        encodeSiteRules(
          compileSiteRules({ redirects: fileBytes('_redirects'), headers: fileBytes('_headers') }),
        );
      const published = await publish(files, { rules });
      if (status) source.tapes.get(published.tape)!.status = status;
      return { tape: published.tape, label: published.label };
    }
    const tape = Keypair.generate().publicKey.toBase58();
    const objects: SiteObject[] = [];
    for (const [name, body] of Object.entries(files)) {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
      const { commitment } = commitmentOfBuffer(bytes);
      await store.put(commitment, bytes.length, Readable.from([bytes]));
      const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
      objects.push({
        name,
        kind: 'blob',
        commitment,
        commitmentHex: commitment.toString('hex'),
        size: bytes.length,
        contentType: TYPES[ext] ?? 'application/octet-stream',
      });
    }
    source.tapes.set(tape, {
      status: status ?? { kind: 'active', expiresInMs: 3_600_000 },
      objects,
    });
    return { tape, label: labelFromAddress(tape) };
  }

  async function publish(
    files: Record<string, string | Buffer>,
    options: { tape?: string; alias?: string; settings?: string; rules?: Buffer } = {},
  ) {
    const tape = options.tape ?? Keypair.generate().publicKey.toBase58();
    const entries: VersionEntry[] = [];
    for (const [name, body] of Object.entries(files)) {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
      const { commitment } = commitmentOfBuffer(bytes);
      if (!(await store.has(commitment))) {
        await store.put(commitment, bytes.length, Readable.from([bytes]));
      }
      const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
      entries.push({
        name,
        commitment,
        size: bytes.length,
        contentType: TYPES[ext] ?? 'application/octet-stream',
        metadata: Buffer.alloc(0),
        location: { kind: 'blob' },
      });
    }
    const built = buildVersion(entries, Buffer.from(options.settings ?? ''), options.rules);
    for (const bytes of [built.rootBytes, ...built.nodes.map((n) => n.bytes)]) {
      const { commitment } = commitmentOfBuffer(bytes);
      if (!(await store.has(commitment))) {
        await store.put(commitment, bytes.length, Readable.from([bytes]));
      }
    }
    const site = source.tapes.get(tape) ?? {
      status: { kind: 'active', expiresInMs: 3_600_000 } as TapeStatus,
      objects: [],
    };
    const p = site.pointer ?? NO_VERSION;
    const n = (p.history.at(-1)?.version ?? 0) + 1;
    const live = options.alias === undefined;
    const pointer: SitePointer = {
      version: live ? n : p.version,
      root: live ? built.rootCommitment : p.root,
      sequence: p.sequence + 1,
      history: [...p.history, { version: n, root: built.rootCommitment }],
      aliases: live
        ? p.aliases
        : [
            ...p.aliases.filter((a) => a.name !== options.alias),
            { name: options.alias!, version: n },
          ],
    };
    source.tapes.set(tape, { ...site, pointer });
    return { tape, label: labelFromAddress(tape), pointer };
  }

  function setCurrent(tape: string, version: number): SitePointer {
    const site = source.tapes.get(tape)!;
    const p = site.pointer!;
    const kept = p.history.find((v) => v.version === version)!;
    const pointer = { ...p, version, root: kept.root, sequence: p.sequence + 1 };
    source.tapes.set(tape, { ...site, pointer });
    return pointer;
  }

  const server = app.getHttpServer();
  const inject = (options: InjectOptions): Promise<LightResponse> => {
    const [listener] = server.listeners('request') as DispatchFunc[];
    return lightInject((req, res) => listener.call(server, req, res), options);
  };

  return {
    app,
    inject,
    source,
    store,
    addSite,
    publish,
    setCurrent,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A suite's site test app with one site on it, filled in by the suite's `beforeAll`. */
export interface SiteTestFixture {
  app: SiteTestApp;
  tape: string;
  label: string;
}

/**
 * Starts a site test app with one site of these files before the suite's tests and closes it
 * after them. Call inside a `describe`; read the fields inside hooks and tests.
 */
export function useSiteTestApp(
  files: Record<string, string | Buffer>,
  options: {
    site?: Record<string, unknown>;
    versioned?: { rules?: Buffer };
    timeout?: number;
  } = {},
): SiteTestFixture {
  const fixture = {} as SiteTestFixture;
  beforeAll(async () => {
    fixture.app = await newSiteTestApp(options.site);
    Object.assign(fixture, await fixture.app.addSite(files, undefined, options.versioned));
  }, options.timeout);
  afterAll(() => fixture.app?.close());
  return fixture;
}
