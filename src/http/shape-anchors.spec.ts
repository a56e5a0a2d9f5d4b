import { createHook } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { exposeGc } from '../object/streamed-bytes-collector';
import { anchorTickShape, ExchangeAnchor, heldShapes } from './shape-anchors';

/** V8's own answer to "do these two objects share a hidden class?" (a natives-syntax call). */
function sameShape(a: object, b: object): boolean {
  setFlagsFromString('--allow-natives-syntax');
  // Natives syntax is compiled at run time, after the flag: no other way to ask V8.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const check = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
    a: object,
    b: object,
  ) => boolean;
  return check(a, b);
}

/** A full garbage collection. */
function collectGarbage(): void {
  const gc = exposeGc();
  if (gc === undefined) throw new Error('this runtime does not expose gc');
  gc({ type: 'major' });
}

/** The queue entry of one `process.nextTick(fn, arg)` call. */
function nextTickEntry(): object {
  let entry: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource: object) {
      if (type === 'TickObject') entry ??= resource;
    },
  }).enable();
  process.nextTick(() => undefined, 1);
  hook.disable();
  if (entry === undefined) throw new Error('no tick entry seen');
  return entry;
}

describe('shape anchors', () => {
  it('hold one of process.nextTick’s entries, whose layout then outlives full collections', () => {
    anchorTickShape();
    anchorTickShape(); // once per process
    expect(heldShapes()).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      nextTickEntry();
      collectGarbage();
    }
    const [held] = heldShapes();
    expect(Object.keys(held)).toEqual(['callback', 'args']);
    expect(sameShape(held, nextTickEntry())).toBe(true);
  });

  it('hold the last exchange of each answer status, replacing it with the next of that status', () => {
    const anchor = new ExchangeAnchor();
    const ok1 = [{ n: 'req1' }, { n: 'res1' }] as const;
    const ok2 = [{ n: 'req2' }, { n: 'res2' }] as const;
    const notModified = [{ n: 'req3' }, { n: 'res3' }] as const;
    anchor.hold(ok1[0], ok1[1], 200);
    anchor.hold(notModified[0], notModified[1], 304);
    anchor.hold(ok2[0], ok2[1], 200);
    const held = anchor.held();
    expect([...held.keys()]).toEqual([200, 304]);
    expect(held.get(200)).toEqual([ok2[0], ok2[1]]);
    expect(held.get(304)?.[0]).toBe(notModified[0]);
  });

  it('ignore a status that is not an integer in 100-599 (nothing held, nothing grows)', () => {
    const anchor = new ExchangeAnchor();
    for (const status of [0, 99, 600, 1e9, -1, Number.NaN, 200.5]) anchor.hold({}, {}, status);
    expect(anchor.held().size).toBe(0);
  });
});
