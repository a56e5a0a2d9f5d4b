import { createHash } from 'node:crypto';
import { SiteDirectory } from './site-directory';
import { SiteDirectoryOptions } from './site-directory-options';
import { testDirectoryOptions } from './site-directory-options.spec-support';
import { SiteSnapshot } from './site-snapshots';
import { SiteTarget } from './site-routing';
import { SiteObject, SiteRead, TapeStatus } from './site-source';
import { NamesOnlySource } from './names-only-source.spec-support';

export const TAPE = 'TapeAddress1111111111111111111111111111111';

export function object(
  name: string,
  body: string | Buffer,
  contentType = 'text/plain',
): SiteObject & { body: Buffer } {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const commitment = createHash('sha256').update(name).update(bytes).digest();
  return {
    name,
    kind: 'blob',
    commitment,
    commitmentHex: commitment.toString('hex'),
    size: bytes.length,
    contentType,
    body: bytes,
  };
}

/** A chain and store in memory that records its reads and can be made slow or failing. */
export class FakeSource extends NamesOnlySource {
  status: TapeStatus = { kind: 'active', expiresInMs: 3_600_000 };
  objects: (SiteObject & { body: Buffer })[] = [];
  /** Every read: the names asked for, and whether the tape's status was. */
  reads: { tape: string; names: string[]; withStatus: boolean }[] = [];
  bodyReads = 0;
  failing: Error | null = null;
  gate: Promise<void> | null = null;

  get statusReads(): number {
    return this.reads.filter((r) => r.withStatus).length;
  }

  async read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead> {
    this.reads.push({ tape, names: [...names], withStatus });
    if (this.gate) await this.gate;
    if (this.failing) throw this.failing;
    return {
      status: withStatus ? this.status : undefined,
      objects: names.map((n) => this.objects.find((o) => o.name === n) ?? null),
    };
  }

  async readWhole(o: SiteObject): Promise<Buffer> {
    this.bodyReads++;
    const found = this.objects.find((x) => x.commitmentHex === o.commitmentHex);
    if (!found) throw new Error('track not in store');
    return found.body;
  }
}

export function newTestDirectory(overrides: Partial<SiteDirectoryOptions> = {}) {
  const source = new FakeSource();
  const clock = { ms: 0 };
  const warnings: string[] = [];
  const sut = new SiteDirectory(source, {
    ...testDirectoryOptions(clock, warnings),
    ...overrides,
  });
  const advanceSecs = (s: number) => (clock.ms += s * 1000);
  /** The snapshot and the answer for a path, as a request gets them. */
  const resolve = async (rawPath: string, tape = TAPE) => {
    const snapshot = await sut.lookup(tape, rawPath);
    return { snapshot, target: await sut.route(snapshot, rawPath) };
  };
  return { sut, source, warnings, advanceSecs, resolve };
}

export async function snapshot(sut: SiteDirectory): Promise<SiteSnapshot> {
  return await sut.lookup(TAPE);
}

/** `200 name`, `404 name` or the kind of answer. */
export function answer(target: SiteTarget): string {
  return target.kind === 'object' ? `${target.status} ${target.object.name}` : target.kind;
}

/** Served bytes' size, for tests that change a file. */
export function sizeOf(target: SiteTarget): number | undefined {
  return target.kind === 'object' ? target.object.size : undefined;
}

export const settled = () => new Promise((r) => setImmediate(r));
