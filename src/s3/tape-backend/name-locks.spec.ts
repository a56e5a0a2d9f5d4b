import { NameLocks } from './name-locks';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('NameLocks', () => {
  it('runs work on one name one at a time, in arrival order, and forgets idle names', async () => {
    const locks = new NameLocks();
    const log: string[] = [];
    const work = (id: string) => async () => {
      log.push(`start ${id}`);
      await tick();
      log.push(`end ${id}`);
    };
    await Promise.all([locks.run(['a'], work('1')), locks.run(['a'], work('2'))]);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    expect(locks.size).toBe(0);
  });

  it('lets different names run at once', async () => {
    const locks = new NameLocks();
    let running = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++running);
      await tick();
      running--;
    };
    await Promise.all([locks.run(['a'], work), locks.run(['b'], work)]);
    expect(most).toBe(2);
  });

  it('takes several names in a fixed order (no deadlock) and releases them after a failure', async () => {
    const locks = new NameLocks();
    const failing = locks.run(['b', 'a'], async () => {
      await tick();
      throw new Error('boom');
    });
    const other = locks.run(['a', 'b'], async () => 'done');
    await expect(failing).rejects.toThrow('boom');
    await expect(other).resolves.toBe('done');
    expect(locks.size).toBe(0);
  });
});
