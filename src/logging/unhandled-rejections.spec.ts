import { EventEmitter } from 'node:events';
import { keepRunningOnUnhandledRejections } from './unhandled-rejections';

describe('keepRunningOnUnhandledRejections', () => {
  it('reports each rejection as one line naming the error', () => {
    const target = new EventEmitter();
    const lines: string[] = [];
    keepRunningOnUnhandledRejections((line) => lines.push(line), target);
    target.emit('unhandledRejection', new TypeError('fetch failed'), Promise.resolve());
    target.emit('unhandledRejection', 'plain reason', Promise.resolve());
    target.emit('unhandledRejection', Object.create(null), Promise.resolve());
    expect(lines).toEqual([
      'TypeError: fetch failed',
      'plain reason',
      'a value that cannot be printed',
    ]);
  });

  it('stops reporting once removed', () => {
    const target = new EventEmitter();
    const lines: string[] = [];
    const remove = keepRunningOnUnhandledRejections((line) => lines.push(line), target);
    remove();
    expect(target.listenerCount('unhandledRejection')).toBe(0);
  });
});
