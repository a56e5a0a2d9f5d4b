import { PublicKey } from '@solana/web3.js';
import type { TapeRecord } from '../../chain/account-layouts';
import type { ChainReader } from '../../chain/chain-reader';
import type { GatewayIdentity } from '../../chain/gateway-identity';
import type { KeyBalance } from '../../chain/key-balance/key-balance';
import { currentVersion } from '../../chain/tape-history';
import { commitmentOfBuffer } from '../../tracks/commitment';
import type { ObjectReader } from '../../tracks/object-reader';
import type { TrackStore } from '../../tracks/track-store';
import { GroupPublish } from './group-publish';
import { ObjectOp } from './object-ops';
import { PlanBase, TapeVersions } from './tape-versions';
import { VersionCommitGroups } from './version-commit-groups';
import { VersionPublishing } from './version-publishing';

const TAPE = new PublicKey('hR2uCbBrhccHRDcCKbTqPc9SQ2GLuWLcHomiLiFM8n9');

class Conflict extends Error {}

/** The chain's side of the tape: its current version and root, and the compare-and-swap counter. */
interface FakeTape {
  version: number;
  root: Buffer;
  sequence: number;
}

/** Publishes held until the test lets each one land (or fail); the chain's pointer follows. */
class HeldPublishing extends VersionPublishing {
  readonly calls: Array<{ root: Buffer; expected: number; land: () => void; fail: () => void }> =
    [];
  constructor(private readonly tape: FakeTape) {
    super();
  }
  publishOwn(_tape: PublicKey, root: Buffer, expected: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        root,
        expected,
        land: () => {
          if (expected !== this.tape.sequence) return reject(new Conflict('conflict'));
          this.tape.sequence++;
          this.tape.version++;
          this.tape.root = root;
          resolve();
        },
        fail: () => reject(new Error('the chain failed')),
      });
    });
  }
  isConflict(error: unknown): boolean {
    return error instanceof Conflict;
  }
  stagingOwner(): string {
    return 'staged';
  }
}

/** Never busy: the pipeline's own behaviour, whatever the test machine's load. */
class IdleGroups extends VersionCommitGroups {
  protected override busy(): boolean {
    return false;
  }
}

function newTestGroups() {
  const tape: FakeTape = { version: 0, root: Buffer.alloc(32), sequence: 0 };
  const chain = {
    getTape: async () =>
      ({
        version: tape.version,
        latestVersion: tape.version,
        sequence: tape.sequence,
        history:
          tape.version === 0
            ? []
            : [{ version: tape.version, root: tape.root, bytes: 0, publishedAt: 0 }],
      }) as unknown as TapeRecord,
  } as unknown as ChainReader;
  const planned = new Map<string, PlanBase>();
  const versions = {
    entries: async (_t: PublicKey, record: TapeRecord) =>
      record.version === 0
        ? { entries: [], settings: Buffer.alloc(0) }
        : planned.get(currentVersion(record)!.root.toString('hex'))!,
    remember: (_t: PublicKey, root: Buffer, base: PlanBase) =>
      planned.set(root.toString('hex'), base),
  } as unknown as TapeVersions;
  const store = {
    claimMany: async () => undefined,
    has: async () => true,
    put: async () => undefined,
  } as unknown as TrackStore;
  const publisher = new HeldPublishing(tape);
  const identity = { publicKey: TAPE } as unknown as GatewayIdentity;
  const balance = { explain: async (e: unknown) => e } as unknown as KeyBalance;
  const publish = new GroupPublish(chain, versions, store, {} as ObjectReader, publisher);
  const sut = new IdleGroups(publish, identity, balance);
  return { sut, tape, publisher, planned };
}

function put(name: string): ObjectOp {
  const bytes = Buffer.from(`the bytes of ${name}`);
  return {
    kind: 'put',
    file: {
      name,
      commitment: commitmentOfBuffer(bytes).commitment,
      size: bytes.length,
      contentType: 'text/plain',
      layout: { kind: 'blob' },
    },
    bytes,
    metadata: { headers: {}, user: {} },
  };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!check()) throw new Error(`never: ${what}`);
}

describe('VersionCommitGroups (pipelined)', () => {
  it('plans the next group on the version in flight, publishes it once that one is confirmed, answers each after its own', async () => {
    const { sut, tape, publisher, planned } = newTestGroups();
    const answered: string[] = [];
    const first = sut.submit(TAPE, put('a.txt')).then(() => answered.push('a'));
    await until('the first Publish is sent', () => publisher.calls.length === 1);
    const second = sut.submit(TAPE, put('b.txt')).then(() => answered.push('b'));
    // Planned beside the Publish in flight, but not sent before it is confirmed.
    await until('the second group is planned', () => sut.stats.pipelined === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(publisher.calls).toHaveLength(1);
    expect(answered).toEqual([]);
    publisher.calls[0].land();
    await first;
    expect(answered).toEqual(['a']);
    await until('the second Publish is sent', () => publisher.calls.length === 2);
    expect(publisher.calls[1].expected).toBe(1);
    publisher.calls[1].land();
    await second;
    expect(answered).toEqual(['a', 'b']);
    expect(tape.version).toBe(2);
    const names = planned.get(tape.root.toString('hex'))!.entries.map((e) => e.name);
    expect(names).toEqual(['a.txt', 'b.txt']);
  });

  it('rebases a group planned on a version that never landed: the refused write is not published', async () => {
    const { sut, tape, publisher, planned } = newTestGroups();
    const first = sut.submit(TAPE, put('a.txt'));
    await until('the first Publish is sent', () => publisher.calls.length === 1);
    const second = sut.submit(TAPE, put('b.txt'));
    await until('the second group is planned', () => sut.stats.pipelined === 1);
    publisher.calls[0].fail();
    await expect(first).rejects.toBeDefined();
    await until('the second Publish is sent', () => publisher.calls.length === 2);
    // Planned again on the chain's version 0, without a.txt.
    expect(publisher.calls[1].expected).toBe(0);
    publisher.calls[1].land();
    await second;
    expect(tape.version).toBe(1);
    const names = planned.get(tape.root.toString('hex'))!.entries.map((e) => e.name);
    expect(names).toEqual(['b.txt']);
    expect(sut.stats.rebases).toBe(1);
  });
});
