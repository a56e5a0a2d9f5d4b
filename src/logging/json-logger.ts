import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Nest's logger interface over pino: one JSON object per line on stdout. */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;

  constructor(level = process.env.TAPE_LOG_LEVEL ?? 'info') {
    this.pino = pino({ level, base: { service: 'tape-gateway' } });
  }

  log(message: unknown, context?: string): void {
    this.pino.info(fields(message, context));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.pino.error({ ...fields(message, context), trace });
  }
  warn(message: unknown, context?: string): void {
    this.pino.warn(fields(message, context));
  }
  debug(message: unknown, context?: string): void {
    this.pino.debug(fields(message, context));
  }
  verbose(message: unknown, context?: string): void {
    this.pino.trace(fields(message, context));
  }
}

function fields(message: unknown, context?: string): Record<string, unknown> {
  if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
    return { context, ...(message as Record<string, unknown>) };
  }
  return { context, msg: message instanceof Error ? message.message : String(message) };
}
