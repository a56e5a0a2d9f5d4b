import { PublicKey } from '@solana/web3.js';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { GatewayClient } from '../src/cli/deploy/gateway-client';
import { readCurrentRoot, readCurrentVersion } from '../src/cli/versions/current-version';
import { verifyVersionDownload } from '../src/cli/versions/version-download';
import { VersionPublisher } from '../src/cli/versions/version-publisher';
import { ObjectFixture } from './support/labs/object-fixture';
import { startVersionLab, stopVersionLab, VersionLab } from './support/labs/version-lab';
import { TestTape } from './support/clients/upload-client';
import { VersionSite } from './support/fixtures/version-site';

/**
 * `GET /versions/{tape}/{root}` (docs/versions.md, "Routes") on a real gateway and the embedded
 * network: a kept version's root and every node, for the tape's current or previous root only;
 * and the CLI's reader, which takes nothing from the gateway that the chain's root does not prove.
 */
const SEGMENT = 256 * 1024;

let lab: VersionLab;
let fx: ObjectFixture;
let gateway: GatewayClient;
let publisher: VersionPublisher;
let tape: TestTape;
const site = new VersionSite(SEGMENT);
const names = Array.from({ length: 600 }, (_, i) => `docs/part-${i % 7}/page-${i}.html`);
let v1: Awaited<ReturnType<VersionSite['plan']>>;
let v2: Awaited<ReturnType<VersionSite['plan']>>;

async function get(path: string) {
  const reply = await gateway.get(path, { maxBytes: 64 << 20 });
  return { status: reply.status, body: reply.body, json: () => JSON.parse(reply.body.toString()) };
}

beforeAll(async () => {
  lab = await startVersionLab({
    env: { TAPE__STORAGE__SEGMENT_BYTES: String(SEGMENT) },
    capacity: 8 << 20,
  });
  ({ fx, gateway, publisher } = lab);
  tape = fx.tape;
  for (const n of names) site.write(n, `<h1>${n}</h1>`.repeat(4));
  site.write('_site.json', '{"spa_fallback":true}');
  const publish = (p: typeof v1, expected: number) =>
    publisher.publish({
      tape: tape.address,
      tapeSigner: tape.keypair,
      wallet: fx.wallet,
      expectedSequence: expected,
      pathOf: (f) => site.path(f.name),
      ...p,
    });
  v1 = await site.plan([...names, '_site.json']);
  await publish(v1, 0);
  site.write(names[10], '<h1>changed</h1>');
  v2 = await site.plan([names[10]], v1.plan);
  await publish(v2, 1);
}, 180_000);

afterAll(() => stopVersionLab(lab));

const hex = (b: Buffer) => b.toString('hex');

describe('GET /versions/{tape}/{root}', () => {
  it("answers the current version's root and every node, which verify against the root", async () => {
    expect(v2.built.nodes.length).toBeGreaterThan(2);
    const reply = await get(`versions/${tape.address.toBase58()}/${hex(v2.built.rootCommitment)}`);
    expect(reply.status).toBe(200);
    const got = await verifyVersionDownload(v2.built.rootCommitment, reply.body);
    expect(got.entries.map((e) => e.name)).toEqual(v2.plan.entries.map((e) => e.name).sort());
    expect(got.entries.find((e) => e.name === names[10])!.commitment).toEqual(
      site.file(names[10]).commitment,
    );
    expect(got.settings.toString()).toBe('{"spa_fallback":true}');
    expect(got.manifestTracks.size).toBe(1 + v2.built.nodes.length);
  });

  it('answers the previous version too (a reader that read the pointer just before a publish)', async () => {
    const reply = await get(`versions/${tape.address.toBase58()}/${hex(v1.built.rootCommitment)}`);
    expect(reply.status).toBe(200);
    const got = await verifyVersionDownload(v1.built.rootCommitment, reply.body);
    expect(got.entries).toHaveLength(names.length + 1);
  });

  it("refuses a root that is not the tape's (404), bad input (400), an unknown tape (404)", async () => {
    const address = tape.address.toBase58();
    // A real version root held by the gateway, but of another tape's history: not this tape's.
    const other = await fx.client.createTape(fx.wallet, 1 << 20, 10);
    const stranger = await get(
      `versions/${other.address.toBase58()}/${hex(v2.built.rootCommitment)}`,
    );
    expect(stranger.status).toBe(404);
    expect(stranger.json().error.message).toMatch(/is not the root of a version the tape keeps/);
    const random = await get(`versions/${address}/${'ab'.repeat(32)}`);
    expect(random.status).toBe(404);
    expect((await get(`versions/not-a-tape/${hex(v2.built.rootCommitment)}`)).json().error).toEqual(
      {
        code: 'bad_request',
        message: 'malformed tape address',
      },
    );
    const badHex = await get(`versions/${address}/${'AB'.repeat(32)}`);
    expect(badHex.status).toBe(400);
    expect(badHex.json().error.message).toMatch(/64 lowercase hex digits/);
    const unknown = await get(
      `versions/${PublicKey.unique().toBase58()}/${hex(v2.built.rootCommitment)}`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.message).toBe('no such tape on chain');
  });
});

describe("the CLI's reader", () => {
  it('reads the current version from the chain pointer and the gateway', async () => {
    const current = await readCurrentVersion(fx.client.chain.reader, gateway, tape.address);
    expect(current.version).toBe(2);
    expect(current.rootCommitment).toEqual(v2.built.rootCommitment);
    expect(current.entries).toHaveLength(names.length + 1);
    const root = await readCurrentRoot(gateway, tape.address, current.record);
    expect(root!.entryCount).toBe(names.length + 1);
  });

  it("a gateway answering another version's bytes cannot change the base", async () => {
    // A lying gateway: answers v1's manifest (a real version of this tape) for any root.
    const honest = await get(`versions/${tape.address.toBase58()}/${hex(v1.built.rootCommitment)}`);
    const liar: Server = createServer((_req, res) => res.end(honest.body));
    await new Promise<void>((r) => liar.listen(0, '127.0.0.1', r));
    const lying = new GatewayClient(`http://127.0.0.1:${(liar.address() as AddressInfo).port}`);
    try {
      await expect(readCurrentVersion(fx.client.chain.reader, lying, tape.address)).rejects.toThrow(
        /does not hash to the root on chain/,
      );
      await expect(
        readCurrentRoot(lying, tape.address, (await fx.client.chain.reader.getTape(tape.address))!),
      ).rejects.toThrow(/does not hash to the root on chain/);
    } finally {
      lying.close();
      await new Promise((r) => liar.close(r));
    }
  });
});
