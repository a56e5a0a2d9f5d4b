import { S3Error } from '../s3-error';
import { resolveRange } from './s3-object-handlers';

/** The InvalidRange refusal for an object of `size` bytes, as thrown. */
function invalidRange(size: number): S3Error {
  return expect.objectContaining({
    code: 'InvalidRange',
    status: 416,
    details: { ActualObjectSize: String(size) },
    headers: { 'content-range': `bytes */${size}` },
  }) as S3Error;
}

describe('resolveRange (GetObject Range, over the shared byte-range parser)', () => {
  it('resolves first-last, open and suffix ranges; ignores malformed ones', () => {
    expect(resolveRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(resolveRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(resolveRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(resolveRange('bytes=50-1000', 100)).toEqual({ start: 50, end: 99 });
    expect(resolveRange('bytes=-1000', 100)).toEqual({ start: 0, end: 99 });
    expect(resolveRange('items=0-1', 100)).toBeUndefined();
    expect(resolveRange('bytes=5-3', 100)).toBeUndefined();
    expect(resolveRange('bytes=-', 100)).toBeUndefined();
    expect(resolveRange('bytes=a-b', 100)).toBeUndefined();
    expect(resolveRange(undefined, 100)).toBeUndefined();
  });

  it('serves the whole object for several ranges, even ones that would coalesce', () => {
    expect(resolveRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(resolveRange('bytes=0-1,2-3', 100)).toBeUndefined();
    expect(resolveRange('bytes=0-1,200-', 100)).toBeUndefined();
  });

  it('takes the RFC 9110 forms: the unit in any case, whitespace, empty list elements', () => {
    expect(resolveRange('Bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(resolveRange(' bytes=0-9 ', 100)).toEqual({ start: 0, end: 9 });
    expect(resolveRange('bytes= 0-9 ,', 100)).toEqual({ start: 0, end: 9 });
    expect(resolveRange(`bytes=${'0'.repeat(1100)}1-5`, 100)).toBeUndefined(); // past 1024 chars
  });

  it('answers 416 InvalidRange with Content-Range and the size for a range past the end', () => {
    for (const header of ['bytes=100-', 'bytes=100-200', 'bytes=-0', `bytes=${'9'.repeat(30)}-`]) {
      expect(() => resolveRange(header, 100)).toThrow(invalidRange(100));
    }
    expect(() => resolveRange('bytes=100-', 100)).toThrow(S3Error);
  });

  it('refuses every range of an empty object, suffix ranges included (as S3 does)', () => {
    for (const header of ['bytes=0-', 'bytes=0-0', 'bytes=-5', 'bytes=-0']) {
      expect(() => resolveRange(header, 0)).toThrow(invalidRange(0));
    }
    expect(resolveRange('bytes=5-3', 0)).toBeUndefined();
  });
});
