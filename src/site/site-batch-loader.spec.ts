import { SiteBatchLoader } from './site-batch-loader';

/** A loader whose fetches are recorded and finish when the test says so. */
function newTestLoader() {
  const fetches: {
    tape: string;
    names: string[];
    withSite: boolean;
    finish: (error?: Error) => void;
  }[] = [];
  let flush: (() => void) | undefined;
  const sut = new SiteBatchLoader(
    (tape, names, withSite) =>
      new Promise<void>((resolve, reject) =>
        fetches.push({
          tape,
          names,
          withSite,
          finish: (error) => (error ? reject(error) : resolve()),
        }),
      ),
    (run) => (flush = run),
  );
  const send = () => {
    const run = flush;
    flush = undefined;
    run?.();
  };
  return { sut, fetches, send };
}

describe('SiteBatchLoader', () => {
  it('sends the keys asked for while the loop turns in one fetch per tape', async () => {
    const { sut, fetches, send } = newTestLoader();
    const a = sut.load('T1', ['index.html', '404.html'], true);
    const b = sut.load('T1', ['app.js', '404.html'], false);
    const c = sut.load('T2', ['index.html'], false);
    expect(fetches).toHaveLength(0);
    send();
    expect(fetches.map(({ tape, names, withSite }) => ({ tape, names, withSite }))).toEqual([
      { tape: 'T1', names: ['index.html', '404.html', 'app.js'], withSite: true },
      { tape: 'T2', names: ['index.html'], withSite: false },
    ]);
    fetches.forEach((f) => f.finish());
    await Promise.all([a, b, c]);
  });

  it('loads a key once while it is in flight, and again once it is done', async () => {
    const { sut, fetches, send } = newTestLoader();
    const first = sut.load('T', ['a'], false);
    send();
    const second = sut.load('T', ['a'], false);
    send();
    expect(fetches).toHaveLength(1);
    expect(sut.loadingSite('T')).toBe(false);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    fetches[0].finish();
    await first;
    await second;
    expect(secondDone).toBe(true);
    void sut.load('T', ['a'], false);
    send();
    expect(fetches).toHaveLength(2);
  });

  it('waits for a key in flight and fetches only the keys that are not', async () => {
    const { sut, fetches, send } = newTestLoader();
    const site = sut.load('T', ['404.html'], true);
    send();
    expect(sut.loadingSite('T')).toBe(true);
    const page = sut.load('T', ['about', '404.html'], true);
    send();
    expect(fetches[1]).toMatchObject({ names: ['about'], withSite: false });
    let pageDone = false;
    void page.then(() => (pageDone = true));
    fetches[1].finish();
    await Promise.resolve();
    await Promise.resolve();
    expect(pageDone).toBe(false);
    fetches[0].finish();
    await Promise.all([site, page]);
    expect(sut.loadingSite('T')).toBe(false);
  });

  it('fails every waiter of a failed fetch, and lets the next load try again', async () => {
    const { sut, fetches, send } = newTestLoader();
    const a = sut.load('T', ['a'], false);
    const b = sut.load('T', ['a'], false);
    send();
    fetches[0].finish(new Error('rpc down'));
    await expect(a).rejects.toThrow('rpc down');
    await expect(b).rejects.toThrow('rpc down');
    void sut.load('T', ['a'], false).catch(() => undefined);
    send();
    expect(fetches).toHaveLength(2);
  });
});
