import { VersionFormatError } from './version-entry';
import { buildVersion } from './version-builder';
import { VersionReader } from './version-reader';
import { MemoryNodeSource, fakeEntry, sitePaths } from './version-test-support.spec-support';
import { TreeNode, decodeRoot, encodeNode, encodeRoot, entryBytes } from './version-nodes';

function newReader(...versions: Parameters<MemoryNodeSource['add']>[0][]) {
  const source = new MemoryNodeSource();
  for (const v of versions) source.add(v);
  return { source, reader: new VersionReader(source) };
}

describe('buildVersion and VersionReader', () => {
  it('finds every name and every commitment of a small site inside the root alone', async () => {
    const entries = ['index.html', 'app.css', 'docs/index.html', 'img/logo.png'].map((n) =>
      fakeEntry(n),
    );
    const v = buildVersion(entries, Buffer.from('{"spa_fallback":true}'));
    expect(v.nodes).toHaveLength(0);
    const { source, reader } = newReader(v);
    const root = await reader.root(v.rootCommitment, v.rootBytes.length);
    expect(root.entryCount).toBe(4);
    expect(root.settings.toString()).toBe('{"spa_fallback":true}');
    for (const e of entries) {
      expect((await reader.lookupName(root, e.name))?.commitment).toEqual(e.commitment);
      expect((await reader.lookupCommitment(root, e.commitment))?.size).toBe(1000);
    }
    expect(await reader.lookupName(root, 'missing.html')).toBeUndefined();
    expect(source.reads).toBe(1);
  });

  it('gives the same root for the same entries in any order (one spelling, one commitment)', () => {
    const entries = sitePaths(3000).map((n) => fakeEntry(n));
    const a = buildVersion(entries);
    const b = buildVersion([...entries].reverse());
    expect(a.rootCommitment).toEqual(b.rootCommitment);
    expect(a.nodes.map((n) => n.commitment.toString('hex'))).toEqual(
      b.nodes.map((n) => n.commitment.toString('hex')),
    );
  });

  it('refuses hidden names, repeated names and one commitment with two sizes', () => {
    expect(() => buildVersion([fakeEntry('.env')])).toThrow(VersionFormatError);
    expect(() => buildVersion([fakeEntry('.well-known/.x')])).toThrow(/hidden/);
    expect(() => buildVersion([fakeEntry('.well-known/')])).toThrow(/hidden/);
    // `.well-known/<visible name>` is spelled by the format; the certifier decides (allow list).
    expect(() => buildVersion([fakeEntry('.well-known/security.txt')])).not.toThrow();
    expect(() => buildVersion([fakeEntry('a/.git/config')])).toThrow(/hidden/);
    expect(() => buildVersion([fakeEntry('a.html'), fakeEntry('a.html', 1)])).toThrow(/twice/);
    const twin = { ...fakeEntry('b.html'), commitment: fakeEntry('a.html').commitment, size: 5 };
    expect(() => buildVersion([fakeEntry('a.html'), twin])).toThrow(/size differs/);
  });

  it('holds S3 folder markers and keys with empty segments beside the files under them', async () => {
    const names = ['dir/', 'dir/a.txt', 'dir//b.txt', '/lead.txt', 'a\\b.txt', 'dir/sub/'];
    const v = buildVersion(names.map((n) => fakeEntry(n)));
    const { reader } = newReader(v);
    const root = await reader.root(v.rootCommitment, v.rootBytes.length);
    for (const name of names) expect((await reader.lookupName(root, name))?.name).toBe(name);
    const under = await reader.list(root, { prefix: 'dir/', limit: 10 });
    expect(under.map((e) => e.name)).toEqual(['dir/', 'dir//b.txt', 'dir/a.txt', 'dir/sub/']);
  });

  it('lists names in byte order, after a name and under a prefix, across nodes', async () => {
    const paths = sitePaths(5000);
    const v = buildVersion(paths.map((n) => fakeEntry(n)));
    expect(v.nodes.length).toBeGreaterThan(10);
    const { reader } = newReader(v);
    const root = await reader.root(v.rootCommitment, v.rootBytes.length);
    const sorted = [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const all: string[] = [];
    for await (const e of reader.entries(root)) all.push(e.name);
    expect(all).toEqual(sorted);
    const page = await reader.list(root, { after: sorted[2000], limit: 3 });
    expect(page.map((e) => e.name)).toEqual(sorted.slice(2001, 2004));
    const under = await reader.list(root, { prefix: 'docs/section-07/part-3/', limit: 1000 });
    expect(under.map((e) => e.name)).toEqual(
      sorted.filter((p) => p.startsWith('docs/section-07/part-3/')),
    );
  });

  it('keeps a 100,000-name version within 3 reads a lookup and 64 KiB of new nodes for a one-file change', async () => {
    const paths = sitePaths(100_000);
    const before = buildVersion(paths.map((n) => fakeEntry(n)));
    const changed = paths[42_424];
    const after = buildVersion(paths.map((n) => fakeEntry(n, n === changed ? 1 : 0)));
    const known = new Set(before.nodes.map((n) => n.commitment.toString('hex')));
    const fresh = after.nodes.filter((n) => !known.has(n.commitment.toString('hex')));
    const newBytes = after.rootBytes.length + fresh.reduce((s, n) => s + n.bytes.length, 0);
    expect(newBytes).toBeLessThanOrEqual(64 * 1024);
    expect(after.depth.names).toBeLessThanOrEqual(2);
    expect(after.depth.commits).toBeLessThanOrEqual(2);

    const { source, reader } = newReader(after);
    for (const name of [paths[0], changed, paths[99_999]]) {
      const cold = new VersionReader(source);
      const reads = source.reads;
      const root = await cold.root(after.rootCommitment, after.rootBytes.length);
      const entry = await cold.lookupName(root, name);
      expect(entry?.commitment).toEqual(fakeEntry(name, name === changed ? 1 : 0).commitment);
      expect(source.reads - reads).toBeLessThanOrEqual(3);
      const byCommitment = new VersionReader(source);
      const r2 = await byCommitment.root(after.rootCommitment, after.rootBytes.length);
      expect((await byCommitment.lookupCommitment(r2, entry!.commitment))?.size).toBe(1000);
      expect(byCommitment.reads).toBeLessThanOrEqual(3);
    }
    expect(reader.reads).toBe(0);
  }, 60_000);

  it('refuses a node spliced in from another place, and a root that is not canonical', async () => {
    const a = buildVersion(sitePaths(5000).map((n) => fakeEntry(n)));
    const top = a.root.names;
    if (!('branches' in top)) throw new Error('expected a branch top');
    const swapped = {
      ...a.root,
      names: { ...top, branches: [top.branches[1], top.branches[0], ...top.branches.slice(2)] },
    };
    expect(() => decodeRoot(encodeRoot(swapped))).toThrow(VersionFormatError);
    // Same keys, child of the neighbour: the first-key check catches it when descending.
    const spliced = {
      ...a.root,
      names: {
        ...top,
        branches: [
          {
            ...top.branches[0],
            child: top.branches[1].child,
            childBytes: top.branches[1].childBytes,
          },
          ...top.branches.slice(1),
        ],
      },
    };
    const bytes = encodeRoot(spliced);
    const { reader } = newReader(a);
    const root = decodeRoot(bytes);
    await expect(reader.lookupName(root, sitePaths(5000).sort()[0])).rejects.toThrow(
      /does not match|not stored/,
    );
    const trailing = Buffer.concat([a.rootBytes, Buffer.of(0)]);
    expect(() => decodeRoot(trailing)).toThrow(VersionFormatError);
    expect(() => decodeRoot(a.rootBytes.subarray(0, a.rootBytes.length - 1))).toThrow(
      VersionFormatError,
    );
  });
});

describe('entryBytes', () => {
  it('is the encoded length of every kind of entry and branch, as the tree cutter counts it', () => {
    const packed = {
      ...fakeEntry('p/x.css'),
      metadata: Buffer.from('meta'),
      location: { kind: 'packed' as const, pack: Buffer.alloc(32, 7), packSize: 5000, offset: 10 },
    };
    const streamed = {
      ...fakeEntry('v/movie.mp4'),
      location: { kind: 'stream' as const, manifestBytes: 300 },
    };
    const entries = [fakeEntry('é/ü.html'), packed, streamed];
    const nodes: TreeNode[] = [
      { tree: 'names', level: 0, entries },
      { tree: 'commits', level: 0, entries },
      {
        tree: 'names',
        level: 1,
        branches: [{ key: Buffer.from('é/ü'), child: Buffer.alloc(32), childBytes: 9, count: 1 }],
      },
      {
        tree: 'commits',
        level: 1,
        branches: [{ key: Buffer.alloc(32, 1), child: Buffer.alloc(32), childBytes: 9, count: 1 }],
      },
    ];
    for (const node of nodes) {
      const n = 'branches' in node ? node.branches.length : node.entries.length;
      for (let i = 0; i < n; i++) {
        const one: TreeNode =
          'branches' in node
            ? { ...node, branches: [node.branches[i]] }
            : node.tree === 'names'
              ? { tree: 'names', level: 0, entries: [node.entries[i]] }
              : { tree: 'commits', level: 0, entries: [node.entries[i]] };
        expect(entryBytes(node, i)).toBe(encodeNode(one).length - 7);
      }
    }
  });
});
