import { S3BackendAccessDeniedError } from '../s3-backend';
import { assertPublishableName, contentTypeForCopy, contentTypeForName } from './object-names';

describe('assertPublishableName', () => {
  it.each(['index.html', 'docs/a b.html', 'c++/x+y.txt', 'ünï/日本.txt', 'a..b', 'x/y.'])(
    'accepts %j',
    (name) => expect(() => assertPublishableName(name)).not.toThrow(),
  );

  it.each([
    ['.env', /hidden/],
    ['.git/config', /hidden/],
    ['assets/.secret', /hidden/],
    ['a/../b', /hidden/],
    ['.well-known/security.txt', /\.well-known/],
    ['.well-known', /\.well-known/],
    ['tab\there', /control/],
    ['', /1 to 1024/],
    ['x'.repeat(1025), /1 to 1024/],
  ])('refuses %j', (name, message) => {
    expect(() => assertPublishableName(name)).toThrow(S3BackendAccessDeniedError);
    expect(() => assertPublishableName(name)).toThrow(message);
  });
});

describe('contentTypeForName', () => {
  it('takes the type from the extension, as tape deploy does, whatever the client sent', () => {
    expect(contentTypeForName('index.html', 'application/octet-stream')).toBe(
      'text/html; charset=utf-8',
    );
    expect(contentTypeForName('a.svg', undefined)).toBe('image/svg+xml');
    expect(contentTypeForName('app.js', 'text/plain')).toBe('text/javascript; charset=utf-8');
  });

  it('uses a well-formed client type only when the extension says nothing', () => {
    expect(contentTypeForName('data.unknownext', 'application/x-thing')).toBe(
      'application/x-thing',
    );
    expect(contentTypeForName('data.unknownext', 'binary/octet-stream')).toBe(
      'application/octet-stream',
    );
    expect(contentTypeForName('data.unknownext', 'not a type\r\nx: y')).toBe(
      'application/octet-stream',
    );
    expect(contentTypeForName('data.unknownext', `a/${'b'.repeat(300)}`)).toBe(
      'application/octet-stream',
    );
  });
});

describe('contentTypeForCopy', () => {
  it("takes the destination's extension unless the request replaces the type", () => {
    expect(contentTypeForCopy('b.txt', undefined)).toBe('text/plain; charset=utf-8');
    expect(contentTypeForCopy('c.html', 'application/xhtml+xml')).toBe('application/xhtml+xml');
    expect(contentTypeForCopy('c.html', 'garbage')).toBe('text/html; charset=utf-8');
  });
});
