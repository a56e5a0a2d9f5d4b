import { backoffMs, parseRetryAfter, retryAfterWithJitter, WaitBudget } from './upload-backoff';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T20:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
  });

  it('reads an HTTP date as the time left until it, a past date as now', () => {
    expect(parseRetryAfter('Mon, 23 Nov 2026 20:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Monday, 23-Nov-26 20:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 19:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is neither', () => {
    for (const bad of [undefined, '', 'soon', '-1', '1.5', '5 apples', 'Mon, banana']) {
      expect(parseRetryAfter(bad, now)).toBeUndefined();
    }
  });
});

describe('backoffMs', () => {
  it('doubles from 250 ms up to 15 s, between half and all of each step', () => {
    const low = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((a) => backoffMs(a, () => 0));
    const high = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((a) => backoffMs(a, () => 1));
    expect(high).toEqual([250, 500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
    expect(low).toEqual([125, 250, 500, 1000, 2000, 4000, 7500, 7500, 7500]);
    expect(backoffMs(3, () => 0.5)).toBe(750);
  });

  it('takes its own base and cap', () => {
    expect(backoffMs(1, () => 1, 10, 100)).toBe(10);
    expect(backoffMs(10, () => 1, 10, 100)).toBe(100);
  });
});

describe('retryAfterWithJitter', () => {
  it('adds at most a tenth, at least 50 ms and at most 1 s of spread', () => {
    expect(retryAfterWithJitter(4000, () => 0)).toBe(4000);
    expect(retryAfterWithJitter(4000, () => 1)).toBe(4400);
    expect(retryAfterWithJitter(60_000, () => 1)).toBe(61_000);
    expect(retryAfterWithJitter(0, () => 1)).toBe(50);
  });
});

describe('WaitBudget', () => {
  it('takes waits until the cap and refuses the one that would pass it', () => {
    const budget = new WaitBudget(120_000);
    expect(budget.take(60_000)).toBe(true);
    expect(budget.take(59_000)).toBe(true);
    expect(budget.take(2_000)).toBe(false);
    expect(budget.spentMs).toBe(119_000);
    expect(budget.take(1_000)).toBe(true);
  });
});
