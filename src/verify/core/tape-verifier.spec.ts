import { createHash } from 'node:crypto';
import { versionedTrackAddress } from '../../object/versioned-track';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { encodeManifest } from '../../tracks/manifest';
import { BuiltVersion, buildVersion } from '../../versions/version-builder';
import { proofEntry } from '../version-proofs';
import { chunkHashesOf, recordedProof, SiteFiles, TAPE, tapeAccount } from './proofs.spec-support';
import {
  objectAddress,
  objectAddressParts,
  ProofTarget,
  readTapePointer,
  RpcAccountAnswer,
  TapeProof,
  verifyAnswer,
  walkVersion,
  webCryptoSha256,
} from './tape-verifier';
import { expectRefused, sha256 } from './verdicts.spec-support';

/** A site of `count` small pages, a directory index, a clean URL, a 404 page and a streamed file. */
function site(count: number, revision = '') {
  const files = new SiteFiles();
  for (let i = 0; i < count; i++)
    files.add(`pages/p-${i}.html`, Buffer.from(`page ${i}${revision}`));
  files.add('index.html', Buffer.from(`home${revision}`));
  files.add('docs/index.html', Buffer.from('docs'));
  files.add('about.html', Buffer.from('about'));
  files.add('404.html', Buffer.from('not here'));
  files.add('big.bin', Buffer.alloc(150_000, 7).fill(1, 70_000)); // 3 chunks
  // A streamed file: 3 segments of 64 KiB (the smallest segment size) and a short one.
  const streamed = Buffer.alloc(3 * 65536 + 100);
  for (let i = 0; i < streamed.length; i++) streamed[i] = (i * 13) % 251;
  const segments = [0, 1, 2, 3].map((i) => {
    const part = streamed.subarray(i * 65536, Math.min(streamed.length, (i + 1) * 65536));
    return { size: part.length, commitment: commitmentOfBuffer(part).commitment.toString('hex') };
  });
  const manifest = encodeManifest({
    type: 'tape-manifest',
    version: 1,
    size: streamed.length,
    segment_bytes: 65536,
    segments,
  });
  files.add(
    'video.bin',
    streamed,
    { kind: 'stream', manifestBytes: manifest.length },
    commitmentOfBuffer(manifest).commitment,
  );
  const { bytes, entries } = files;
  return { version: buildVersion(entries), bytes, entries, manifest };
}

type Site = ReturnType<typeof site>;

/** The tape at version `n` of `current` (none without), keeping `previous` as version n - 1. */
function account(current?: BuiltVersion, n = 1, previous?: BuiltVersion): RpcAccountAnswer {
  const kept: Array<[number, BuiltVersion]> = [];
  if (previous) kept.push([n - 1, previous]);
  if (current) kept.push([n, current]);
  return tapeAccount(42, current ? n : 0, kept);
}

/** What a gateway hands out, built the way the gateway builds it (a recording reader). */
function proofOf(
  s: Site,
  target: { path: string; name: string; status?: 200 | 404 } | { commitment: Buffer },
  version = 1,
): Promise<TapeProof> {
  const proofTarget: ProofTarget =
    'name' in target
      ? { kind: 'site', path: target.path, name: target.name, status: target.status ?? 200 }
      : { kind: 'object', commitment: target.commitment.toString('hex') };
  return recordedProof(s.version, { version, target: proofTarget }, async (reader) => {
    const entry =
      'name' in target
        ? await reader.lookupName(s.version.root, target.name)
        : await reader.lookupCommitment(s.version.root, target.commitment);
    const named = s.entries.find((e) => e.commitment.equals(entry!.commitment))!;
    return {
      entry: proofEntry(entry!, 'name' in target),
      content:
        entry!.location.kind === 'stream'
          ? { manifest: s.manifest.toString('base64') }
          : chunkHashesOf(s.bytes.get(named.name)!),
    };
  });
}

describe('tape verifier core', () => {
  const s = site(1500);
  const rpc = account(s.version);

  it('accepts an honest page whose path goes through branch nodes', async () => {
    expect(s.version.depth.names).toBeGreaterThan(0);
    const proof = await proofOf(s, { path: '/pages/p-777.html', name: 'pages/p-777.html' });
    expect(proof.nodes.length).toBeGreaterThan(1);
    const v = await verifyAnswer({
      rpc,
      proof,
      body: s.bytes.get('pages/p-777.html'),
      status: 200,
      headers: {
        'x-tape-version': '1',
        'x-tape-commitment': proof.entry!.commitment,
        'content-digest': `sha-256=:${createHash('sha256').update(s.bytes.get('pages/p-777.html')!).digest('base64')}:`,
      },
      expect: { tape: TAPE, path: '/pages/p-777.html' },
      sha256,
    });
    expect(v).toMatchObject({ ok: true, version: 1, slot: 42, checkedBytes: 8 });
  });

  it('accepts with WebCrypto, a directory index, a clean URL, the 404 page and a streamed file', async () => {
    for (const [path, name, status] of [
      ['/', 'index.html', 200],
      ['/docs/', 'docs/index.html', 200],
      ['/about', 'about.html', 200],
      ['/nothing.png', '404.html', 404],
      ['/video.bin', 'video.bin', 200],
    ] as const) {
      const proof = await proofOf(s, { path, name, status });
      const v = await verifyAnswer({
        rpc,
        proof,
        body: s.bytes.get(name),
        status,
        sha256: webCryptoSha256,
      });
      expect(v).toMatchObject({ ok: true, file: path });
    }
  });

  it('accepts an /object answer from the previous kept version', async () => {
    const next = site(10, ' v2');
    const entry = s.entries.find((e) => e.name === 'big.bin')!;
    const proof = await proofOf(s, { commitment: entry.commitment }, 1);
    const address = versionedTrackAddress(TAPE, entry.commitment);
    const parts = objectAddressParts(address)!;
    expect(parts).toEqual({ tape: TAPE, commitment: entry.commitment.toString('hex') });
    expect(objectAddress(TAPE, entry.commitment.toString('hex'))).toBe(address);
    const v = await verifyAnswer({
      rpc: account(next.version, 2, s.version),
      proof,
      body: s.bytes.get('big.bin'),
      expect: parts,
      sha256,
    });
    expect(v).toMatchObject({ ok: true, version: 1 });
  });

  it('reads the pointer of the tape record (the current version and the history table, newest first)', () => {
    const data = Buffer.from(
      (account(s.version, 5, s.version).value!.data as string[])[0],
      'base64',
    );
    expect(readTapePointer(data)).toEqual({
      current: 5,
      kept: [
        { version: 5, root: s.version.rootCommitment.toString('hex') },
        { version: 4, root: s.version.rootCommitment.toString('hex') },
      ],
      aliases: [],
    });
    expect(readTapePointer(data.subarray(1))).toBeNull();
  });

  it('walks every entry of a version from its nodes', async () => {
    const walked = await walkVersion(
      s.version.rootCommitment.toString('hex'),
      [s.version.rootBytes, ...s.version.nodes.map((n) => n.bytes)],
      sha256,
    );
    expect(walked.entries.map((e) => e.name).sort()).toEqual(s.entries.map((e) => e.name).sort());
  });

  describe('names the first failure', () => {
    const page = 'pages/p-3.html';
    const path = `/${page}`;
    const check = async (
      change: (p: TapeProof) => void,
      more: Partial<Parameters<typeof verifyAnswer>[0]> = {},
    ) => {
      const proof = await proofOf(s, { path, name: page });
      change(proof);
      return verifyAnswer({ rpc, proof, body: s.bytes.get(page), sha256, ...more });
    };

    it('malformed_proof', async () => {
      expectRefused(await check((p) => Object.assign(p, { format: 'x' })), 'malformed_proof');
      expectRefused(await verifyAnswer({ rpc, proof: 'nope', sha256 }), 'malformed_proof');
    });
    it('wrong_target', async () => {
      expectRefused(await check(() => {}, { expect: { path: '/other.html' } }), 'wrong_target');
      expectRefused(await check(() => {}, { expect: { tape: 'x' } }), 'wrong_target');
    });
    it('no_tape and no_version', async () => {
      expectRefused(
        await check(() => {}, { rpc: { context: { slot: 1 }, value: null } }),
        'no_tape',
      );
      expectRefused(await check(() => {}, { rpc: account() }), 'no_version');
    });
    it('stale_version: an older version served as current', async () => {
      const v = await check(() => {}, { rpc: account(site(3, ' new').version, 2, s.version) });
      expectRefused(v, 'stale_version');
      expect(v.ok === false && v.message).toContain('current version is 2');
    });
    it('version_not_kept', async () => {
      expectRefused(await check((p) => (p.version = 9), {}), 'version_not_kept');
    });
    it('root_mismatch: a version never published', async () => {
      const forged = site(1500, ' forged');
      const proof = await proofOf(forged, { path, name: page });
      expectRefused(
        await verifyAnswer({ rpc, proof, body: forged.bytes.get(page), sha256 }),
        'root_mismatch',
      );
    });
    it('node_mismatch: a path node missing or altered', async () => {
      expectRefused(await check((p) => p.nodes.splice(1, 1)), 'node_mismatch');
      const other = await proofOf(s, { path: '/pages/p-1400.html', name: 'pages/p-1400.html' });
      // The right node count but a node of another place in the tree.
      expectRefused(
        await check((p) => (p.nodes = [p.nodes[0], ...other.nodes.slice(1)])),
        'node_mismatch',
      );
    });
    it('entry_not_found', async () => {
      expectRefused(
        await check(
          (p) =>
            (p.target = {
              kind: 'site',
              path: '/pages/p-3.html5',
              name: 'pages/p-3.html5',
              status: 200,
            }),
        ),
        'entry_not_found',
      );
    });
    it('entry_mismatch', async () => {
      expectRefused(
        await check((p) => (p.entry!.contentType = 'text/javascript')),
        'entry_mismatch',
      );
    });
    it('name_not_for_path: another name proven for the path', async () => {
      const other = await proofOf(s, { path, name: 'pages/p-4.html' });
      expectRefused(
        await verifyAnswer({ rpc, proof: other, body: s.bytes.get('pages/p-4.html'), sha256 }),
        'name_not_for_path',
      );
    });
    it('content_proof_mismatch', async () => {
      expectRefused(
        await check((p) => (p.content = { chunkHashes: Buffer.alloc(32).toString('base64') })),
        'content_proof_mismatch',
      );
      const video = await proofOf(s, { path: '/video.bin', name: 'video.bin' });
      video.content = { manifest: Buffer.from('{}').toString('base64') };
      expectRefused(await verifyAnswer({ rpc, proof: video, sha256 }), 'content_proof_mismatch');
    });
    it('size_mismatch', async () => {
      expectRefused(
        await check(() => {}, { body: Buffer.from('page 3 and more') }),
        'size_mismatch',
        [6, 14],
      );
    });
    it('content_mismatch with the failing chunk or segment', async () => {
      const big = Buffer.from(s.bytes.get('big.bin')!);
      big[70_000] ^= 1;
      const proof = await proofOf(s, { path: '/big.bin', name: 'big.bin' });
      expectRefused(
        await verifyAnswer({ rpc, proof, body: big, sha256 }),
        'content_mismatch',
        [65536, 131071],
      );
      const video = Buffer.from(s.bytes.get('video.bin')!);
      video[3 * 65536 + 5] ^= 1;
      const vproof = await proofOf(s, { path: '/video.bin', name: 'video.bin' });
      expectRefused(
        await verifyAnswer({ rpc, proof: vproof, body: video, sha256 }),
        'content_mismatch',
        [196608, 196707],
      );
    });
    it('header_mismatch: version, commitment, digest, status', async () => {
      expectRefused(
        await check(() => {}, { headers: { 'x-tape-version': '2' } }),
        'header_mismatch',
      );
      expectRefused(
        await check(() => {}, { headers: { 'x-tape-commitment': '00'.repeat(32) } }),
        'header_mismatch',
      );
      expectRefused(
        await check(() => {}, {
          headers: { 'content-digest': `sha-256=:${Buffer.alloc(32).toString('base64')}:` },
        }),
        'header_mismatch',
      );
      expectRefused(await check(() => {}, { status: 404 }), 'header_mismatch');
    });
  });
});
