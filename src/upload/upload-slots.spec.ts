import { StorageConfig } from '../config/storage.config';
import { UploadSlots } from './upload-slots';

function newTestSlots(perClient: number, perTape: number) {
  const storage = new StorageConfig();
  storage.uploads = Object.assign(storage.uploads, {
    max_per_client: perClient,
    max_per_tape: perTape,
  });
  return new UploadSlots(storage);
}

describe('UploadSlots', () => {
  it('refuses the N+1th slot of one key, not of another, and frees a slot once on release', () => {
    const sut = newTestSlots(2, 5);
    const a1 = sut.acquire('client', 'a');
    const a2 = sut.acquire('client', 'a');
    expect(sut.acquire('client', 'a')).toEqual({ scope: 'client', limit: 2 });
    expect(typeof sut.acquire('client', 'b')).toBe('function');
    if (typeof a1 !== 'function' || typeof a2 !== 'function') throw new Error('expected slots');
    a1();
    a1(); // a second release of the same slot frees nothing more
    expect(typeof sut.acquire('client', 'a')).toBe('function');
    expect(sut.acquire('client', 'a')).toEqual({ scope: 'client', limit: 2 });
    expect(sut.stats().refused).toEqual({ client: 2, tape: 0 });
  });

  it('counts tapes separately from clients', () => {
    const sut = newTestSlots(10, 1);
    expect(typeof sut.acquire('tape', 't')).toBe('function');
    expect(sut.acquire('tape', 't')).toEqual({ scope: 'tape', limit: 1 });
    expect(typeof sut.acquire('client', 't')).toBe('function');
  });
});
