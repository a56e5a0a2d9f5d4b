import { HttpException, Logger } from '@nestjs/common';
import { codeForStatus, ErrorBody, errorBody } from './error-body';

/** How an error leaves the gateway: its status, the stable body, and what the log says. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  /**
   * `error` for an unexpected failure (what it was, and its stack), `warn` for a 5xx refusal,
   * else nothing (4xx answers are the client's business; the access log has them).
   */
  log: { level: 'error' | 'warn'; message: string; stack?: string } | null;
}

/** The request an answer went to, as the error log names it. */
export interface AnsweredRequest {
  method?: string;
  /** The target as received (the logger redacts credentials in it). */
  url?: string;
  /** The matched route's pattern (`/upload/:track`), when there is one. */
  route?: string;
}

/**
 * Every error as the gateway answers it: an HttpException keeps its status and stable body (or
 * gets the status's code), a framework error its status, anything else is a logged 500 that
 * shows nothing of the failure. The exception filter and edges that write their own answers
 * (src/object/object-edge.ts) both use it.
 */
export function errorAnswer(exception: unknown): ErrorAnswer {
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const body = httpExceptionBody(exception, status);
    return {
      status,
      body,
      log: status >= 500 ? { level: 'warn', message: body.error.message } : null,
    };
  }
  if (isFrameworkError(exception)) {
    const status = exception.statusCode;
    return { status, body: errorBody(codeForStatus(status), exception.message), log: null };
  }
  return {
    status: 500,
    body: errorBody('internal_error', 'internal error'),
    log: {
      level: 'error',
      message: exception instanceof Error ? exception.message : String(exception),
      stack: exception instanceof Error ? exception.stack : undefined,
    },
  };
}

function httpExceptionBody(exception: HttpException, status: number): ErrorBody {
  const response = exception.getResponse();
  if (typeof response === 'object' && response !== null && 'error' in response) {
    const inner = response.error;
    if (typeof inner === 'object' && inner !== null && 'code' in inner) {
      return response as ErrorBody;
    }
  }
  return errorBody(codeForStatus(status), exception.message);
}

function isFrameworkError(e: unknown): e is { statusCode: number; message: string } {
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as { statusCode?: unknown }).statusCode === 'number' &&
    (e as { statusCode: number }).statusCode >= 400 &&
    (e as { statusCode: number }).statusCode < 600
  );
}

/**
 * Logs what `errorAnswer` says to log, as one line that names what failed and why: the
 * request's method, route and target, the status, the stable code, and the failure's message
 * (an unexpected failure's own, with its stack as `trace`; the client saw only "internal
 * error"). The JSON logger's redactor applies to every field.
 */
export function logErrorAnswer(
  logger: Logger,
  answer: ErrorAnswer,
  request: AnsweredRequest = {},
): void {
  const log = answer.log;
  if (!log) return;
  const { code } = answer.body.error;
  const where = [request.method, request.route ?? request.url].filter(Boolean).join(' ');
  const line = {
    event: 'error_answer',
    msg: `${where || 'request'} answered ${answer.status} ${code}: ${log.message}`,
    method: request.method,
    route: request.route,
    url: request.url,
    status: answer.status,
    code,
    error: log.message,
  };
  if (log.level === 'error') logger.error(line, log.stack);
  else logger.warn(line);
}
