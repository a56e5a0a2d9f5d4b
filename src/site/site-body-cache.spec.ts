import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ObjectReader, OpenedObject, TrackRef } from '../tracks/object-reader';
import { SiteBodyCache } from './site-body-cache';
import { SiteObject } from './site-source';

function object(name: string, body: Buffer): SiteObject {
  const commitment = randomBytes(32);
  return {
    name,
    kind: 'blob',
    commitment,
    commitmentHex: commitment.toString('hex'),
    size: body.length,
    contentType: 'text/css',
  };
}

/** An object reader over a map of bodies that counts its opens. */
function newTestCache(bodies: Map<string, Buffer>, cacheBytes = 1 << 20, maxObjectBytes = 1 << 16) {
  let opens = 0;
  const reader = {
    open: async (ref: TrackRef): Promise<OpenedObject> => {
      opens++;
      const bytes = bodies.get(ref.commitment.toString('hex'));
      if (!bytes) throw new Error('no such track');
      return { bytes, size: bytes.length } as OpenedObject;
    },
  } as unknown as ObjectReader;
  const sut = new SiteBodyCache(reader, cacheBytes, maxObjectBytes);
  return { sut, opens: () => opens };
}

describe('SiteBodyCache', () => {
  const text = Buffer.from('body { color: red; }\n'.repeat(200));
  const noise = randomBytes(4000);

  it('reads a body once for concurrent misses and then answers from memory', async () => {
    const css = object('a.css', text);
    const { sut, opens } = newTestCache(new Map([[css.commitmentHex, text]]));
    expect(sut.getIdentity(css)).toBeUndefined();
    const loads = await Promise.all([
      sut.loadIdentity(css),
      sut.loadIdentity(css),
      sut.loadIdentity(css),
    ]);
    expect(loads.every((b) => b.equals(text))).toBe(true);
    expect(opens()).toBe(1);
    expect(sut.getIdentity(css)?.equals(text)).toBe(true);
  });

  it('compresses a variant once, and keeps it', async () => {
    const css = object('a.css', text);
    const { sut, opens } = newTestCache(new Map([[css.commitmentHex, text]]));
    const [br, again] = await Promise.all([sut.loadVariant(css, 'br'), sut.loadVariant(css, 'br')]);
    expect(br).toBe(again);
    expect(brotliDecompressSync(br!).equals(text)).toBe(true);
    expect(await sut.loadVariant(css, 'br')).toBe(br);
    expect(sut.getVariant(css, 'br')).toBe(br);
    expect(gunzipSync((await sut.loadVariant(css, 'gzip'))!).equals(text)).toBe(true);
    expect(opens()).toBe(1);
  });

  it('remembers that a variant does not pay, without compressing again', async () => {
    const random = object('noise.txt', noise);
    const { sut, opens } = newTestCache(new Map([[random.commitmentHex, noise]]));
    expect(await sut.loadVariant(random, 'br')).toBeNull();
    expect(sut.getVariant(random, 'br')).toBeUndefined();
    expect(await sut.loadVariant(random, 'br')).toBeNull();
    expect(opens()).toBe(1);
  });

  it('holds whole only objects within both limits', () => {
    const { sut } = newTestCache(new Map(), 10_000, 5_000);
    expect(sut.cacheable(object('small', Buffer.alloc(5_000)))).toBe(true);
    expect(sut.cacheable(object('big', Buffer.alloc(5_001)))).toBe(false);
  });

  it('stays within its byte budget', async () => {
    const bodies = new Map<string, Buffer>();
    const objects = Array.from({ length: 5 }, (_, i) => {
      const o = object(`f${i}`, Buffer.alloc(3000, i));
      bodies.set(o.commitmentHex, Buffer.alloc(3000, i));
      return o;
    });
    const { sut } = newTestCache(bodies, 10_000, 5_000);
    for (const o of objects) await sut.loadIdentity(o);
    expect(objects.filter((o) => sut.getIdentity(o) !== undefined)).toHaveLength(3);
    expect(sut.getIdentity(objects[0])).toBeUndefined();
  });
});
