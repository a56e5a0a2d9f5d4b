import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorAnswer, logErrorAnswer } from './error-answer';
import { sendErrorBody } from './error-reply';

/**
 * One catch-all filter: every error leaves as the stable JSON error body, never a stack trace.
 * Registered as APP_FILTER so test apps behave like production.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    if (reply.sent) return;
    const answer = errorAnswer(exception);
    const request = http.getRequest<FastifyRequest | undefined>();
    logErrorAnswer(this.logger, answer, {
      method: request?.method,
      url: request?.url,
      route: request?.routeOptions?.url,
    });
    sendErrorBody(reply, answer.status, answer.body);
  }
}
