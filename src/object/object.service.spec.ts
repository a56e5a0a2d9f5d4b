import { Readable } from 'node:stream';
import { ApiError } from '../http/api-error';
import { MeteringGate } from '../metering/metering-gate';
import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import { IntegrityError } from '../tracks/track-errors';
import { ObjectController, SEND_STALL_MS } from './object.controller';
import { objectHeaders } from './object-route-headers';
import { ObjectService } from './object.service';
import { StreamedBytesCollector } from './streamed-bytes-collector';
import { ServableTrack, TrackResolver } from './track-resolver';

const ETAG = `"${'ab'.repeat(32)}"`;

/** The service over a resolver and reader that answer from memory. */
function newTestService(opened: Partial<OpenedObject> | Error, size = 1000) {
  const track: ServableTrack = {
    address: 'Track1111111111111111111111111111111111111',
    tape: 'Tape11111111111111111111111111111111111111',
    ref: { kind: 'blob', commitment: Buffer.alloc(32, 0xab), size },
    commitmentHex: 'ab'.repeat(32),
    etag: ETAG,
    headers: objectHeaders('text/plain', ETAG),
  };
  const resolver = { peek: () => track, resolve: () => Promise.resolve(track) };
  const open = jest.fn(() =>
    opened instanceof Error ? Promise.reject(opened) : Promise.resolve(opened as OpenedObject),
  );
  const sut = new ObjectService(
    resolver as unknown as TrackResolver,
    { open } as unknown as ObjectReader,
    new StreamedBytesCollector(1024, () => undefined),
  );
  const answer = (method = 'GET', headers: Record<string, string> = {}) =>
    sut.answer({ method, headers }, track.address);
  return { sut, answer, open, track };
}

describe('ObjectService', () => {
  it('answers with the verified cached Buffer itself: no copy, and later requests skip the reader', async () => {
    const bytes = Buffer.alloc(1000, 7);
    const { answer, open } = newTestService({ bytes, size: 1000 });
    const whole = await answer();
    expect([whole.status, whole.body, whole.bytes]).toEqual([200, bytes, 1000]);
    expect(whole.body).toBe(bytes);
    const ranged = await answer('GET', { range: 'bytes=10-19' });
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe('bytes 10-19/1000');
    expect((ranged.body as Buffer).buffer).toBe(bytes.buffer); // a view
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('HEAD never opens the payload and sends no bytes', async () => {
    const { answer, open } = newTestService({ size: 1000 });
    const head = await answer('HEAD');
    expect([head.status, head.headers['content-length'], head.body, head.bytes]).toEqual([
      200,
      '1000',
      null,
      0,
    ]);
    expect(open).not.toHaveBeenCalled();
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    const { answer } = newTestService({ bytes: Buffer.alloc(1000), size: 1000 });
    const res = await answer('GET', { 'if-none-match': ETAG });
    expect([res.status, res.body, res.bytes, res.headers.etag]).toEqual([304, null, 0, ETAG]);
  });

  it('counts the bytes of the response it answers', async () => {
    const { answer } = newTestService({ bytes: Buffer.alloc(1000), size: 1000 });
    expect((await answer('GET', { range: 'bytes=0-99' })).bytes).toBe(100);
  });

  it('refuses an unsatisfiable range with 416 and its Content-Range', async () => {
    const { answer } = newTestService({ bytes: Buffer.alloc(1000), size: 1000 });
    const error = (await answer('GET', { range: 'bytes=5000-' }).catch((e: unknown) => e)) as
      (ApiError & { headers: Record<string, string> }) | undefined;
    expect([error?.getStatus(), error?.headers]).toEqual([
      416,
      { 'content-range': 'bytes */1000' },
    ]);
  });

  it('a storage failure before the first byte is a 502', async () => {
    const { answer } = newTestService(new IntegrityError('ab'.repeat(32), 'chunk 0'));
    const error = (await answer().catch((e: unknown) => e)) as ApiError;
    expect([error.getStatus(), error.code]).toEqual([502, 'integrity_failure']);
  });
});

/** The controller (the edge) over the service: it charges and writes what the service answers. */
function newTestController(opened: Partial<OpenedObject>, size: number, refuse = false) {
  const { sut } = newTestService(opened, size);
  const enforceBytes = jest.fn(() =>
    refuse ? Promise.reject(new Error('over budget')) : Promise.resolve(),
  );
  const controller = new ObjectController(sut, { enforceBytes } as unknown as MeteringGate);
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = {
    headers: {},
  };
  const raw = { setTimeout: jest.fn(), destroy: jest.fn() };
  const reply = {
    raw,
    code(status: number) {
      sent.status = status;
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    headers(values: Record<string, string>) {
      Object.assign(sent.headers, values);
      return reply;
    },
    send(body?: unknown) {
      sent.body = body;
      return reply;
    },
  };
  const get = (headers: Record<string, string> = {}) =>
    controller.get(
      { track: 'Track1111111111111111111111111111111111111' },
      { method: 'GET', headers } as never,
      reply as never,
    );
  return { get, sent, raw, enforceBytes };
}

describe('ObjectController', () => {
  it('charges the bytes of the answer before writing it', async () => {
    const { get, sent, enforceBytes } = newTestController({ bytes: Buffer.alloc(1000) }, 1000);
    await get({ range: 'bytes=0-99' });
    expect(enforceBytes).toHaveBeenCalledWith(expect.anything(), expect.anything(), 100);
    expect(sent.status).toBe(206);
  });

  it('a refusal is not cached and writes nothing', async () => {
    const { get, sent } = newTestController({ bytes: Buffer.alloc(1000) }, 1000, true);
    await expect(get()).rejects.toThrow('over budget');
    expect(sent.headers['cache-control']).toBe('no-store');
    expect(sent.body).toBeUndefined();
  });

  it('a multipart body refused by the byte budget releases the part it had opened', async () => {
    const parts: Readable[] = [];
    const read = () => {
      const part = Readable.from([Buffer.alloc(10)]);
      parts.push(part);
      return part;
    };
    const { get } = newTestController({ bytes: undefined, size: 100, read }, 100, true);
    await expect(get({ range: 'bytes=0-9,50-59' })).rejects.toThrow('over budget');
    await new Promise((r) => setImmediate(r));
    expect(parts.length).toBe(1);
    expect(parts[0].destroyed).toBe(true);
  });

  it('a client that accepts nothing for a minute loses its connection', async () => {
    const read = () => Readable.from([Buffer.alloc(10)]);
    const { get, raw } = newTestController({ bytes: undefined, size: 10, read }, 10);
    await get();
    expect(raw.setTimeout).toHaveBeenCalledWith(SEND_STALL_MS, expect.any(Function));
    const onStall = raw.setTimeout.mock.calls[0][1] as () => void;
    onStall();
    expect(raw.destroy).toHaveBeenCalled();
  });
});
