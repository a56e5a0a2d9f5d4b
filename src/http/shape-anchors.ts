import { createHook } from 'node:async_hooks';

/**
 * Keeps one object of each hot per-request shape alive, so that V8 never resets the inline
 * caches of Node's own HTTP and stream code.
 *
 * V8 describes an object's layout by a hidden class (a "map"). A map that no live object uses
 * is collected by the next full garbage collection (`--collect-maps`, on by default), even
 * when it is an ordinary step of a common layout. The next object of that layout then gets a
 * new map, and every inline cache that had learned the old one sees a stranger. After four
 * such strangers a cache is megamorphic for the life of the process: each access then goes
 * through a generic lookup or the runtime instead of one compare.
 *
 * A server that sits idle through full collections (startup, health checks, quiet hours) hits
 * exactly that: no request is in flight, so the maps of Node's per-request objects die, again
 * and again. Measured on the site page's 304 (docs/benchmarks.md, "The site benchmark"):
 * `process.nextTick`'s own object literal went megamorphic during the gateway's startup and
 * cost about 2 µs a call in the runtime, four to six calls a request; Node's HTTP functions
 * went megamorphic on the request, response and socket. A plain `http` server run through the
 * same idle collections spent 59 µs of user CPU per 304 instead of 31; holding one tick object
 * and the last exchange brought it back to 31.
 *
 * Holding an object holds its map and, through the maps' back pointers, every map on the way
 * to it, so a layout cannot be rebuilt from scratch while an object of it is held.
 */

/** The tick entry held for the process's lifetime (from `anchorTickShape`). */
let heldTick: object | undefined;

/**
 * Holds one of `process.nextTick`'s queue entries, whose layout Node builds with computed keys
 * on every call (four to six times a request in Node's HTTP code). Call it first thing, before
 * the garbage collections of startup: a cache already megamorphic stays so.
 *
 * The entry is caught by an async hook that lives for one `nextTick` call and is then disabled
 * (no hook stays enabled, so nothing else pays for it).
 */
export function anchorTickShape(): void {
  if (heldTick !== undefined) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource: object) {
      if (type === 'TickObject') heldTick ??= resource;
    },
  });
  hook.enable();
  try {
    // With one argument, as most of Node's calls are: the entry's `args` holds an array.
    process.nextTick(noop, undefined);
  } finally {
    hook.disable();
  }
}

/** What `anchorTickShape` holds (for its spec). */
export function heldShapes(): readonly object[] {
  return heldTick === undefined ? [] : [heldTick];
}

function noop(): void {}

/**
 * Holds the last exchange (request and response, and through them the socket and its stream
 * states) of each answer status on one listener, so their layouts outlive a full collection.
 * One per status, not just the last: answers of different kinds (a 304, a 200, a 404) leave
 * their objects in different layouts, and a burst of one kind must not let the others die.
 */
export class ExchangeAnchor {
  /** Indexed by status code (100-599); a slot is replaced by the next answer of its status. */
  private readonly requests: (object | undefined)[] = new Array<object | undefined>(600);
  private readonly responses: (object | undefined)[] = new Array<object | undefined>(600);

  /** Holds this exchange in place of the last one of the same status. */
  hold(request: object, response: object, status: number): void {
    if (!Number.isInteger(status) || status < 100 || status > 599) return;
    this.requests[status] = request;
    this.responses[status] = response;
  }

  /** The exchanges held, by status (for its spec). */
  held(): Map<number, [object, object]> {
    const held = new Map<number, [object, object]>();
    for (let status = 100; status < 600; status++) {
      const request = this.requests[status];
      const response = this.responses[status];
      if (request !== undefined && response !== undefined) held.set(status, [request, response]);
    }
    return held;
  }
}
