import { ApiError } from '../http/api-error';
import { CertificationGate } from './certification-gate';

/** The status a rejected run answers with. */
async function statusOf(run: Promise<unknown>): Promise<number> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err.getStatus();
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('CertificationGate', () => {
  it('runs one certification per tape, refusing a second with 429 while the first runs', async () => {
    const sut = new CertificationGate(2, 4);
    const first = deferred();
    const running = sut.run('A', () => first.promise.then(() => 'a'));
    expect(await statusOf(sut.run('A', async () => 'again'))).toBe(429);
    first.resolve();
    expect(await running).toBe('a');
    expect(await sut.run('A', async () => 'later')).toBe('later');
  });

  it('runs at most N at once gateway-wide, queues the rest in order, and refuses past the queue', async () => {
    const sut = new CertificationGate(1, 1);
    const first = deferred();
    const order: string[] = [];
    const a = sut.run('A', () => first.promise.then(() => order.push('A')));
    const b = sut.run('B', async () => order.push('B'));
    expect(sut.stats).toEqual({ running: 1, waiting: 1 });
    const c = sut.run('C', async () => order.push('C'));
    expect(await statusOf(c)).toBe(503);
    first.resolve();
    await Promise.all([a, b]);
    expect(order).toEqual(['A', 'B']);
    expect(sut.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('gives its place back when a certification fails', async () => {
    const sut = new CertificationGate(1, 0);
    await expect(
      sut.run('A', async () => Promise.reject(new Error('bad version'))),
    ).rejects.toThrow('bad version');
    expect(await sut.run('A', async () => 'ok')).toBe('ok');
  });
});
