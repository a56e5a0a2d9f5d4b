import {
  decodeContinuationToken,
  encodeContinuationToken,
  listObjectsPage,
  ListObjectsQuery,
  parseMaxKeys,
} from './list-objects';
import { listUploadsPage } from './list-uploads';
import type { S3ObjectInfo } from '../s3-backend';
import { S3Error } from '../s3-error';

const objects = (keys: string[]): S3ObjectInfo[] =>
  keys.map((key) => ({ key, size: key.length, etag: 'e', lastModified: new Date(0) }));

const query = (q: Partial<ListObjectsQuery>): ListObjectsQuery => ({
  prefix: '',
  delimiter: '',
  maxKeys: 1000,
  ...q,
});

const keysOf = (page: { contents: S3ObjectInfo[] }) => page.contents.map((o) => o.key);

describe('listObjectsPage', () => {
  it('orders keys by UTF-8 bytes, not by JavaScript (UTF-16) string order', () => {
    // U+FF5A (EF BD 9A in UTF-8) sorts before U+1F600 (F0 9F 98 80) in bytes, after it in UTF-16.
    const keys = ['😀.txt', 'ｚ.txt', 'é.txt', 'z.txt', 'Z.txt', 'a b.txt', 'a+b.txt', 'a.txt'];
    const inBytes = ['Z.txt', 'a b.txt', 'a+b.txt', 'a.txt', 'z.txt', 'é.txt', 'ｚ.txt', '😀.txt'];
    expect([...keys].sort()).not.toEqual(inBytes);
    const page = listObjectsPage(objects(keys), query({}));
    expect(keysOf(page)).toEqual(inBytes);
  });

  it('filters by prefix and rolls keys up into common prefixes at the delimiter', () => {
    const all = objects([
      'index.html',
      'docs/a.html',
      'docs/b/c.html',
      'docs/b/d.html',
      'img/x.png',
      'docs2.txt',
    ]);
    const root = listObjectsPage(all, query({ delimiter: '/' }));
    expect(keysOf(root)).toEqual(['docs2.txt', 'index.html']);
    expect(root.commonPrefixes).toEqual(['docs/', 'img/']);
    const docs = listObjectsPage(all, query({ prefix: 'docs/', delimiter: '/' }));
    expect(keysOf(docs)).toEqual(['docs/a.html']);
    expect(docs.commonPrefixes).toEqual(['docs/b/']);
    const multi = listObjectsPage(all, query({ delimiter: 'b/' }));
    expect(multi.commonPrefixes).toEqual(['docs/b/']);
  });

  it('paginates over more than 1000 keys with continuation tokens, losing and repeating nothing', () => {
    const keys = Array.from({ length: 2345 }, (_, i) => `k/${String(i).padStart(5, '0')}-ü`);
    const all = objects(keys);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = listObjectsPage(all, query({ after }));
      pages++;
      seen.push(...keysOf(page));
      if (!page.isTruncated) break;
      expect(page.contents).toHaveLength(1000);
      after = decodeContinuationToken(encodeContinuationToken(page.lastReturned!));
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(keys);
  });

  it('paginates common prefixes without repeating a prefix on the next page', () => {
    const all = objects(['a/1', 'a/2', 'b/1', 'b/2', 'c', 'd/1']);
    const first = listObjectsPage(all, query({ delimiter: '/', maxKeys: 2 }));
    expect(first.commonPrefixes).toEqual(['a/', 'b/']);
    expect(first.isTruncated).toBe(true);
    const second = listObjectsPage(
      all,
      query({ delimiter: '/', maxKeys: 2, after: first.lastReturned }),
    );
    expect(keysOf(second)).toEqual(['c']);
    expect(second.commonPrefixes).toEqual(['d/']);
    expect(second.isTruncated).toBe(false);
  });

  it('starts strictly after start-after / marker, in byte order', () => {
    const page = listObjectsPage(objects(['a', 'b', 'é', 'ｚ', '😀']), query({ after: 'é' }));
    expect(keysOf(page)).toEqual(['ｚ', '😀']);
  });

  it('answers max-keys=0 with nothing and not truncated', () => {
    const page = listObjectsPage(objects(['a']), query({ maxKeys: 0 }));
    expect(page.contents).toEqual([]);
    expect(page.isTruncated).toBe(false);
  });
});

describe('listing parameters', () => {
  it('clamps max-keys to 1000 and refuses non-integers', () => {
    expect(parseMaxKeys(undefined)).toBe(1000);
    expect(parseMaxKeys('5000')).toBe(1000);
    expect(parseMaxKeys('7')).toBe(7);
    expect(() => parseMaxKeys('-1')).toThrow(S3Error);
    expect(() => parseMaxKeys('ten')).toThrow(S3Error);
  });

  it('round-trips continuation tokens and refuses forged ones', () => {
    expect(decodeContinuationToken(encodeContinuationToken('ünï/😀 +'))).toBe('ünï/😀 +');
    for (const bad of ['', 'not base64!', '_w', Buffer.from([0xff, 0xfe]).toString('base64url')]) {
      expect(() => decodeContinuationToken(bad)).toThrow(S3Error);
    }
  });
});

describe('listUploadsPage', () => {
  const upload = (key: string, uploadId: string, at: number) => ({
    key,
    uploadId,
    initiated: new Date(at),
  });

  it('orders by key bytes then initiation, and resumes after key and upload markers', () => {
    const all = [
      upload('b', 'u3', 3),
      upload('a', 'u2', 2),
      upload('a', 'u1', 1),
      upload('é', 'u4', 4),
    ];
    const first = listUploadsPage(all, {
      prefix: '',
      delimiter: '',
      keyMarker: '',
      uploadIdMarker: '',
      maxUploads: 2,
    });
    expect(first.uploads.map((u) => u.uploadId)).toEqual(['u1', 'u2']);
    expect(first.isTruncated).toBe(true);
    const next = listUploadsPage(all, {
      prefix: '',
      delimiter: '',
      keyMarker: first.nextKeyMarker!,
      uploadIdMarker: first.nextUploadIdMarker!,
      maxUploads: 2,
    });
    expect(next.uploads.map((u) => u.uploadId)).toEqual(['u3', 'u4']);
    expect(next.isTruncated).toBe(false);
  });

  it('rolls keys up at the delimiter, each prefix once, and pages past a prefix', () => {
    const all = [
      upload('site/a.html', 'u1', 1),
      upload('site/img/x.png', 'u2', 2),
      upload('site/img/y.png', 'u3', 3),
      upload('site/css/s.css', 'u4', 4),
      upload('site/z.html', 'u5', 5),
      upload('other', 'u6', 6),
    ];
    const query = { prefix: 'site/', delimiter: '/', uploadIdMarker: '', maxUploads: 2 };
    const first = listUploadsPage(all, { ...query, keyMarker: '' });
    expect(first.uploads.map((u) => u.key)).toEqual(['site/a.html']);
    expect(first.commonPrefixes).toEqual(['site/css/']);
    expect(first).toMatchObject({ isTruncated: true, nextKeyMarker: 'site/css/' });
    expect(first.nextUploadIdMarker).toBeUndefined();
    const next = listUploadsPage(all, { ...query, keyMarker: first.nextKeyMarker! });
    expect(next.commonPrefixes).toEqual(['site/img/']);
    expect(next.uploads.map((u) => u.key)).toEqual(['site/z.html']);
    expect(next.isTruncated).toBe(false);
    expect(next.nextKeyMarker).toBeUndefined();
  });
});
