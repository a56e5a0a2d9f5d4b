import { runInNewContext } from 'node:vm';
import { exposeGc, StreamedBytesCollector } from './streamed-bytes-collector';

describe('StreamedBytesCollector', () => {
  it('asks for a young-generation collection once per `everyBytes` streamed', () => {
    const collect = jest.fn();
    const sut = new StreamedBytesCollector(100, collect);
    sut.sent(60);
    expect(collect).not.toHaveBeenCalled();
    sut.sent(40);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(collect).toHaveBeenCalledWith({ type: 'minor' });
    for (let i = 0; i < 10; i++) sut.sent(30);
    expect(collect).toHaveBeenCalledTimes(3);
  });

  it('does nothing where the runtime gives no collector', () => {
    const sut = new StreamedBytesCollector(1, undefined);
    expect(() => sut.sent(10)).not.toThrow();
  });

  it('finds the runtime collector by default', () => {
    const sut = new StreamedBytesCollector(1);
    expect(() => sut.sent(1)).not.toThrow();
    expect((sut as unknown as { collect: unknown }).collect).toEqual(expect.any(Function));
  });

  it('leaves V8 flags as they were (code cached at exit stays valid for the next start)', () => {
    expect(exposeGc()).toEqual(expect.any(Function));
    // --expose-gc is off again: a context made now has no gc.
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
