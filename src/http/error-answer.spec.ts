import { Logger } from '@nestjs/common';
import { JsonLogger } from '../logging/json-logger';
import { ApiError } from './api-error';
import { errorAnswer, logErrorAnswer } from './error-answer';

/** A Nest Logger in front of the gateway's JSON logger; the lines pino would write, captured. */
function newTestLog() {
  const json = new JsonLogger('info');
  const lines: Record<string, unknown>[] = [];
  for (const level of ['warn', 'error'] as const) {
    jest.spyOn(json.pino, level).mockImplementation(((obj: Record<string, unknown>) => {
      lines.push({ level, ...obj });
    }) as never);
  }
  const logger = {
    warn: (m: unknown) => json.warn(m, 'http'),
    error: (m: unknown, stack?: string) => json.error(m, stack, 'http'),
  } as unknown as Logger;
  return { logger, lines };
}

describe('error log lines', () => {
  afterEach(() => jest.restoreAllMocks());

  it('names the route, status, code and message of a 5xx refusal (not "Api Error")', () => {
    const { logger, lines } = newTestLog();
    const refusal = new ApiError(503, 'unavailable', 'cannot reach the chain RPC at http://rpc');
    expect(refusal.message).toBe('cannot reach the chain RPC at http://rpc');
    logErrorAnswer(logger, errorAnswer(refusal), {
      method: 'PUT',
      url: '/upload/Track1',
      route: '/upload/:track',
    });
    expect(lines).toEqual([
      {
        level: 'warn',
        context: 'http',
        event: 'error_answer',
        msg: 'PUT /upload/:track answered 503 unavailable: cannot reach the chain RPC at http://rpc',
        method: 'PUT',
        route: '/upload/:track',
        url: '/upload/Track1',
        status: 503,
        code: 'unavailable',
        error: 'cannot reach the chain RPC at http://rpc',
      },
    ]);
  });

  it("logs an unexpected failure's own message and stack, which the client never sees", () => {
    const { logger, lines } = newTestLog();
    const answer = errorAnswer(new TypeError('x is not a function'));
    expect(answer.body).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    logErrorAnswer(logger, answer, { method: 'GET', url: '/site/abc/' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      msg: 'GET /site/abc/ answered 500 internal_error: x is not a function',
      status: 500,
      code: 'internal_error',
      error: 'x is not a function',
    });
    expect(lines[0].trace).toMatch(/^TypeError: x is not a function\n\s+at /);
  });

  it('redacts credentials in the target and the message', () => {
    const { logger, lines } = newTestLog();
    const secret = 'a'.repeat(64);
    logErrorAnswer(
      logger,
      errorAnswer(new ApiError(502, 'bad_gateway', `upstream refused ?X-Amz-Signature=${secret}`)),
      { method: 'GET', url: `/object/T?X-Amz-Signature=${secret}` },
    );
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines[0]).toMatchObject({ url: '/object/T?X-Amz-Signature=REDACTED' });
  });

  it('logs nothing for a 4xx refusal', () => {
    const { logger, lines } = newTestLog();
    logErrorAnswer(logger, errorAnswer(new ApiError(404, 'not_found', 'no such track')));
    expect(lines).toEqual([]);
  });
});
