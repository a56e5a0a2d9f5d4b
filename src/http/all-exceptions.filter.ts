import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { codeForStatus, errorBody } from './error-body';
import { sendErrorBody } from './error-reply';

/**
 * One catch-all filter: every error leaves as the stable JSON error body, never a stack trace.
 * Registered as APP_FILTER so test apps behave like production.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    let status = 500;
    let body = errorBody('internal_error', 'internal error');
    if (exception instanceof HttpException) {
      status = exception.getStatus();
      const response = exception.getResponse();
      if (typeof response === 'object' && response !== null && 'error' in response) {
        const inner = response.error;
        if (typeof inner === 'object' && inner !== null && 'code' in inner) {
          body = response as typeof body;
        } else {
          body = errorBody(codeForStatus(status), exception.message);
        }
      } else {
        body = errorBody(codeForStatus(status), exception.message);
      }
    } else if (isFastifyError(exception)) {
      status = exception.statusCode;
      body = errorBody(codeForStatus(status), exception.message);
    } else {
      this.logger.error(
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
      );
    }
    if (status >= 500 && exception instanceof HttpException) this.logger.warn(exception.message);
    sendErrorBody(reply, status, body);
  }
}

function isFastifyError(e: unknown): e is { statusCode: number; message: string } {
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as { statusCode?: unknown }).statusCode === 'number' &&
    (e as { statusCode: number }).statusCode >= 400 &&
    (e as { statusCode: number }).statusCode < 600
  );
}
