import { withChainWatchdog } from './chain-watchdog';

describe('withChainWatchdog', () => {
  it('returns the work when the RPC answers', async () => {
    const ping = jest.fn().mockResolvedValue(undefined);
    const work = new Promise((r) => setTimeout(() => r('done'), 60));
    await expect(withChainWatchdog(ping, work, 10)).resolves.toBe('done');
    expect(ping).toHaveBeenCalled();
  });

  it('fails with the ping error after two failed pings in a row, without waiting for the work', async () => {
    const ping = jest.fn().mockRejectedValue(new Error('cannot reach the chain RPC at http://x'));
    const never = new Promise(() => undefined);
    const started = Date.now();
    await expect(withChainWatchdog(ping, never, 10)).rejects.toThrow(
      'cannot reach the chain RPC at http://x',
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(ping).toHaveBeenCalledTimes(2);
  });

  it('forgives one failed ping and passes the work error through', async () => {
    let calls = 0;
    const ping = () => (++calls === 1 ? Promise.reject(new Error('blip')) : Promise.resolve());
    const work = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('program error')), 80),
    );
    await expect(withChainWatchdog(ping, work, 10)).rejects.toThrow('program error');
  });
});
