import { ifNoneMatchMatches, ifRangeAllowsRange } from './conditional-request';

const ETAG = `"${'ab'.repeat(32)}"`;

describe('ifRangeAllowsRange', () => {
  it('allows the range without If-Range or with the exact strong ETag', () => {
    expect(ifRangeAllowsRange(undefined, ETAG)).toBe(true);
    expect(ifRangeAllowsRange(ETAG, ETAG)).toBe(true);
    expect(ifRangeAllowsRange(` ${ETAG} `, ETAG)).toBe(true);
  });

  it('sends the whole object for another tag, a weak tag, a date or garbage', () => {
    expect(ifRangeAllowsRange(`"${'cd'.repeat(32)}"`, ETAG)).toBe(false);
    expect(ifRangeAllowsRange(`W/${ETAG}`, ETAG)).toBe(false);
    expect(ifRangeAllowsRange('Wed, 21 Oct 2015 07:28:00 GMT', ETAG)).toBe(false);
    expect(ifRangeAllowsRange(ETAG.slice(1, -1), ETAG)).toBe(false);
    expect(ifRangeAllowsRange('', ETAG)).toBe(false);
    expect(ifRangeAllowsRange(`W/${ETAG}`, `W/${ETAG}`)).toBe(false);
  });
});

describe('ifNoneMatchMatches', () => {
  it('matches *, the tag, its weak form, or the tag in a list', () => {
    expect(ifNoneMatchMatches('*', ETAG)).toBe(true);
    expect(ifNoneMatchMatches(ETAG, ETAG)).toBe(true);
    expect(ifNoneMatchMatches(`W/${ETAG}`, ETAG)).toBe(true);
    expect(ifNoneMatchMatches(`"x", "a,b" ,${ETAG}`, ETAG)).toBe(true);
    expect(ifNoneMatchMatches(`, ,${ETAG},`, ETAG)).toBe(true);
  });

  it('does not match without the header, another tag or a malformed list', () => {
    expect(ifNoneMatchMatches(undefined, ETAG)).toBe(false);
    expect(ifNoneMatchMatches('"x"', ETAG)).toBe(false);
    expect(ifNoneMatchMatches(ETAG.slice(1, -1), ETAG)).toBe(false);
    expect(ifNoneMatchMatches(`${ETAG} ${ETAG}`, ETAG)).toBe(false);
    expect(ifNoneMatchMatches(`"x", junk, ${ETAG}`, ETAG)).toBe(false);
    expect(ifNoneMatchMatches(`w/${ETAG}`, ETAG)).toBe(false);
    expect(ifNoneMatchMatches('**', ETAG)).toBe(false);
  });

  it('is bounded on hostile lists', () => {
    const started = Date.now();
    expect(ifNoneMatchMatches(`${'"x",'.repeat(10_000)}${ETAG}`, ETAG)).toBe(false);
    expect(ifNoneMatchMatches(`"${'a'.repeat(100_000)}`, ETAG)).toBe(false);
    expect(ifNoneMatchMatches(','.repeat(100_000), ETAG)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
