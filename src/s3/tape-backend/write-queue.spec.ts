import { WriteQueue } from './write-queue';

describe('WriteQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits for as many writes as were answered, then goes at once', async () => {
    const sut = new WriteQueue<number>(25);
    sut.push(1);
    let ready = false;
    const waiting = sut.refilled(3).then(() => (ready = true));
    sut.push(2);
    await Promise.resolve();
    expect(ready).toBe(false);
    sut.push(3);
    await waiting;
    expect(ready).toBe(true);
    expect(sut.take(10)).toEqual([1, 2, 3]);
  });

  it('goes after the refill wait with what came, and at once when enough wait already', async () => {
    const sut = new WriteQueue<number>(25);
    let ready = false;
    const waiting = sut.refilled(10).then(() => (ready = true));
    sut.push(1);
    jest.advanceTimersByTime(24);
    await Promise.resolve();
    expect(ready).toBe(false);
    jest.advanceTimersByTime(1);
    await waiting;
    expect(sut.take(5)).toEqual([1]);
    sut.push(2);
    await expect(sut.refilled(1)).resolves.toBeUndefined();
  });

  it('takes the oldest writes first, at most the group size', () => {
    const sut = new WriteQueue<number>(25);
    for (let i = 0; i < 5; i++) sut.push(i);
    expect(sut.take(2)).toEqual([0, 1]);
    expect(sut.length).toBe(3);
  });
});
