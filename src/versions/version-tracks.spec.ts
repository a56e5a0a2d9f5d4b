import { buildVersion } from './version-builder';
import { VersionReader } from './version-reader';
import { publishSizes, totalBytes, versionTracks } from './version-tracks';
import { MemoryNodeSource, fakeEntry, sitePaths } from './version-test-support.spec-support';
import { VersionEntry } from './version-entry';

async function tracksOf(entries: VersionEntry[]) {
  const v = buildVersion(entries);
  const source = new MemoryNodeSource().add(v);
  const reader = new VersionReader(source);
  const node = await reader.root(v.rootCommitment, v.rootBytes.length);
  const segments = async (e: VersionEntry) => [
    { commitment: Buffer.alloc(32, e.name.length), size: 8 },
    { commitment: Buffer.alloc(32, 99), size: 2 },
  ];
  return {
    v,
    tracks: await versionTracks(
      reader,
      { commitment: v.rootCommitment, bytes: v.rootBytes.length, node },
      segments,
    ),
  };
}

describe('versionTracks and publishSizes', () => {
  it('count every track once: root, nodes, blobs, packs shared by files, manifests and segments', async () => {
    const pack = Buffer.alloc(32, 5);
    const entries: VersionEntry[] = [
      fakeEntry('index.html', 0, 300),
      {
        ...fakeEntry('a.css', 0, 10),
        location: { kind: 'packed', pack, packSize: 4000, offset: 0 },
      },
      {
        ...fakeEntry('b.css', 0, 20),
        location: { kind: 'packed', pack, packSize: 4000, offset: 100 },
      },
      { ...fakeEntry('movie.mp4', 0, 10), location: { kind: 'stream', manifestBytes: 150 } },
    ];
    const { v, tracks } = await tracksOf(entries);
    expect(tracks.get(v.rootCommitment.toString('hex'))).toBe(v.rootBytes.length);
    expect(tracks.get(pack.toString('hex'))).toBe(4000);
    expect(tracks.get(Buffer.alloc(32, 99).toString('hex'))).toBe(2);
    expect(totalBytes(tracks)).toBe(v.rootBytes.length + 300 + 4000 + 150 + 8 + 2);
  });

  it('charge a changed version only the tracks its base does not hold, with the base bytes as the bound', async () => {
    const paths = sitePaths(3000);
    const base = await tracksOf(paths.map((n) => fakeEntry(n)));
    const next = await tracksOf(paths.map((n) => fakeEntry(n, n === paths[7] ? 1 : 0)));
    const { versionBytes, addedBytes } = publishSizes(next.tracks, base.tracks);
    expect(versionBytes).toBe(totalBytes(next.tracks));
    expect(addedBytes).toBeGreaterThanOrEqual(1000);
    expect(addedBytes).toBeLessThan(1000 + 64 * 1024);
    expect(versionBytes).toBeLessThanOrEqual(totalBytes(base.tracks) + addedBytes);
    expect(publishSizes(next.tracks, undefined).addedBytes).toBe(versionBytes);
  });
});
