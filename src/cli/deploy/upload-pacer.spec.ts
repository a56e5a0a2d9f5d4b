import { UploadPacer } from './upload-pacer';

/** A request the test answers by hand: resolves with the outcome the test gives it. */
function harness(max: number) {
  const pacer = new UploadPacer(max);
  const started: { retry: boolean; answer: (o: 'ok' | number) => void }[] = [];
  const send = (retry = false) =>
    pacer.run(
      retry,
      () =>
        new Promise<'ok' | number>((answer) => {
          started.push({ retry, answer });
        }),
      (o) => (o === 'ok' ? { kind: 'accepted' } : { kind: 'refused', retryAfterMs: o }),
    );
  const tick = () => new Promise((r) => setImmediate(r));
  return { pacer, started, send, tick };
}

describe('UploadPacer', () => {
  it('starts up to its maximum at once and queues the rest', async () => {
    const { started, send, tick } = harness(3);
    const all = Array.from({ length: 5 }, () => send());
    await tick();
    expect(started).toHaveLength(3);
    started[0].answer('ok');
    await tick();
    expect(started).toHaveLength(4);
    started.slice(1).forEach((s) => s.answer('ok'));
    await tick();
    started[4].answer('ok');
    await Promise.all(all);
  });

  it('narrows to the uploads the gateway holds when it refuses some', async () => {
    const { pacer, started, send, tick } = harness(8);
    const all = Array.from({ length: 8 }, () => send());
    await tick();
    // The gateway holds two and refuses six: the window becomes 2.
    started.slice(2).forEach((s) => s.answer(1000));
    await tick();
    expect(pacer.window).toBe(2);
    expect(pacer.pausedUntil).toBe(0);
    // A retry waits for one of the two to finish, and then goes first.
    const fresh = send(false);
    const retry = send(true);
    await tick();
    expect(started).toHaveLength(8);
    started[0].answer('ok');
    await tick();
    expect(started[8].retry).toBe(true);
    expect(pacer.window).toBe(3);
    started[1].answer('ok');
    started[8].answer('ok');
    await tick();
    started[9].answer('ok');
    await Promise.all([...all, fresh, retry]);
  });

  it('sends nothing until Retry-After once every upload in flight was refused', async () => {
    const { pacer, started, send, tick } = harness(4);
    const all = Array.from({ length: 4 }, () => send());
    await tick();
    const t0 = Date.now();
    started.forEach((s) => s.answer(300));
    await Promise.all(all);
    expect(pacer.pausedUntil).toBeGreaterThanOrEqual(t0 + 290);
    const next = send(true);
    await tick();
    expect(started).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 350));
    expect(started).toHaveLength(5);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    started[4].answer('ok');
    await next;
    expect(pacer.window).toBe(2);
  });
});
