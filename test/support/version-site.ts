import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GatewayClient } from '../../src/cli/deploy/gateway-client';
import { UploadSigner } from '../../src/cli/deploy/upload-signer';
import { errorOf } from '../../src/cli/versions/version-publisher';
import { commitmentOfBuffer } from '../../src/tracks/commitment';
import { SegmentingHasher } from '../../src/tracks/track-layout';
import { versionUploadMessage } from '../../src/upload/version-request-auth';
import { TestTape } from './upload-client';
import { BuiltVersion, buildVersion } from '../../src/versions/version-builder';
import { VersionEntry } from '../../src/versions/version-entry';
import { ChangedFile, VersionPlan, planVersion } from '../../src/versions/version-planner';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  json: 'application/json',
};

/**
 * A site directory on disk and the versions planned from it, for tests of publishing: files are
 * described as `tape deploy` will describe them (own commitment; streamed over one segment).
 */
export class VersionSite {
  readonly dir = mkdtempSync(join(tmpdir(), 'tape-version-site-'));

  constructor(private readonly segmentBytes: number) {}

  write(name: string, bytes: Buffer | string): void {
    const path = join(this.dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  file(name: string): ChangedFile {
    const bytes = readFileSync(this.path(name));
    const layout = new SegmentingHasher(this.segmentBytes).update(bytes).digest();
    return {
      name,
      size: bytes.length,
      contentType: TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
      commitment:
        layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment,
      layout:
        layout.kind === 'blob'
          ? { kind: 'blob' }
          : { kind: 'stream', manifestBytes: layout.manifestBytes.length },
    };
  }

  /** The next version: `names` written on top of `base` (the empty site when undefined). */
  async plan(
    names: string[],
    base?: { entries: readonly VersionEntry[]; settings: Buffer },
  ): Promise<{ plan: VersionPlan; built: BuiltVersion }> {
    const plan = await planVersion(
      base ?? { entries: [], settings: Buffer.alloc(0) },
      { put: names.map((n) => this.file(n)) },
      async (file) => readFileSync(this.path(file.name)),
    );
    return { plan, built: buildVersion(plan.entries, plan.settings) };
  }
}

/** One signed `PUT /upload/{tape}/{commitment}`: the bytes staged, no version names them yet. */
export async function putVersionBytes(gateway: GatewayClient, tape: TestTape, bytes: Buffer) {
  const commitment = commitmentOfBuffer(bytes).commitment.toString('hex');
  const address = tape.address.toBase58();
  const headers = new UploadSigner(tape.keypair).signed((timestamp) =>
    versionUploadMessage({ tape: address, commitment, size: bytes.length, timestamp }),
  );
  const reply = await gateway.exchange(
    'PUT',
    `upload/${address}/${commitment}`,
    { ...headers, 'content-type': 'application/octet-stream' },
    { bytes },
  );
  return { status: reply.status, error: errorOf(reply.body), commitment };
}
