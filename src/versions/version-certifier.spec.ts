import { commitmentOfBuffer } from '../tracks/commitment';
import { encodeManifest } from '../tracks/manifest';
import { buildVersion } from './version-builder';
import { CertificationError, VersionCertifier } from './version-certifier';
import { MemoryHoldings, packedEntries } from './version-test-support.spec-support';
import { encodeNode, encodeRoot } from './version-nodes';

function site(holdings: MemoryHoldings, settings = '{"spa_fallback":true}') {
  const small = [
    { name: '_site.json', bytes: Buffer.from(settings) },
    { name: 'app.css', bytes: Buffer.from('body{}') },
    { name: 'index.html', bytes: Buffer.from('<h1>hi</h1>') },
  ];
  const entries = packedEntries(holdings, small);
  const packBytes = entries[0].location.kind === 'packed' ? entries[0].location.packSize : 0;
  const big = Buffer.alloc(100_000, 7);
  entries.push(holdings.blob('big.bin', big, 'application/octet-stream'));
  const seg = Buffer.alloc(70_000, 9);
  const segC = holdings.put(seg);
  const manifest = encodeManifest({
    type: 'tape-manifest',
    version: 1,
    size: seg.length,
    segment_bytes: 65536 * 2,
    segments: [{ size: seg.length, commitment: segC.toString('hex') }],
  });
  entries.push({
    name: 'movie.mp4',
    commitment: holdings.put(manifest),
    size: seg.length,
    contentType: 'video/mp4',
    metadata: Buffer.alloc(0),
    location: { kind: 'stream', manifestBytes: manifest.length },
  });
  return { entries, settings: Buffer.from(settings), packBytes, segC };
}

function newCertifier() {
  const holdings = new MemoryHoldings();
  return { holdings, sut: new VersionCertifier(holdings) };
}

describe('VersionCertifier', () => {
  it('certifies a version whose bytes are all held, and counts its tracks once each', async () => {
    const { holdings, sut } = newCertifier();
    const { entries, settings, packBytes } = site(holdings);
    const v = buildVersion(entries, settings);
    holdings.putVersion(v);
    const certified = await sut.certify(
      { commitment: v.rootCommitment, bytes: v.rootBytes.length },
      undefined,
    );
    const manifestBytes =
      entries[4].location.kind === 'stream' ? entries[4].location.manifestBytes : 0;
    expect(certified.versionBytes).toBe(
      v.rootBytes.length + packBytes + 100_000 + manifestBytes + 70_000,
    );
    expect(certified.addedBytes).toBe(certified.versionBytes);
    const again = await sut.certify(
      { commitment: v.rootCommitment, bytes: v.rootBytes.length },
      certified.tracks,
    );
    expect(again.addedBytes).toBe(0);
  });

  it('refuses a version referencing bytes the gateway does not hold, naming the file', async () => {
    const { holdings, sut } = newCertifier();
    const { entries, settings, segC } = site(holdings);
    const v = buildVersion(entries, settings);
    holdings.putVersion(v);
    holdings.tracks.delete(segC.toString('hex'));
    await expect(
      sut.certify({ commitment: v.rootCommitment, bytes: v.rootBytes.length }, undefined),
    ).rejects.toThrow(/"movie.mp4": a segment of it is not held/);
  });

  it('refuses a packed file whose range does not hash to its commitment', async () => {
    const { holdings, sut } = newCertifier();
    const { entries, settings } = site(holdings);
    const lying = entries.map((e) =>
      e.name === 'app.css'
        ? { ...e, commitment: commitmentOfBuffer(Buffer.from('evil')).commitment }
        : e,
    );
    const v = buildVersion(lying, settings);
    holdings.putVersion(v);
    await expect(
      sut.certify({ commitment: v.rootCommitment, bytes: v.rootBytes.length }, undefined),
    ).rejects.toThrow(/"app.css": its range of the pack does not match/);
  });

  it('refuses settings that are not the bytes of _site.json', async () => {
    const { holdings, sut } = newCertifier();
    const { entries } = site(holdings);
    const v = buildVersion(entries, Buffer.from('{"spa_fallback":false}'));
    holdings.putVersion(v);
    await expect(
      sut.certify({ commitment: v.rootCommitment, bytes: v.rootBytes.length }, undefined),
    ).rejects.toThrow(CertificationError);
  });

  it('refuses a root that decodes but is not the canonical tree of its entries, and a hidden name', async () => {
    const { holdings, sut } = newCertifier();
    const entries = Array.from({ length: 300 }, (_, i) => {
      const bytes = Buffer.from(`file ${i}`);
      return {
        name: `f${i}.txt`,
        commitment: holdings.put(bytes),
        size: bytes.length,
        contentType: 'text/plain',
        metadata: Buffer.alloc(0),
        location: { kind: 'blob' as const },
      };
    });
    const canonical = buildVersion(entries);
    // All 300 entries in the root's top: decodable, but the canonical tree cuts them.
    const sorted = [...entries].sort((a, b) =>
      Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)),
    );
    const flat = encodeRoot({
      ...canonical.root,
      names: { tree: 'names', level: 0, entries: sorted },
    });
    const c = holdings.put(flat);
    await expect(sut.certify({ commitment: c, bytes: flat.length }, undefined)).rejects.toThrow(
      /not the canonical tree/,
    );

    const hidden = Buffer.from(
      encodeNode({ tree: 'names', level: 0, entries: [{ ...entries[0], name: 'a/.env' }] }),
    );
    const root = Buffer.concat([
      Buffer.from('tape-version-v1'),
      Buffer.alloc(8, 0),
      Buffer.alloc(8, 0),
      Buffer.alloc(4, 0),
      hidden,
      encodeNode({ tree: 'commits', level: 0, entries: [] }),
    ]);
    root.writeUInt32LE(1, 15);
    const rc = holdings.put(root);
    await expect(sut.certify({ commitment: rc, bytes: root.length }, undefined)).rejects.toThrow(
      /hidden name/,
    );
  });
});

describe('VersionCertifier and .well-known/ names', () => {
  function withWellKnown(holdings: MemoryHoldings, names: string[]) {
    const { entries, settings } = site(holdings);
    for (const name of names) {
      const bytes = Buffer.from(`Contact: mailto:security@example.com (${name})`);
      entries.push(holdings.blob(name, bytes));
    }
    const v = buildVersion(entries, settings);
    holdings.putVersion(v);
    return { commitment: v.rootCommitment, bytes: v.rootBytes.length };
  }

  it('refuses any .well-known/ name by default, naming the setting', async () => {
    const { holdings, sut } = newCertifier();
    const version = withWellKnown(holdings, ['.well-known/security.txt']);
    await expect(sut.certify(version, undefined)).rejects.toThrow(
      new CertificationError(
        '".well-known/security.txt": .well-known/ names are not published by this gateway unless its operator allows them (gateway.site.well_known_allow)',
      ),
    );
  });

  it('certifies the names the operator allows, and only those', async () => {
    const holdings = new MemoryHoldings();
    const sut = new VersionCertifier(holdings, new Set(['.well-known/security.txt']));
    const allowed = withWellKnown(holdings, ['.well-known/security.txt']);
    const certified = await sut.certify(allowed, undefined);
    expect(certified.versionBytes).toBeGreaterThan(0);
    const other = withWellKnown(holdings, [
      '.well-known/security.txt',
      '.well-known/apple-app-site-association',
    ]);
    await expect(sut.certify(other, undefined)).rejects.toThrow(
      /"\.well-known\/apple-app-site-association": \.well-known\/ names are not published/,
    );
  });
});

describe('VersionCertifier, with the facts of the version it certified before', () => {
  /** Holdings that count reads of whole tracks and holding checks. */
  function counted() {
    const { holdings, sut } = newCertifier();
    let reads = 0;
    let looks = 0;
    const readTrack = holdings.readTrack.bind(holdings);
    const holds = holdings.holds.bind(holdings);
    holdings.readTrack = (c, n) => {
      reads++;
      return readTrack(c, n);
    };
    holdings.holds = (c, n) => {
      looks++;
      return holds(c, n);
    };
    return { holdings, sut, io: () => ({ reads, looks }) };
  }

  /** 600 blob files (a tree of several nodes) plus the site's packed and streamed files. */
  function bigSite(holdings: MemoryHoldings) {
    const { entries, settings } = site(holdings);
    for (let i = 0; i < 600; i++) {
      const bytes = Buffer.from(`page ${i}`);
      entries.push(holdings.blob(`docs/p${i}.html`, bytes, 'text/html'));
    }
    return { entries, settings };
  }

  const ref = (v: ReturnType<typeof buildVersion>) => ({
    commitment: v.rootCommitment,
    bytes: v.rootBytes.length,
  });

  it('reads only the new root, the nodes on changed paths and the new bytes; same answer as a full certification', async () => {
    const { holdings, sut, io } = counted();
    const { entries, settings } = bigSite(holdings);
    const v1 = buildVersion(entries, settings);
    holdings.putVersion(v1);
    const first = await sut.certify(ref(v1), undefined);
    expect(first.facts.nodes.size).toBeGreaterThan(v1.nodes.length);

    const extra = Buffer.from('a new page');
    const added = {
      ...entries[10],
      name: 'docs/new.html',
      commitment: holdings.put(extra),
      size: extra.length,
    };
    const v2 = buildVersion([...entries, added], settings);
    holdings.putVersion(v2);
    const before = io();
    const quick = await sut.certify(ref(v2), first.tracks, first.facts);
    const spent = { reads: io().reads - before.reads, looks: io().looks - before.looks };
    const v1Nodes = new Set(v1.nodes.map((n) => n.commitment.toString('hex')));
    const changedNodes = v2.nodes.filter((n) => !v1Nodes.has(n.commitment.toString('hex')));
    // Root + changed nodes + the settings file's pack (settings are compared each time).
    expect(spent.reads).toBeLessThanOrEqual(1 + changedNodes.length + 1);
    expect(spent.looks).toBe(1);

    const again = new VersionCertifier(holdings);
    const slow = await again.certify(ref(v2), first.tracks);
    expect(quick.versionBytes).toBe(slow.versionBytes);
    expect(quick.addedBytes).toBe(slow.addedBytes);
    expect([...quick.tracks].sort()).toEqual([...slow.tracks].sort());
  });

  it('still refuses a new entry that reuses a checked pack at another offset, or a trusted node where it does not belong', async () => {
    const { holdings, sut } = newCertifier();
    const { entries, settings } = bigSite(holdings);
    const v1 = buildVersion(entries, settings);
    holdings.putVersion(v1);
    const first = await sut.certify(ref(v1), undefined);

    // Same commitment and pack as app.css, another offset: a new fact, checked, refused.
    const css = entries.find((e) => e.name === 'app.css')!;
    if (css.location.kind !== 'packed') throw new Error('app.css is packed');
    const moved = entries.map((e) =>
      e.name === 'app.css' && e.location.kind === 'packed'
        ? { ...e, location: { ...e.location, offset: e.location.offset + 1 } }
        : e,
    );
    const forged = buildVersion(moved, settings);
    holdings.putVersion(forged);
    await expect(sut.certify(ref(forged), first.tracks, first.facts)).rejects.toThrow(
      /"app.css": its range of the pack does not match/,
    );

    // A trusted node named by a branch that lies about it (another first key): the node
    // comes from the facts, not the store, and is still checked against the branch.
    const top = v1.root.names;
    if (!('branches' in top)) throw new Error('600 names make a branch top');
    const lying = encodeRoot({
      ...v1.root,
      names: {
        ...top,
        branches: top.branches.map((b, i) =>
          i === 1 ? { ...b, key: Buffer.concat([b.key, Buffer.from('~')]) } : b,
        ),
      },
    });
    expect(first.facts.nodes.has(top.branches[1].child.toString('hex'))).toBe(true);
    const c = holdings.put(lying);
    await expect(
      sut.certify({ commitment: c, bytes: lying.length }, first.tracks, first.facts),
    ).rejects.toThrow(/does not match the branch that names it/);
  });

  it('trusts nothing of a fact set whose bytes were not held: a missing new blob is still refused', async () => {
    const { holdings, sut } = newCertifier();
    const { entries, settings } = bigSite(holdings);
    const v1 = buildVersion(entries, settings);
    holdings.putVersion(v1);
    const first = await sut.certify(ref(v1), undefined);
    const missing = {
      ...entries[20],
      name: 'docs/missing.html',
      commitment: commitmentOfBuffer(Buffer.from('never uploaded')).commitment,
      size: 14,
    };
    const v2 = buildVersion([...entries, missing], settings);
    holdings.putVersion(v2);
    await expect(sut.certify(ref(v2), first.tracks, first.facts)).rejects.toThrow(
      /"docs\/missing.html": its bytes are not held/,
    );
  });
});
