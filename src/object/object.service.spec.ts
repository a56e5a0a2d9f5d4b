import { ApiError } from '../http/api-error';
import { IntegrityError } from '../tracks/track-errors';
import { ETAG, newTestService } from './object-test-service.spec-support';

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
