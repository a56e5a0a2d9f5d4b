import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { MeteringService } from '../metering/metering.service';
import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import { IntegrityError } from '../tracks/track-errors';
import { objectHeaders } from './object-headers';
import { ObjectService, SEND_STALL_MS } from './object.service';
import { StreamedBytesCollector } from './streamed-bytes-collector';
import { ServableTrack, TrackResolver } from './track-resolver';

const ETAG = `"${'ab'.repeat(32)}"`;

/** The service over a resolver, reader and metering that answer from memory. */
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
  const enforceByteBudget = jest.fn((): Promise<void> => Promise.resolve());
  const sut = new ObjectService(
    resolver as unknown as TrackResolver,
    { open } as unknown as ObjectReader,
    { enforceByteBudget } as unknown as MeteringService,
    new StreamedBytesCollector(1024, () => undefined),
  );
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = {
    headers: {},
  };
  const raw = { setTimeout: jest.fn(), destroy: jest.fn() };
  const reply = {
    sent: false,
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
      reply.sent = true;
      return reply;
    },
  };
  const request = (method = 'GET', headers: Record<string, string> = {}) =>
    ({ method, headers }) as unknown as FastifyRequest;
  const serve = (method?: string, headers?: Record<string, string>) =>
    sut.serve(request(method, headers), reply as unknown as FastifyReply, track.address);
  return { serve, sent, raw, open, enforceByteBudget };
}

describe('ObjectService', () => {
  it('sends the verified cached Buffer itself: no copy, and later requests skip the reader', async () => {
    const bytes = Buffer.alloc(1000, 7);
    const { serve, sent, open } = newTestService({ bytes, size: 1000 });
    await serve();
    expect(sent.status).toBe(200);
    expect(sent.body).toBe(bytes);
    await serve('GET', { range: 'bytes=10-19' });
    expect(sent.status).toBe(206);
    expect((sent.body as Buffer).buffer).toBe(bytes.buffer); // a view
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('HEAD never opens the payload and charges no bytes', async () => {
    const { serve, sent, open, enforceByteBudget } = newTestService({ size: 1000 });
    await serve('HEAD');
    expect([sent.status, sent.headers['content-length'], sent.body]).toEqual([
      200,
      '1000',
      undefined,
    ]);
    expect(open).not.toHaveBeenCalled();
    expect(enforceByteBudget).not.toHaveBeenCalled();
  });

  it('charges the bytes of the response before sending it', async () => {
    const { serve, enforceByteBudget } = newTestService({ bytes: Buffer.alloc(1000), size: 1000 });
    await serve('GET', { range: 'bytes=0-99' });
    expect(enforceByteBudget).toHaveBeenCalledWith(expect.anything(), expect.anything(), 100);
  });

  it('a storage failure before the first byte is a 502 that is not cached', async () => {
    const { serve, sent } = newTestService(new IntegrityError('ab'.repeat(32), 'chunk 0'));
    const error = (await serve().catch((e: unknown) => e)) as ApiError;
    expect([error.getStatus(), error.code]).toEqual([502, 'integrity_failure']);
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
    const { serve, enforceByteBudget } = newTestService({ bytes: undefined, size: 100, read }, 100);
    enforceByteBudget.mockRejectedValueOnce(new Error('over budget'));
    await expect(serve('GET', { range: 'bytes=0-9,50-59' })).rejects.toThrow('over budget');
    await new Promise((r) => setImmediate(r));
    expect(parts.length).toBe(1);
    expect(parts[0].destroyed).toBe(true);
  });

  it('a client that accepts nothing for a minute loses its connection', async () => {
    const read = () => Readable.from([Buffer.alloc(10)]);
    const { serve, raw } = newTestService({ bytes: undefined, size: 10, read }, 10);
    await serve();
    expect(raw.setTimeout).toHaveBeenCalledWith(SEND_STALL_MS, expect.any(Function));
    const onStall = raw.setTimeout.mock.calls[0][1] as () => void;
    onStall();
    expect(raw.destroy).toHaveBeenCalled();
  });
});
