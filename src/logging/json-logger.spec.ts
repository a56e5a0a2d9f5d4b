import { JsonLogger } from './json-logger';

function capture(format: 'json' | 'pretty') {
  const out: string[] = [];
  const logger = new JsonLogger('info', {
    format,
    out: { write: (l) => out.push(l) },
    colour: false,
    readyFirst: true,
  });
  return { logger, out };
}

describe('JsonLogger', () => {
  it('JSON: the ready record comes first, with its fields; Nest boot lines are debug', () => {
    const { logger, out } = capture('json');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log({ event: 'listening', url: 'http://127.0.0.1:8081' }, 's3');
    logger.ready('tape-gateway 1.0.0 ready: http://127.0.0.1:8080', {
      url: 'http://127.0.0.1:8080',
    });
    const records = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      level: 30,
      context: 'gateway',
      event: 'ready',
      url: 'http://127.0.0.1:8080',
      msg: 'tape-gateway 1.0.0 ready: http://127.0.0.1:8080',
    });
    expect(records[1]).toMatchObject({ context: 's3', event: 'listening' });
  });

  it('pretty: one readable line per record, the ready line alone, secrets redacted', () => {
    const { logger, out } = capture('pretty');
    logger.warn('GET /b?X-Amz-Signature=abcdef failed', 's3');
    logger.ready('tape-gateway 1.0.0 ready: http://127.0.0.1:8080', {});
    expect(out[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}s3 {2}GET \/b\?X-Amz-Signature=REDACTED failed\n$/,
    );
    expect(out[1]).toBe('tape-gateway 1.0.0 ready: http://127.0.0.1:8080\n');
  });

  it('a level above info drops the ready line and holds nothing back', () => {
    const out: string[] = [];
    const logger = new JsonLogger('warn', { out: { write: (l) => out.push(l) }, readyFirst: true });
    logger.ready('ready', {});
    logger.warn('after', 'x');
    expect(out.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['after']);
  });
});
