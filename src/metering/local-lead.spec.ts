import { LocalLead } from './local-lead';

/** A shared counter answering when told to, like Redis replying in send order. */
function newLead(syncMs = 10) {
  let now = 1_000;
  let shared = 0;
  const queue: Array<{
    amount: number;
    answer: (r: [number, number]) => void;
    fail: (e: Error) => void;
  }> = [];
  const send = jest.fn(
    (_key: string, amount: number, _windowMs: number) =>
      new Promise<[number, number]>((answer, fail) => queue.push({ amount, answer, fail })),
  );
  const sut = new LocalLead(syncMs, send, () => now);
  const replyAll = async (otherGateways = 0) => {
    shared += otherGateways;
    for (const call of queue.splice(0)) {
      shared += call.amount;
      call.answer([shared, 30_000]);
    }
    await new Promise((r) => setImmediate(r));
  };
  const failAll = async () => {
    for (const call of queue.splice(0)) call.fail(new Error('down'));
    await new Promise((r) => setImmediate(r));
  };
  return { sut, send, replyAll, failAll, advance: (ms: number) => (now += ms), queue };
}

describe('LocalLead', () => {
  afterEach(() => jest.useRealTimers());

  it('sends unknown keys the exact way, then answers fresh keys locally', () => {
    const { sut } = newLead();
    expect(sut.tryHit('k', 1)).toBeUndefined();
    sut.learn('k', 60_000, 5, 30_000);
    expect(sut.tryHit('k', 1)).toEqual({ total: 6, msToReset: 30_000 });
    expect(sut.tryHit('k', 2)).toEqual({ total: 8, msToReset: 30_000 });
    sut.close();
  });

  it('tells an exact answer what this gateway still owes on top of it', () => {
    jest.useFakeTimers();
    const { sut } = newLead(10);
    sut.learn('k', 60_000, 5, 30_000);
    sut.tryHit('k', 1);
    sut.tryHit('k', 1);
    jest.advanceTimersByTime(10); // 2 in flight
    sut.learn('k', 60_000, 6, 30_000); // an answer that includes neither
    sut.tryHit('k', 1); // 1 not sent yet
    expect(sut.learn('k', 60_000, 6, 30_000)).toBe(3);
    sut.close();
  });

  it('goes the exact way again once what it knows is older than the sync period', () => {
    const { sut, advance } = newLead(10);
    sut.learn('k', 60_000, 5, 30_000);
    advance(11);
    expect(sut.tryHit('k', 1)).toBeUndefined();
    sut.learn('k', 60_000, 5, 30_000);
    sut.tryHit('k', 1);
    advance(11); // older, but a sync of its own hits is on its way: stays local
    expect(sut.tryHit('k', 1)).toEqual({ total: 7, msToReset: 30_000 - 11 });
    sut.learn('k', 60_000, 5, 30_000);
    advance(30_000);
    expect(sut.tryHit('k', 1)).toBeUndefined(); // the window ended
    sut.close();
  });

  it('sends local hits as one command per period and learns other gateways from the answer', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { sut, send, replyAll } = newLead(10);
    sut.learn('k', 60_000, 0, 30_000);
    for (let i = 0; i < 5; i++) sut.tryHit('k', 1);
    expect(send).not.toHaveBeenCalled();
    jest.advanceTimersByTime(10);
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledWith('k', 5, 60_000);
    // While that command is in flight, its hits still count, and new ones add to them.
    expect(sut.tryHit('k', 1)).toMatchObject({ total: 6 });
    await replyAll(100); // other gateways added 100 meanwhile
    expect(sut.tryHit('k', 1)).toMatchObject({ total: 107 });
    sut.close();
  });

  it('counts a batch in flight once, whichever answer comes first', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { sut, queue } = newLead(10);
    sut.learn('k', 60_000, 10, 30_000);
    sut.tryHit('k', 3);
    jest.advanceTimersByTime(10); // the 3 are in flight
    // An exact hit sent before the sync is answered first: its total (11) lacks the 3.
    sut.learn('k', 60_000, 11, 30_000);
    expect(sut.tryHit('k', 0)).toMatchObject({ total: 14 });
    // Then the sync's own answer, which includes them: still 14, not 17.
    queue.splice(0)[0].answer([14, 30_000]);
    await new Promise((r) => setImmediate(r));
    expect(sut.tryHit('k', 0)).toMatchObject({ total: 14 });
    sut.close();
  });

  it('forgets a key whose sync failed, so its next hit goes the exact way', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { sut, failAll } = newLead(10);
    sut.learn('k', 60_000, 1, 30_000);
    sut.tryHit('k', 1);
    jest.advanceTimersByTime(10);
    await failAll();
    expect(sut.tryHit('k', 1)).toBeUndefined();
    sut.close();
  });

  it('drops keys whose window is over and that owe nothing', () => {
    const { sut, advance } = newLead(10);
    sut.learn('a', 60_000, 1, 1_000);
    sut.learn('b', 60_000, 1, 60_000);
    advance(1_000);
    sut.sweep();
    expect(sut.size).toBe(1);
    sut.close();
  });
});
