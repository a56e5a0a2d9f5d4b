import { Readable } from 'node:stream';
import { primeStream } from './primed-stream';
import { drain } from '../../test/support/fixtures/tracks';

/** A source that emits `chunks` then fails with `error` (if given), recording its destruction. */
function source(chunks: Buffer[], error?: Error) {
  let index = 0;
  const state = { destroyed: false, reads: 0 };
  const stream = new Readable({
    highWaterMark: 1,
    read() {
      state.reads++;
      setImmediate(() => {
        if (index < chunks.length) this.push(chunks[index++]);
        else if (error) this.destroy(error);
        else this.push(null);
      });
    },
    destroy(err, callback) {
      state.destroyed = true;
      callback(err);
    },
  });
  return { stream, state };
}

describe('primeStream', () => {
  it('rejects when the first bytes fail, and releases the source', async () => {
    const { stream, state } = source([], new Error('chunk 0 does not match its hash'));
    const late = jest.fn();
    await expect(primeStream(stream, late)).rejects.toThrow('chunk 0 does not match');
    expect(state.destroyed).toBe(true);
    expect(late).not.toHaveBeenCalled();
  });

  it('passes every byte through, in order, starting with the primed ones', async () => {
    const chunks = [Buffer.from('alpha'), Buffer.from('beta'), Buffer.from('gamma')];
    const { stream } = source(chunks);
    const primed = await primeStream(stream, jest.fn());
    expect((await drain(primed)).bytes.toString()).toBe('alphabetagamma');
  });

  it('reads nothing more than the first chunk before it is consumed', async () => {
    const { stream, state } = source([Buffer.alloc(10), Buffer.alloc(10), Buffer.alloc(10)]);
    await primeStream(stream, jest.fn());
    await new Promise((r) => setTimeout(r, 20));
    expect(state.reads).toBeLessThanOrEqual(2);
  });

  it('fails the stream after the good bytes when a later chunk fails, and reports it', async () => {
    const failure = new Error('chunk 2 does not match its hash');
    const { stream } = source([Buffer.from('good'), Buffer.from('also')], failure);
    const late = jest.fn();
    const result = await drain(await primeStream(stream, late));
    expect(result.bytes.toString()).toBe('goodalso');
    expect(result.error).toBe(failure);
    expect(late).toHaveBeenCalledWith(failure);
  });

  it('reports every byte it passes on', async () => {
    const { stream } = source([Buffer.alloc(5), Buffer.alloc(7), Buffer.alloc(9)]);
    let counted = 0;
    const primed = await primeStream(stream, jest.fn(), (bytes) => (counted += bytes));
    await drain(primed);
    expect(counted).toBe(21);
  });

  it('an empty source gives an empty stream', async () => {
    const { stream } = source([]);
    expect((await drain(await primeStream(stream, jest.fn()))).bytes.length).toBe(0);
  });

  it('destroying the primed stream (client gone) destroys the source', async () => {
    const chunks = Array.from({ length: 100 }, () => Buffer.alloc(1000));
    const { stream, state } = source(chunks);
    const primed = await primeStream(stream, jest.fn());
    primed.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(state.destroyed).toBe(true);
  });
});
