import { commitmentOfBuffer } from '../tracks/commitment';
import { buildVersion } from './version-builder';
import { VersionCertifier } from './version-certifier';
import { ChangedFile, planVersion } from './version-planner';
import { MemoryHoldings } from './version-test-support.spec-support';

/** A directory in memory: name -> bytes. */
function files(dir: Record<string, string | Buffer>): {
  put: ChangedFile[];
  read: (f: ChangedFile) => Promise<Buffer>;
} {
  const bytes = new Map(
    Object.entries(dir).map(([n, b]) => [n, Buffer.isBuffer(b) ? b : Buffer.from(b)]),
  );
  const put = [...bytes].map(([name, b]) => ({
    name,
    commitment: commitmentOfBuffer(b).commitment,
    size: b.length,
    contentType: 'text/plain',
    layout: { kind: 'blob' as const },
  }));
  return { put, read: async (f) => bytes.get(f.name)! };
}

const EMPTY = { entries: [], settings: Buffer.alloc(0) };

describe('planVersion', () => {
  it('packs small files, keeps big ones on their own tracks, and takes settings from _site.json', async () => {
    const big = Buffer.alloc(200_000, 1);
    const dir = files({
      'index.html': '<h1>1</h1>',
      'app.css': 'a{}',
      '_site.json': '{"spa_fallback":true}',
      'big.bin': big,
    });
    const plan = await planVersion(EMPTY, { put: dir.put }, dir.read);
    expect(plan.packs).toHaveLength(1);
    expect(plan.tracks.map((f) => f.name)).toEqual(['big.bin']);
    expect(plan.added).toEqual(['_site.json', 'app.css', 'big.bin', 'index.html']);
    expect(plan.settings.toString()).toBe('{"spa_fallback":true}');
    expect(plan.entries.find((e) => e.name === 'index.html')?.location.kind).toBe('packed');
  });

  it('keeps unchanged files where they are, packs only what changed, and keeps or prunes other names', async () => {
    const first = files({ 'index.html': 'v1', 'app.css': 'a{}', 'old.html': 'old' });
    const v1 = await planVersion(EMPTY, { put: first.put }, first.read);
    const base = { entries: v1.entries, settings: v1.settings };
    const second = files({ 'index.html': 'v2', 'app.css': 'a{}' });

    const kept = await planVersion(base, { put: second.put }, second.read);
    expect(kept.changed).toEqual(['index.html']);
    expect(kept.removed).toEqual([]);
    expect(kept.packs).toHaveLength(1);
    const css = (p: typeof kept) => p.entries.find((e) => e.name === 'app.css')!.location;
    expect(css(kept)).toEqual(css(v1));
    expect(kept.entries.map((e) => e.name).sort()).toEqual(['app.css', 'index.html', 'old.html']);

    const pruned = await planVersion(base, { put: second.put, prune: true }, second.read);
    expect(pruned.removed).toEqual(['old.html']);
    const removed = await planVersion(
      base,
      { put: [], remove: ['old.html', 'app.css'] },
      second.read,
    );
    expect(removed.entries.map((e) => e.name)).toEqual(['index.html']);
    expect(removed.packs).toHaveLength(0);
  });

  it('uploads nothing for bytes the base holds under another name', async () => {
    const first = files({ 'a.txt': 'same bytes', 'index.html': 'i' });
    const v1 = await planVersion(EMPTY, { put: first.put }, first.read);
    const copy = files({ 'b.txt': 'same bytes' });
    const plan = await planVersion(
      { entries: v1.entries, settings: v1.settings },
      { put: copy.put },
      copy.read,
    );
    expect(plan.packs).toHaveLength(0);
    expect(plan.tracks).toHaveLength(0);
    expect(plan.added).toEqual(['b.txt']);
  });

  it('plans versions the certifier accepts once their packs and tracks are held', async () => {
    const holdings = new MemoryHoldings();
    const big = Buffer.alloc(150_000, 3);
    const dir = files({ 'index.html': '<p>x</p>', '_site.json': '{}', 'big.bin': big });
    const plan = await planVersion(EMPTY, { put: dir.put }, dir.read);
    for (const p of plan.packs) holdings.put(p.bytes);
    holdings.put(big);
    const v = buildVersion(plan.entries, plan.settings);
    holdings.putVersion(v);
    const certified = await new VersionCertifier(holdings).certify(
      { commitment: v.rootCommitment, bytes: v.rootBytes.length },
      undefined,
    );
    expect(certified.root.entryCount).toBe(3);
  });
});
