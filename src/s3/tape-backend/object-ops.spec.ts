import { VersionEntry } from '../../versions/version-entry';
import { S3Error } from '../s3-error';
import { S3BackendNoSuchKeyError } from '../s3-backend';
import { applyObjectOps, ObjectOp } from './object-ops';
import { decodeObjectMetadata } from './object-metadata-codec';

const commitment = (n: number) => Buffer.alloc(32, n);
const entry = (name: string, n: number): VersionEntry => ({
  name,
  commitment: commitment(n),
  size: 10,
  contentType: 'text/plain',
  metadata: Buffer.alloc(0),
  location: { kind: 'packed', pack: commitment(99), packSize: 100, offset: 0 },
});
const put = (name: string, n: number, etag?: string[]): ObjectOp => ({
  kind: 'put',
  file: {
    name,
    commitment: commitment(n),
    size: 10,
    contentType: 'text/plain',
    layout: { kind: 'blob' },
  },
  metadata: { headers: {}, user: {}, etag: 'a'.repeat(32) },
  ...(etag ? { condition: { ifNoneMatch: etag } } : {}),
});

describe('applyObjectOps', () => {
  it('applies a group in arrival order: PUT k, DELETE k, PUT k leaves k', () => {
    const { change, outcomes } = applyObjectOps(
      [],
      [put('k', 1), { kind: 'delete', names: ['k'] }, put('k', 1)],
      1000,
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(change.put.map((f) => f.name)).toEqual(['k']);
    expect(change.remove).toEqual([]);
    expect(decodeObjectMetadata(change.put[0].metadata).modified).toBe(1000);
  });

  it('removes only names the base has; a put then delete of a new name changes nothing', () => {
    const { change } = applyObjectOps(
      [entry('old', 2)],
      [put('new', 1), { kind: 'delete', names: ['new', 'old', 'never'] }],
      1,
    );
    expect(change).toEqual({ put: [], remove: ['old'] });
  });

  it('refuses one write whose condition fails, applying the others', () => {
    const { change, outcomes } = applyObjectOps(
      [entry('k', 2)],
      [put('k', 1, ['*']), put('j', 3)],
      1,
    );
    expect(outcomes[0].ok).toBe(false);
    expect(!outcomes[0].ok && outcomes[0].error).toBeInstanceOf(S3Error);
    expect(change.put.map((f) => f.name)).toEqual(['j']);
  });

  it('copies a base entry (its bytes where they are) or a write of the same group', () => {
    const { change, outcomes } = applyObjectOps(
      [entry('src', 2)],
      [
        { kind: 'copy', source: 'src', destination: 'a', metadata: (m) => m },
        put('fresh', 4),
        { kind: 'copy', source: 'fresh', destination: 'b', contentType: 'x/y', metadata: (m) => m },
        { kind: 'copy', source: 'absent', destination: 'c', metadata: (m) => m },
      ],
      1,
    );
    const byName = new Map(change.put.map((f) => [f.name, f]));
    expect(byName.get('a')!.commitment).toEqual(commitment(2));
    expect(byName.get('b')).toMatchObject({ commitment: commitment(4), contentType: 'x/y' });
    expect(!outcomes[3].ok && outcomes[3].error).toBeInstanceOf(S3BackendNoSuchKeyError);
    expect(byName.has('c')).toBe(false);
  });

  it('refuses a write whose metadata cannot be kept with an entry', () => {
    const big: ObjectOp = {
      kind: 'put',
      file: {
        name: 'm',
        commitment: commitment(1),
        size: 1,
        contentType: 'a/b',
        layout: { kind: 'blob' },
      },
      metadata: { headers: {}, user: { big: 'v'.repeat(2000) } },
    };
    const { change, outcomes } = applyObjectOps([], [big], 1);
    expect(outcomes[0].ok).toBe(false);
    expect(change.put).toEqual([]);
  });
});
