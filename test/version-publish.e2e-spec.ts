import { Keypair, PublicKey } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { currentVersion } from '../src/chain/tape-history';
import { VersionConflictError } from '../src/chain/chain-error';
import { UploadSigner } from '../src/cli/deploy/upload-signer';
import { errorOf, GatewayRefusalError } from '../src/cli/versions/version-publisher';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { encodeRoot } from '../src/versions/version-nodes';
import { requestMessage } from '../src/upload/version-request-auth';
import { startVersionLab, stopVersionLab, VersionLab } from './support/labs/version-lab';
import { TestTape } from './support/clients/upload-client';
import { putVersionBytes, VersionSite } from './support/fixtures/version-site';

/**
 * Publishing versions through a real gateway on the embedded network (docs/versions.md): bytes
 * uploaded with no account, only what the gateway lacks; the Publish certified and co-signed by
 * the gateway, signed and sent by the publisher; compare-and-swap; refusals.
 */
const SEGMENT = 256 * 1024;
const KiB = 1024;

let lab: VersionLab;
let gatewayKey: PublicKey;
const site = new VersionSite(SEGMENT);

beforeAll(async () => {
  lab = await startVersionLab({
    env: { TAPE__STORAGE__SEGMENT_BYTES: String(SEGMENT) },
    capacity: 8 << 20,
  });
  gatewayKey = new PublicKey(lab.config.gatewayKey);
  site.write('index.html', '<!doctype html><title>v1</title><link href="style.css">');
  site.write('style.css', 'body { color: black }');
  site.write('app.js', 'console.log("v1")');
  site.write('_site.json', '{"spa_fallback":false}');
  site.write('big.bin', randomBytes(100 * KiB)); // a blob of its own (over 64 KiB)
  site.write('video.bin', randomBytes(600 * KiB)); // streamed: 3 segments of 256 KiB
}, 120_000);

afterAll(() => stopVersionLab(lab));

const FILES = ['index.html', 'style.css', 'app.js', '_site.json', 'big.bin', 'video.bin'];

function publishOn(
  tape: TestTape,
  planned: Awaited<ReturnType<VersionSite['plan']>>,
  expected: number,
) {
  return lab.publisher.publish({
    tape: tape.address,
    tapeSigner: tape.keypair,
    wallet: lab.fx.wallet,
    expectedSequence: expected,
    pathOf: (file) => site.path(file.name),
    ...planned,
  });
}

async function lamports(key: PublicKey): Promise<number> {
  return lab.fx.client.chain.rpc.connection.getBalance(key, 'confirmed');
}

describe('publishing site versions', () => {
  let v1: Awaited<ReturnType<VersionSite['plan']>>;
  let v2: Awaited<ReturnType<VersionSite['plan']>>;
  let latest: Awaited<ReturnType<VersionSite['plan']>>;

  it('publishes a first version: pointer, root and bytes on chain; fees only', async () => {
    v1 = await site.plan(FILES);
    const walletBefore = await lamports(lab.fx.wallet.publicKey);
    const gatewayBefore = await lamports(gatewayKey);
    const published = await publishOn(lab.fx.tape, v1, 0);
    const walletMoved = walletBefore - (await lamports(lab.fx.wallet.publicKey));
    const gatewayMoved = gatewayBefore - (await lamports(gatewayKey));
    console.log(
      `first publish: wallet moved ${walletMoved / 1e9} SOL (${walletMoved} lamports), gateway key ${gatewayMoved / 1e9} SOL; uploaded ${published.uploadedTracks} tracks, ${published.uploadedBytes} bytes`,
    );

    const video = site.file('video.bin');
    const manifestBytes = video.layout.kind === 'stream' ? video.layout.manifestBytes : 0;
    const expectedBytes =
      v1.built.rootBytes.length +
      v1.built.nodes.reduce((s, n) => s + n.bytes.length, 0) +
      v1.plan.packs.reduce((s, p) => s + p.bytes.length, 0) +
      100 * KiB +
      manifestBytes +
      600 * KiB;
    const tape = (await lab.fx.client.chain.reader.getTape(lab.fx.tape.address))!;
    expect({
      version: tape.version,
      root: currentVersion(tape)!.root.toString('hex'),
      versionBytes: currentVersion(tape)!.bytes,
      keptBytes: tape.keptBytes,
    }).toEqual({
      version: 1,
      root: v1.built.rootCommitment.toString('hex'),
      versionBytes: expectedBytes,
      keptBytes: expectedBytes,
    });
    expect(published).toMatchObject({
      version: 1,
      versionBytes: expectedBytes,
      addedBytes: expectedBytes,
    });
    // One pack, the blob, the manifest and its 3 segments, the root (a small site has no nodes).
    expect(published.uploadedTracks).toBe(1 + 1 + 1 + 3 + 1);
    // Fees only: Publish creates no account, so no rent (the smallest rent is 890,880 lamports).
    expect(walletMoved).toBeGreaterThan(0);
    expect(walletMoved).toBeLessThan(50_000);
    expect(gatewayMoved).toBe(0);
  });

  it('a one-file change uploads only its new pack and root', async () => {
    site.write('style.css', 'body { color: navy }');
    v2 = await site.plan(['style.css'], v1.plan);
    const published = await publishOn(lab.fx.tape, v2, 1);
    console.log(
      `one-file change: uploaded ${published.uploadedTracks} tracks, ${published.uploadedBytes} bytes; version bytes ${published.versionBytes}, added ${published.addedBytes}`,
    );
    expect(published.uploadedTracks).toBe(2);
    expect(published.uploadedBytes).toBe(v2.plan.packs[0].bytes.length + v2.built.rootBytes.length);
    const tape = (await lab.fx.client.chain.reader.getTape(lab.fx.tape.address))!;
    expect({
      version: tape.version,
      history: tape.history.map((v) => [v.version, v.root.toString('hex')]),
      keptBytes: tape.keptBytes,
    }).toEqual({
      version: 2,
      history: [
        [1, v1.built.rootCommitment.toString('hex')],
        [2, v2.built.rootCommitment.toString('hex')],
      ],
      keptBytes: tape.history[0].bytes + published.addedBytes,
    });
    expect(published.keptBytes).toBe(tape.keptBytes);
  });

  it('a publisher on a stale version gets a version conflict, re-plans and wins', async () => {
    site.write('app.js', 'console.log("v3")');
    site.write('notes.html', '<p>notes</p>');
    const a = await site.plan(['app.js'], v2.plan);
    const b = await site.plan(['notes.html'], v2.plan);
    await publishOn(lab.fx.tape, a, 2);
    const lost = await publishOn(lab.fx.tape, b, 2).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(VersionConflictError);
    expect((lost as VersionConflictError).currentSequence).toBe(3);

    const rebased = await site.plan(['notes.html'], a.plan);
    await expect(publishOn(lab.fx.tape, rebased, 3)).resolves.toMatchObject({ version: 4 });
    const names = rebased.plan.entries.map((e) => e.name).sort();
    expect(names).toEqual([...FILES, 'notes.html'].sort());
    const tape = (await lab.fx.client.chain.reader.getTape(lab.fx.tape.address))!;
    expect([tape.version, currentVersion(tape)!.root.toString('hex')]).toEqual([
      4,
      rebased.built.rootCommitment.toString('hex'),
    ]);
    latest = rebased;
  });

  it('two publishers at once on one version: one wins, the other re-plans and loses nothing', async () => {
    site.write('one.html', '<p>one</p>');
    site.write('two.html', '<p>two</p>');
    const planned = [
      await site.plan(['one.html'], latest.plan),
      await site.plan(['two.html'], latest.plan),
    ];
    const results = await Promise.allSettled(planned.map((p) => publishOn(lab.fx.tape, p, 4)));
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const won = results.findIndex((r) => r.status === 'fulfilled');
    // Refused by the gateway (409) or, when both were co-signed first, by the program (6012).
    expect((results[1 - won] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
    const rebased = await site.plan([['one.html', 'two.html'][1 - won]], planned[won].plan);
    await expect(publishOn(lab.fx.tape, rebased, 5)).resolves.toMatchObject({ version: 6 });
    const names = rebased.plan.entries.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['one.html', 'two.html', 'notes.html']));
  });

  it('a version naming bytes never uploaded is refused with 422 naming the file', async () => {
    const current = (await lab.fx.client.chain.reader.getTape(lab.fx.tape.address))!;
    site.write('ghost.bin', randomBytes(80 * KiB));
    const planned = await site.plan(['ghost.bin'], v1.plan);
    // Nothing of ghost.bin is uploaded: only the version's root.
    const refused = await publishOn(
      lab.fx.tape,
      { ...planned, plan: { ...planned.plan, tracks: [] } },
      current.version,
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayRefusalError);
    expect((refused as GatewayRefusalError).status).toBe(422);
    expect((refused as Error).message).toMatch(/"ghost\.bin": its bytes are not held/);
  });

  it('a version with a hidden name (.env) is refused with 422', async () => {
    const current = (await lab.fx.client.chain.reader.getTape(lab.fx.tape.address))!;
    const secret = Buffer.from('TOKEN=1\n');
    const entry = {
      name: '.env',
      commitment: commitmentOfBuffer(secret).commitment,
      size: secret.length,
      contentType: 'text/plain',
      metadata: Buffer.alloc(0),
      location: { kind: 'blob' as const },
    };
    await putVersionBytes(lab.gateway, lab.fx.tape, secret);
    const root = encodeRoot({
      entryCount: 1,
      totalSize: secret.length,
      settings: Buffer.alloc(0),
      rules: Buffer.alloc(0),
      names: { tree: 'names', level: 0, entries: [entry] },
      commits: { tree: 'commits', level: 0, entries: [entry] },
    });
    await putVersionBytes(lab.gateway, lab.fx.tape, root);
    const reply = await postPublish(
      lab.fx.tape,
      commitmentOfBuffer(root).commitment,
      current.sequence,
    );
    expect(reply.status).toBe(422);
    expect(reply.error.message).toMatch(/hidden name/);
  });
});

describe('a site with manifest nodes', () => {
  it('a one-file change of 600 names uploads one pack, the nodes on its path and the root', async () => {
    const tape = await lab.fx.client.createTape(lab.fx.wallet, 8 << 20, 10);
    const big = new VersionSite(SEGMENT);
    const names = Array.from({ length: 600 }, (_, i) => `docs/part-${i % 7}/page-${i}.html`);
    for (const n of names) big.write(n, `<h1>${n}</h1>`.repeat(4));
    const first = await big.plan(names);
    expect(first.built.nodes.length).toBeGreaterThan(0);
    const publishBig = (p: typeof first, expected: number) =>
      lab.publisher.publish({
        tape: tape.address,
        tapeSigner: tape.keypair,
        wallet: lab.fx.wallet,
        expectedSequence: expected,
        pathOf: (f) => big.path(f.name),
        ...p,
      });
    await publishBig(first, 0);
    big.write(names[300], '<h1>changed</h1>');
    const second = await big.plan([names[300]], first.plan);
    const done = await publishBig(second, 1);
    const known = new Set(first.built.nodes.map((n) => n.commitment.toString('hex')));
    const newNodes = second.built.nodes.filter((n) => !known.has(n.commitment.toString('hex')));
    console.log(
      `600 names, one file changed: uploaded ${done.uploadedTracks} tracks (${newNodes.length} nodes), ${done.uploadedBytes} bytes`,
    );
    expect(newNodes.length).toBeGreaterThan(0);
    expect(done.uploadedTracks).toBe(1 + newNodes.length + 1);
    expect(done.uploadedBytes).toBeLessThan(64 * KiB);
  });
});

describe('capacity', () => {
  it('a version over the tape capacity is refused (413), and staging stops at capacity + 1 MiB', async () => {
    const tape = await lab.fx.client.createTape(lab.fx.wallet, 200 * KiB, 10);
    const small = new VersionSite(SEGMENT);
    small.write('index.html', 'hello');
    small.write('data.bin', randomBytes(220 * KiB));
    const planned = await small.plan(['index.html', 'data.bin']);
    const refused = await lab.publisher
      .publish({
        tape: tape.address,
        tapeSigner: tape.keypair,
        wallet: lab.fx.wallet,
        expectedSequence: 0,
        pathOf: (f) => small.path(f.name),
        ...planned,
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayRefusalError);
    expect([(refused as GatewayRefusalError).status, (refused as Error).message]).toEqual([
      413,
      expect.stringMatching(/insufficient capacity/),
    ]);

    // Staged so far: the version's tracks (about 220 KiB); the budget is 200 KiB + 1 MiB.
    let staged = 0;
    let status = 200;
    let message = '';
    for (let i = 0; i < 10 && status === 200; i++) {
      const reply = await putVersionBytes(lab.gateway, tape, randomBytes(SEGMENT));
      status = reply.status;
      message = reply.error?.message ?? '';
      if (status === 200) staged += SEGMENT;
    }
    expect([status, message]).toEqual([413, expect.stringMatching(/^insufficient capacity/)]);
    expect(staged + 220 * KiB).toBeLessThanOrEqual(200 * KiB + 1024 * KiB + 8 * KiB);
    expect(staged).toBeGreaterThanOrEqual(3 * SEGMENT);
  });

  it('refuses a signer that is not the tape authority or delegate (403)', async () => {
    const stranger = { ...lab.fx.tape, keypair: Keypair.generate() };
    const reply = await putVersionBytes(lab.gateway, stranger, Buffer.from('x'));
    expect([reply.status, reply.error?.code]).toEqual([403, 'forbidden']);
  });
});

async function postPublish(tape: TestTape, root: Buffer, expected: number) {
  const address = tape.address.toBase58();
  const body = Buffer.from(
    JSON.stringify({
      root: root.toString('hex'),
      expected_sequence: expected,
      fee_payer: lab.fx.wallet.publicKey.toBase58(),
    }),
  );
  const headers = new UploadSigner(tape.keypair).signed((timestamp) =>
    requestMessage({ route: 'publish', tape: address, body, timestamp }),
  );
  const reply = await lab.gateway.exchange(
    'POST',
    `publish/${address}`,
    { ...headers, 'content-type': 'application/json' },
    { bytes: body },
  );
  return { status: reply.status, error: errorOf(reply.body) };
}
