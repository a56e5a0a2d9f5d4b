import { objectHeaders } from './object-route-headers';

const ETAG = `"${'ab'.repeat(32)}"`;

describe('objectHeaders', () => {
  it.each([
    'text/html; charset=utf-8',
    'TEXT/HTML',
    'application/xhtml+xml',
    'image/svg+xml',
    'text/xml',
    'application/xml',
    'application/rss+xml',
    'multipart/x-mixed-replace; boundary=x',
    'text/javascript',
    'image/png',
    'application/pdf',
    'application/octet-stream',
    'not a type\u0000',
  ])('serves %j sandboxed, nosniff, cross-origin embeddable', (type) => {
    const headers = objectHeaders(type, ETAG);
    for (const set of [headers.representation, headers.notModified]) {
      // No allow-* keyword: an opaque origin, and no script runs.
      expect(set['content-security-policy']).toBe('sandbox');
      expect(set['x-content-type-options']).toBe('nosniff');
      expect(set['cross-origin-resource-policy']).toBe('cross-origin');
    }
  });

  it('keeps the spec headers', () => {
    const { representation, notModified } = objectHeaders('text/html', ETAG);
    expect(representation).toMatchObject({
      'content-type': 'text/html',
      etag: ETAG,
      'cache-control': 'public, max-age=31536000, immutable',
      'accept-ranges': 'bytes',
      'access-control-allow-origin': '*',
    });
    expect(notModified['content-type']).toBeUndefined();
  });
});
