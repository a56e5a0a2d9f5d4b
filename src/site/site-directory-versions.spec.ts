import { testDirectoryOptions } from './site-directory-options.spec-support';
import { SiteDirectory } from './site-directory';
import { SiteTarget } from './site-routing';
import {
  NO_VERSION,
  SiteObject,
  SitePointer,
  SiteRead,
  SiteSource,
  TapeStatus,
} from './site-source';
import { versionObjects } from './version-objects';
import { SiteResponder } from './site-responder';
import { SiteBodyCache } from './site-body-cache';
import { PAGES } from './site-pages';
import { ObjectReader } from '../tracks/object-reader';
import { buildVersion, BuiltVersion } from '../versions/version-builder';
import { VersionReader } from '../versions/version-reader';
import { fakeEntry, MemoryNodeSource } from '../versions/version-test-support.spec-support';

const TAPE = 'TapeAddress1111111111111111111111111111111';

/** A chain whose tape points at versions held in memory; reads are recorded. */
class VersionedSource extends SiteSource {
  status: TapeStatus = { kind: 'active', expiresInMs: 3_600_000 };
  pointer: SitePointer = NO_VERSION;
  readonly nodes = new MemoryNodeSource();
  readonly reads: { names: readonly string[]; withStatus: boolean }[] = [];
  readonly versionReads: string[][] = [];
  /** While set, pointer reads wait on it (a read in flight when the pointer moves). */
  gate: Promise<void> | null = null;

  /** Publishes live, or under `alias` (the current version stays), keeping every version. */
  publish(version: BuiltVersion, alias?: string): SitePointer {
    this.nodes.add(version);
    const p = this.pointer;
    const n = (p.history.at(-1)?.version ?? 0) + 1;
    const history = [...p.history, { version: n, root: version.rootCommitment }];
    const aliases =
      alias === undefined
        ? p.aliases
        : [...p.aliases.filter((a) => a.name !== alias), { name: alias, version: n }];
    const live = alias === undefined;
    this.pointer = {
      version: live ? n : p.version,
      root: live ? version.rootCommitment : p.root,
      sequence: p.sequence + 1,
      history,
      aliases,
    };
    return this.pointer;
  }

  /** SetCurrent: a kept version becomes current (rollback, promote). */
  setCurrent(n: number): SitePointer {
    const kept = this.pointer.history.find((v) => v.version === n)!;
    this.pointer = {
      ...this.pointer,
      version: n,
      root: kept.root,
      sequence: this.pointer.sequence + 1,
    };
    return this.pointer;
  }

  async read(_tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead> {
    this.reads.push({ names, withStatus });
    const pointer = this.pointer;
    if (this.gate) await this.gate;
    // A versioned tape has no Name accounts.
    return {
      status: this.status,
      pointer: withStatus ? pointer : undefined,
      objects: names.map(() => null),
    };
  }

  async readVersion(root: Buffer, names: readonly string[]): Promise<(SiteObject | null)[]> {
    this.versionReads.push([...names]);
    const reader = new VersionReader(this.nodes);
    const bytes = this.nodes.tracks.get(root.toString('hex'))!.length;
    return versionObjects(reader, await reader.root(root, bytes), names);
  }

  async versionSettings(root: Buffer): Promise<Buffer> {
    const bytes = this.nodes.tracks.get(root.toString('hex'))!.length;
    return (await new VersionReader(this.nodes).root(root, bytes)).settings;
  }

  async pointers(tapes: readonly string[]): Promise<SitePointer[]> {
    return tapes.map(() => this.pointer);
  }

  async readWhole(): Promise<Buffer> {
    throw new Error('settings of a version come from its root');
  }
}

function newVersionedDirectory() {
  const source = new VersionedSource();
  const clock = { ms: 0 };
  const warnings: string[] = [];
  const sut = new SiteDirectory(source, {
    ...testDirectoryOptions(clock, warnings),
    schedule: (run) => setImmediate(run),
  });
  const resolve = async (rawPath: string) => {
    const snapshot = await sut.lookup(TAPE, rawPath);
    return { snapshot, target: await sut.route(snapshot, rawPath) };
  };
  const advanceSecs = (s: number) => (clock.ms += s * 1000);
  return { sut, source, warnings, resolve, advanceSecs };
}

/** `200 name <commitment prefix>`, or the kind of answer. */
function answer(target: SiteTarget): string {
  return target.kind === 'object'
    ? `${target.status} ${target.object.name} ${target.object.commitmentHex.slice(0, 8)}`
    : target.kind;
}

const revision = (name: string, r: number) =>
  fakeEntry(name, r).commitment.toString('hex').slice(0, 8);
const settled = () => new Promise((r) => setImmediate(r));

describe('SiteDirectory: a tape with a published version', () => {
  it('resolves paths in the version the pointer names, with X-Tape-Version in its policy', async () => {
    const { source, resolve } = newVersionedDirectory();
    source.publish(
      buildVersion(
        [
          fakeEntry('index.html'),
          fakeEntry('docs/index.html'),
          fakeEntry('about.html'),
          fakeEntry('404.html'),
        ],
        Buffer.from('{"max_age_secs": 30, "spa_fallback": true}'),
      ),
    );
    const root = await resolve('/');
    expect(root.snapshot.version).toBe(1);
    expect(root.snapshot.policy.version).toBe('1');
    expect(answer(root.target)).toBe(`200 index.html ${revision('index.html', 0)}`);
    // _site.json's settings come from the root: max-age 30 and the fallback.
    expect(root.snapshot.policy.cacheControl).toBe('public, max-age=30, must-revalidate');
    expect(answer((await resolve('/docs')).target)).toBe('add-slash');
    expect(answer((await resolve('/about')).target)).toBe(
      `200 about.html ${revision('about.html', 0)}`,
    );
    expect(answer((await resolve('/app/route')).target)).toBe(
      `200 index.html ${revision('index.html', 0)}`,
    );
    expect(answer((await resolve('/x.png')).target)).toBe(
      `404 404.html ${revision('404.html', 0)}`,
    );
    expect(answer((await resolve('/.well-known/acme-challenge/t')).target)).toBe('not-found');
  });

  it('warns once per version that its _site.json is over the limit, and serves it with the defaults', async () => {
    const { source, resolve, warnings } = newVersionedDirectory();
    // A version's root carries no settings for a _site.json over 64 KiB.
    source.publish(
      buildVersion([fakeEntry('index.html'), fakeEntry('_site.json', 0, 70_000)], Buffer.alloc(0)),
    );
    const first = await resolve('/');
    expect(answer(first.target)).toBe(`200 index.html ${revision('index.html', 0)}`);
    expect(first.snapshot.policy.cacheControl).toBe('public, max-age=60, must-revalidate');
    expect(warnings).toEqual([
      `site ${TAPE}: _site.json is 70000 bytes, over the 65536-byte limit: ignored`,
    ]);
  });

  it("keeps a version's names for good (immutable): no read after the first, synchronous hits", async () => {
    const { sut, source, resolve, advanceSecs } = newVersionedDirectory();
    source.publish(buildVersion([fakeEntry('index.html'), fakeEntry('404.html')]));
    const first = await resolve('/');
    const versionReads = source.versionReads.length;
    advanceSecs(40); // past 3/4 of the snapshot's life: it is refreshed in the background
    const again = sut.lookup(TAPE, '/');
    expect(again).toBe(first.snapshot);
    const target = sut.route(first.snapshot, '/');
    expect(target).not.toBeInstanceOf(Promise);
    await settled();
    expect(source.versionReads.length).toBe(versionReads);
  });

  it('never mixes versions: a snapshot answers from its own version after the pointer moved', async () => {
    const { sut, source, resolve } = newVersionedDirectory();
    source.publish(buildVersion([fakeEntry('index.html', 1), fakeEntry('app.1.js')]));
    const old = await resolve('/');
    const next = source.publish(buildVersion([fakeEntry('index.html', 2), fakeEntry('app.2.js')]));
    sut.pointerChanged(TAPE, next);
    // A request that already holds the old snapshot finishes in version 1, whole.
    expect(answer(await sut.route(old.snapshot, '/app.1.js'))).toBe(
      `200 app.1.js ${revision('app.1.js', 0)}`,
    );
    expect(answer(await sut.route(old.snapshot, '/'))).toBe(
      `200 index.html ${revision('index.html', 1)}`,
    );
    // Every later request is in version 2, whole.
    const now = await resolve('/');
    expect([now.snapshot.version, now.snapshot.policy.version]).toEqual([2, '2']);
    expect(answer(now.target)).toBe(`200 index.html ${revision('index.html', 2)}`);
    expect(answer(await sut.route(now.snapshot, '/app.1.js'))).toBe('not-found');
    expect(now.snapshot.routes).not.toBe(old.snapshot.routes);
    expect(now.snapshot.prepared).not.toBe(old.snapshot.prepared);
  });

  it('ignores a notification of the pointer it already serves', async () => {
    const { sut, source, resolve } = newVersionedDirectory();
    const pointer = source.publish(buildVersion([fakeEntry('index.html')]));
    const first = await resolve('/');
    const reads = source.reads.length;
    sut.pointerChanged(TAPE, pointer);
    expect(sut.lookup(TAPE, '/')).toBe(first.snapshot);
    expect(source.reads.length).toBe(reads);
  });

  it('reads the pointer again when a read in flight returned an older version than announced', async () => {
    const { sut, source, resolve } = newVersionedDirectory();
    source.publish(buildVersion([fakeEntry('index.html', 1)]));
    await resolve('/');
    // The RPC node is behind the notification: the next read still says version 1.
    let open!: () => void;
    source.gate = new Promise((r) => (open = r));
    const lagging = source.pointer; // what the lagging node says
    sut.pointerChanged(TAPE, { ...lagging, version: 2, root: Buffer.alloc(32, 7), sequence: 2 });
    const stale = sut.lookup(TAPE, '/');
    const next = source.publish(buildVersion([fakeEntry('index.html', 2)]));
    source.pointer = lagging;
    source.gate = null;
    open();
    expect((await stale).version).toBe(1);
    source.pointer = next; // the node catches up
    let version = 1;
    for (let i = 0; i < 50 && version !== 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      version = (await sut.lookup(TAPE, '/')).version;
    }
    expect(version).toBe(2);
  });

  it('a tape without a version is served from its names, without X-Tape-Version', async () => {
    const { source, resolve } = newVersionedDirectory();
    source.pointer = NO_VERSION;
    const { snapshot, target } = await resolve('/');
    expect([snapshot.version, snapshot.policy.version, target.kind]).toEqual([
      0,
      undefined,
      'not-found',
    ]);
    expect(source.versionReads).toEqual([]);
  });

  it('puts X-Tape-Version on its answers: files, 304s, redirects and its 404 page', async () => {
    const { source, resolve } = newVersionedDirectory();
    source.publish(buildVersion([fakeEntry('index.html')]));
    source.publish(buildVersion([fakeEntry('index.html', 2)]));
    const { snapshot, target } = await resolve('/');
    const reader = {} as ObjectReader;
    const responder = new SiteResponder(reader, new SiteBodyCache(reader, 1 << 20, 1 << 16));
    if (target.kind !== 'object') throw new Error('no object');
    const p = responder.prepared({ snapshot, object: target.object, status: 200, shared: false });
    expect(p.identity.full['x-tape-version']).toBe('2');
    expect(p.identity.notModified['x-tape-version']).toBe('2');
    // The entry's commitment, as its proof states it (docs/verify.md, "Headers on every answer").
    const commitment = fakeEntry('index.html', 2).commitment.toString('hex');
    expect(p.identity.full['x-tape-commitment']).toBe(commitment);
    expect(p.identity.notModified['x-tape-commitment']).toBe(commitment);
    const redirect = responder.redirect(snapshot.policy, '/docs/', true);
    expect(headerOf(redirect.headers, 'x-tape-version')).toBe('2');
    const notFound = responder.page(PAGES.notFound, snapshot.policy);
    expect(headerOf(notFound.headers, 'x-tape-version')).toBe('2');
    // The gateway's own pages (no site) carry none.
    expect(headerOf(responder.page(PAGES.noSite).headers, 'x-tape-version')).toBeUndefined();
  });
});

describe('SiteDirectory: kept versions by number and alias (views)', () => {
  const pinned = (version: number) => ({ kind: 'pinned', version }) as const;
  const alias = (name: string) => ({ kind: 'alias', name }) as const;

  it('serves a kept version by number: its own names and settings, immutable, noindex', async () => {
    const { sut, source, resolve } = newVersionedDirectory();
    source.publish(
      buildVersion(
        [fakeEntry('index.html', 1), fakeEntry('old.html')],
        Buffer.from('{"spa_fallback": true}'),
      ),
    );
    source.publish(buildVersion([fakeEntry('index.html', 2)]));
    const { snapshot } = await resolve('/');
    expect(snapshot.version).toBe(2);
    const view = await sut.view(snapshot, pinned(1));
    expect(view).not.toBeNull();
    expect([view!.version, view!.policy.version, view!.policy.robots]).toEqual([1, '1', 'noindex']);
    expect(view!.policy.cacheControl).toBe('public, max-age=31536000, immutable');
    expect(view!.policy.spaFallback).toBe(true); // version 1's _site.json, not version 2's
    expect(answer(await sut.route(view!, '/old.html'))).toBe(
      `200 old.html ${revision('old.html', 0)}`,
    );
    expect(answer(await sut.route(view!, '/'))).toBe(`200 index.html ${revision('index.html', 1)}`);
    // The live snapshot is untouched: no robots, its own cache control, no old.html.
    expect(snapshot.policy.robots).toBeUndefined();
    expect(snapshot.policy.cacheControl).toBe('public, max-age=60, must-revalidate');
    expect(answer(await sut.route(snapshot, '/old.html'))).toBe('not-found');
    // Made once per snapshot: the second ask is the same view, synchronously.
    expect(sut.view(snapshot, pinned(1))).toBe(view);
  });

  it('answers null for a version the tape does not keep and an unknown alias', async () => {
    const { sut, source, resolve } = newVersionedDirectory();
    source.publish(buildVersion([fakeEntry('index.html')]));
    const { snapshot } = await resolve('/');
    expect(sut.view(snapshot, pinned(2))).toBeNull();
    expect(sut.view(snapshot, pinned(9007199254740991))).toBeNull();
    expect(sut.view(snapshot, alias('pr-1'))).toBeNull();
    expect(snapshot.views.size).toBe(0);
  });

  it('serves an alias with the live revalidation; an alias change or a rollback is a new pointer', async () => {
    const { sut, source, resolve } = newVersionedDirectory();
    source.publish(buildVersion([fakeEntry('index.html', 1)]));
    source.publish(buildVersion([fakeEntry('index.html', 2)]), 'pr-7');
    const first = await resolve('/');
    expect(first.snapshot.version).toBe(1); // the alias left the live version alone
    const preview = await sut.view(first.snapshot, alias('pr-7'));
    expect([preview!.version, preview!.policy.robots]).toEqual([2, 'noindex']);
    expect(preview!.policy.cacheControl).toBe('public, max-age=60, must-revalidate');
    expect(answer(await sut.route(preview!, '/'))).toBe(
      `200 index.html ${revision('index.html', 2)}`,
    );

    // The alias moves to a new version: same live version and root, a new sequence.
    const moved = source.publish(buildVersion([fakeEntry('index.html', 3)]), 'pr-7');
    sut.pointerChanged(TAPE, moved);
    const second = await resolve('/');
    expect(second.snapshot).not.toBe(first.snapshot);
    const again = await sut.view(second.snapshot, alias('pr-7'));
    expect(answer(await sut.route(again!, '/'))).toBe(
      `200 index.html ${revision('index.html', 3)}`,
    );

    // Promote (SetCurrent to the alias's version): "/" is version 3 at once.
    sut.pointerChanged(TAPE, source.setCurrent(3));
    const promoted = await resolve('/');
    expect(promoted.snapshot.version).toBe(3);
    expect(answer(promoted.target)).toBe(`200 index.html ${revision('index.html', 3)}`);
    // Rollback to 1: a lower version, a higher sequence: seen as well.
    sut.pointerChanged(TAPE, source.setCurrent(1));
    const rolledBack = await resolve('/');
    expect(rolledBack.snapshot.version).toBe(1);
    expect(answer(rolledBack.target)).toBe(`200 index.html ${revision('index.html', 1)}`);
  });
});

function headerOf(list: readonly string[], name: string): string | undefined {
  for (let i = 0; i < list.length; i += 2) if (list[i] === name) return list[i + 1];
  return undefined;
}
