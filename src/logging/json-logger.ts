import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { LogFormat, prettyLine, READY_EVENT } from './log-format';
import { LineSink, ReadyFirstStream } from './ready-first-stream';
import { redactHeaders, redactSecrets } from './redact';

/**
 * Nest's own start-up chatter (a line per module and per route, 30 and more): debug, so the
 * lines an operator sees at info are the gateway's.
 */
const NEST_BOOT_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

export interface LoggerOptions {
  /** `json` (the default) or `pretty` (src/logging/log-format.ts). */
  format?: LogFormat;
  /** Where lines go; default stdout (pino's synchronous writer on fd 1). */
  out?: LineSink;
  /** Colours in pretty lines; default: stdout is a terminal and NO_COLOR is unset. */
  colour?: boolean;
  /** Hold start-up's routine lines until `ready` (src/logging/ready-first-stream.ts). */
  readyFirst?: boolean;
}

/**
 * Nest's logger interface over pino: one JSON object per line on stdout, or one readable line
 * per record with the `pretty` format. Every line passes through the redactor
 * (src/logging/redact.ts) on its way out, so a URL or header quoted by any message or stack
 * trace never logs a credential.
 */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;
  private readonly hold: ReadyFirstStream | undefined;

  constructor(level = process.env.TAPE_LOG_LEVEL ?? 'info', options: LoggerOptions = {}) {
    const base = { level, base: { service: 'tape-gateway' } };
    const { format = 'json', out, readyFirst = false } = options;
    if (format === 'json' && !out && !readyFirst) {
      this.pino = pino(base);
      return;
    }
    // pino's own stdout writer (what `pino()` uses), cheaper per line than process.stdout.
    const stdout = out ?? pino.destination({ dest: 1, sync: true });
    const colour =
      options.colour ?? (process.stdout.isTTY === true && process.env.NO_COLOR === undefined);
    const sink: LineSink =
      format === 'pretty'
        ? { write: (line) => stdout.write(prettyLine(JSON.parse(line), { colour })) }
        : stdout;
    this.hold = readyFirst ? new ReadyFirstStream(sink) : undefined;
    this.pino = pino(base, this.hold ?? sink);
  }

  /**
   * The ready line: written before the start-up lines held back (with `readyFirst`), then
   * every line passes as it comes. In JSON it is `{"event":"ready", "msg": <line>, …fields}`;
   * pretty, the line alone.
   */
  ready(msg: string, record: Record<string, unknown>): void {
    this.hold?.expectReady();
    this.pino.info({ context: 'gateway', ...redactFields(record), event: READY_EVENT, msg });
    this.releaseHeld();
  }

  /** Writes what start-up held back (a start that failed before its ready line). */
  releaseHeld(): void {
    this.hold?.release();
  }

  log(message: unknown, context?: string): void {
    if (context !== undefined && NEST_BOOT_CONTEXTS.has(context)) {
      this.pino.debug(fields(message, context));
      return;
    }
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
