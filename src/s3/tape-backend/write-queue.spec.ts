import { WriteQueue } from './write-queue';

describe('WriteQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits for as many writes as wanted, then goes at once', async () => {
    const sut = new WriteQueue<number>();
    sut.push(1);
    let ready = false;
    const waiting = sut.waitFor(3, { timeoutMs: 25 }).then(() => (ready = true));
    sut.push(2);
    await Promise.resolve();
    expect(ready).toBe(false);
    sut.push(3);
    await waiting;
    expect(ready).toBe(true);
    expect(sut.take(10)).toEqual([1, 2, 3]);
  });

  it('goes after the timeout with what came, and at once when enough wait already', async () => {
    const sut = new WriteQueue<number>();
    let ready = false;
    const waiting = sut.waitFor(10, { timeoutMs: 25 }).then(() => (ready = true));
    sut.push(1);
    jest.advanceTimersByTime(24);
    await Promise.resolve();
    expect(ready).toBe(false);
    jest.advanceTimersByTime(1);
    await waiting;
    expect(sut.take(5)).toEqual([1]);
    sut.push(2);
    await expect(sut.waitFor(1)).resolves.toBeUndefined();
  });

  it('goes once `until` settles, and forgets the wait (a later push resolves nothing twice)', async () => {
    const sut = new WriteQueue<number>();
    let settle!: () => void;
    const until = new Promise<void>((r) => (settle = r));
    let ready = false;
    const waiting = sut.waitFor(5, { until }).then(() => (ready = true));
    await Promise.resolve();
    expect(ready).toBe(false);
    settle();
    await waiting;
    expect(ready).toBe(true);
    // Without a timeout or `until`, only enough writes end the wait.
    let second = false;
    const next = sut.waitFor(2).then(() => (second = true));
    sut.push(1);
    jest.advanceTimersByTime(10_000);
    await Promise.resolve();
    expect(second).toBe(false);
    sut.push(2);
    await next;
    expect(second).toBe(true);
  });

  it('takes the oldest writes first, at most the group size', () => {
    const sut = new WriteQueue<number>();
    for (let i = 0; i < 5; i++) sut.push(i);
    expect(sut.take(2)).toEqual([0, 1]);
    expect(sut.length).toBe(3);
  });
});
