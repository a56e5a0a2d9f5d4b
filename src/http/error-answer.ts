import { HttpException, Logger } from '@nestjs/common';
import { codeForStatus, ErrorBody, errorBody } from './error-body';

/** How an error leaves the gateway: its status, the stable body, and what the log says. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  /** `error` for an unexpected failure (its stack), `warn` for a 5xx refusal, else nothing. */
  log: { level: 'error' | 'warn'; message: string } | null;
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
    return {
      status,
      body: httpExceptionBody(exception, status),
      log: status >= 500 ? { level: 'warn', message: exception.message } : null,
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
      message:
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
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

/** Logs what `errorAnswer` says to log: an unexpected failure as an error, a 5xx refusal as a warning. */
export function logErrorAnswer(logger: Logger, answer: ErrorAnswer): void {
  if (answer.log?.level === 'error') logger.error(answer.log.message);
  else if (answer.log) logger.warn(answer.log.message);
}
