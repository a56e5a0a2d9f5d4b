import { ShutdownSignal } from './shutdown-signal';

describe('ShutdownSignal', () => {
  it('tells each listener once when shutdown begins, and a late listener at once', () => {
    const signal = new ShutdownSignal();
    const told: string[] = [];
    signal.onBegin(() => told.push('main'));
    signal.onBegin(() => told.push('s3'));
    expect([signal.hasBegun, told]).toEqual([false, []]);

    signal.begin();
    signal.begin();
    expect([signal.hasBegun, told]).toEqual([true, ['main', 's3']]);

    signal.onBegin(() => told.push('late'));
    expect(told).toEqual(['main', 's3', 'late']);
  });
});
