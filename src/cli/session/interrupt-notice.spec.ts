import { InterruptNotice } from './interrupt-notice';

describe('InterruptNotice', () => {
  it('names the note of the work in progress, the innermost first, and none once it ends', async () => {
    const notice = new InterruptNotice();
    const seen: (string | undefined)[] = [notice.current];
    await notice.during('outer', async () => {
      seen.push(notice.current);
      await notice.during('inner', () => Promise.resolve(seen.push(notice.current)));
      seen.push(notice.current);
    });
    seen.push(notice.current);
    expect(seen).toEqual([undefined, 'outer', 'inner', 'outer', undefined]);
  });

  it('forgets the note when the work fails, and passes the failure on', async () => {
    const notice = new InterruptNotice();
    const failure = new Error('rpc went away');
    await expect(notice.during('note', () => Promise.reject(failure))).rejects.toBe(failure);
    expect(notice.current).toBeUndefined();
  });
});
