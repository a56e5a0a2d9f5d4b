import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { redactHeaders, redactSecrets } from './redact';

/**
 * Nest's logger interface over pino: one JSON object per line on stdout. Every line passes
 * through the redactor (src/logging/redact.ts) on its way out, so a URL or header quoted by any
 * message or stack trace never logs a credential.
 */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;

  constructor(level = process.env.TAPE_LOG_LEVEL ?? 'info') {
    this.pino = pino({ level, base: { service: 'tape-gateway' } });
  }

  log(message: unknown, context?: string): void {
    this.pino.info(fields(message, context));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.pino.error({
      ...fields(message, context),
      trace: typeof trace === 'string' ? redactSecrets(trace) : trace,
    });
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
    return { context, ...redactFields(message as Record<string, unknown>) };
  }
  const text = message instanceof Error ? message.message : String(message);
  return { context, msg: redactSecrets(text) };
}

/** Top-level string fields and a `headers` object, redacted (log lines are flat objects). */
function redactFields(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'string') out[key] = redactSecrets(value);
    else if (key === 'headers' && typeof value === 'object' && value !== null) {
      out[key] = redactHeaders(value as Record<string, string | string[] | undefined>);
    } else out[key] = value;
  }
  return out;
}
