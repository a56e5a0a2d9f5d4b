import { NO_VERSION, TapeRecord } from '../chain/account-layouts';
import { TapePointerFeed, TapePointerHandlers } from '../chain/tape-pointer-feed';
import { atVersion } from '../chain/tape-record.spec-support';
import { SiteDirectory } from './site-directory';
import { SiteFreshness } from './site-freshness';
import { SitePointer, SiteSource } from './site-source';

/** A feed the test drives: notifications and the subscription's state. */
class ScriptedFeed extends TapePointerFeed {
  handlers?: TapePointerHandlers;
  closed = false;
  watch(handlers: TapePointerHandlers) {
    this.handlers = handlers;
    return { close: () => (this.closed = true) };
  }
}

const TAPE = 'TapeAddress1111111111111111111111111111111';
const ROOT = Buffer.alloc(32, 9);

function newTestFreshness() {
  const feed = new ScriptedFeed();
  const changes: [string, SitePointer][] = [];
  const directory = {
    cachedTapes: () => [TAPE],
    pointerChanged: (tape: string, pointer: SitePointer) => changes.push([tape, pointer]),
  } as unknown as SiteDirectory;
  let polls = 0;
  const source = {
    pointers: async (tapes: string[]) => {
      polls++;
      return tapes.map(() => ({ version: 3, root: ROOT }));
    },
  } as unknown as SiteSource;
  const sut = new SiteFreshness(feed, directory, source, { pollMs: 10 });
  return { sut, feed, changes, polls: () => polls };
}

describe('SiteFreshness', () => {
  it('passes each notified pointer to the directory (version 0: the names serve)', () => {
    const { sut, feed, changes } = newTestFreshness();
    sut.onApplicationBootstrap();
    feed.handlers!.state(true);
    feed.handlers!.changed(TAPE, { ...NO_VERSION, ...atVersion(2, ROOT) } as TapeRecord);
    feed.handlers!.changed(TAPE, {
      ...NO_VERSION,
      aliases: [{ name: 'pr-1', version: 2 }],
      ...atVersion(2, ROOT),
      sequence: 3,
    } as TapeRecord);
    feed.handlers!.changed(TAPE, NO_VERSION as TapeRecord);
    // The whole table goes to the directory: an alias change is a new pointer (sequence).
    expect(changes.slice(-3).map(([, p]) => [p.version, p.sequence, p.aliases.length])).toEqual([
      [2, 2, 0],
      [2, 3, 1],
      [0, 0, 0],
    ]);
    sut.onModuleDestroy();
    expect(feed.closed).toBe(true);
  });

  it('polls the cached tapes while the subscription is down, and stops once it is up', async () => {
    jest.useFakeTimers();
    try {
      const { sut, feed, changes, polls } = newTestFreshness();
      sut.onApplicationBootstrap();
      // Not yet acknowledged: polled every pollMs.
      await jest.advanceTimersByTimeAsync(25);
      expect(polls()).toBe(2);
      expect(changes[0]).toEqual([TAPE, { version: 3, root: ROOT }]);
      feed.handlers!.state(true); // one catch-up poll, then none
      await jest.advanceTimersByTimeAsync(100);
      expect(polls()).toBe(3);
      expect(sut.subscribed).toBe(true);
      feed.handlers!.state(false); // lost: polled again
      await jest.advanceTimersByTimeAsync(25);
      expect(polls()).toBe(5);
      sut.onModuleDestroy();
      await jest.advanceTimersByTimeAsync(100);
      expect(polls()).toBe(5);
    } finally {
      jest.useRealTimers();
    }
  });
});
