import { buildVersion, BuiltVersion } from '../../versions/version-builder';
import { fakeEntry, sitePaths } from '../../versions/version-test-support.spec-support';
import { rootFrame, verifyVersionDownload } from './version-download';

function framed(parts: Buffer[]): Buffer {
  return Buffer.concat(
    parts.flatMap((p) => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(p.length);
      return [length, p];
    }),
  );
}

function newTestCase(names = 3000) {
  const entries = sitePaths(names).map((n) => fakeEntry(n));
  const v = buildVersion(entries, Buffer.from('{"spa_fallback":true}'));
  const body = (built: BuiltVersion = v, nodes = built.nodes.map((n) => n.bytes)) =>
    framed([built.rootBytes, ...nodes]);
  return { v, entries, body };
}

describe('verifyVersionDownload', () => {
  it('returns every entry, the settings and the manifest tracks of a version with nodes', async () => {
    const { v, entries, body } = newTestCase();
    expect(v.nodes.length).toBeGreaterThan(2);
    const got = await verifyVersionDownload(v.rootCommitment, body());
    expect(got.entries.map((e) => e.name)).toEqual(entries.map((e) => e.name).sort());
    expect(got.settings.toString()).toBe('{"spa_fallback":true}');
    expect(got.manifestTracks.size).toBe(1 + v.nodes.length);
    expect(got.manifestTracks.get(v.rootCommitment.toString('hex'))).toBe(v.rootBytes.length);
  });

  it('refuses a root other than the one on chain', async () => {
    const { v, body } = newTestCase();
    const other = buildVersion([fakeEntry('index.html')]);
    await expect(verifyVersionDownload(v.rootCommitment, body(other))).rejects.toThrow(
      /does not hash to the root on chain/,
    );
  });

  it('refuses a download that lacks a node, or splices in a node of another version', async () => {
    const { v, body, entries } = newTestCase();
    const nodes = v.nodes.map((n) => n.bytes);
    await expect(verifyVersionDownload(v.rootCommitment, body(v, nodes.slice(1)))).rejects.toThrow(
      /lacks node/,
    );
    // Another version whose one leaf differs: its node hashes to another commitment.
    const changed = buildVersion(entries.map((e, i) => (i === 10 ? fakeEntry(e.name, 1) : e)));
    const foreign = changed.nodes
      .map((n) => n.bytes)
      .filter((b) => !nodes.some((o) => o.equals(b)));
    expect(foreign.length).toBeGreaterThan(0);
    const spliced = nodes.map((b, i) => (i === 0 ? foreign[0] : b));
    await expect(verifyVersionDownload(v.rootCommitment, body(v, spliced))).rejects.toThrow(
      /lacks node/,
    );
  });

  it('refuses a body cut short', async () => {
    const { v, body } = newTestCase();
    const whole = body();
    await expect(
      verifyVersionDownload(v.rootCommitment, whole.subarray(0, whole.length - 3)),
    ).rejects.toThrow(/cut short/);
  });

  it('rootFrame finds the root once its bytes are in', () => {
    const { v, body } = newTestCase(10);
    const whole = body();
    expect(rootFrame(whole.subarray(0, 3))).toBeUndefined();
    expect(rootFrame(whole.subarray(0, 4 + v.rootBytes.length - 1))).toBeUndefined();
    expect(rootFrame(whole)!.equals(v.rootBytes)).toBe(true);
  });
});
