import { isCompressible, negotiateCoding } from './content-coding';

describe('negotiateCoding', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['gzip;q=0.5, br;q=0.5', 'br'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity', null],
    ['deflate', null],
    ['gzip;q=0, br;q=0', null],
    ['gzip;q=abc', null],
    ['', null],
    [undefined, null],
  ])('%p picks %p', (header, expected) => {
    expect(negotiateCoding(header)).toBe(expected);
  });
});

describe('isCompressible', () => {
  it.each([
    'text/html; charset=utf-8',
    'text/css',
    'application/javascript',
    'application/json',
    'application/manifest+json',
    'image/svg+xml',
    'application/wasm',
  ])('compresses %s', (type) => expect(isCompressible(type)).toBe(true));

  it.each([
    'image/png',
    'image/jpeg',
    'font/woff2',
    'video/mp4',
    'application/zip',
    'application/octet-stream',
  ])('leaves %s alone', (type) => expect(isCompressible(type)).toBe(false));
});
