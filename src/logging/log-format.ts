/**
 * How log lines are written: `json` (one pino object per line, for journald, Loki and other
 * collectors) or `pretty` (one readable line per record, for a person at a terminal). `auto`,
 * the default, is pretty when stdout is a terminal and JSON otherwise (a pipe, a file, a
 * service manager), as most servers that ship both do.
 */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogFormatSetting = LogFormat | 'auto';
export const LOG_FORMAT_SETTINGS: readonly LogFormatSetting[] = ['auto', ...LOG_FORMATS];

export function isLogFormatSetting(value: string): value is LogFormatSetting {
  return (LOG_FORMAT_SETTINGS as readonly string[]).includes(value);
}

export function resolveLogFormat(setting: LogFormatSetting, isTerminal: boolean): LogFormat {
  if (setting === 'auto') return isTerminal ? 'pretty' : 'json';
  return setting;
}

/** The event of the gateway's ready line (src/startup/ready-line.ts). */
export const READY_EVENT = 'ready';

/** pino's numeric levels and the names pretty lines show. */
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** ANSI colours for the level, used only on a terminal that allows them. */
const LEVEL_COLOURS: Record<number, string> = { 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' };
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/** Fields every record carries that a pretty line shows in its own place or not at all. */
const PLACED = new Set(['level', 'time', 'service', 'context', 'msg', 'trace']);

export interface PrettyOptions {
  colour: boolean;
  /** Local time by default; tests pass UTC. */
  utc?: boolean;
}

/**
 * One pino record as one readable line: `10:41:07.512 WARN  key-balance  <msg> key=value …`,
 * a stack trace (`trace`) on the lines below it, indented. The ready line (`event: 'ready'`)
 * is its message alone: it is the first thing a person reads.
 */
export function prettyLine(record: Record<string, unknown>, options: PrettyOptions): string {
  const msg = typeof record.msg === 'string' ? record.msg : '';
  if (record.event === READY_EVENT && msg) return `${msg}\n`;
  const level = typeof record.level === 'number' ? record.level : 30;
  const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  const colour = options.colour ? (LEVEL_COLOURS[level] ?? '') : '';
  const time = clock(typeof record.time === 'number' ? record.time : Date.now(), options.utc);
  const context = typeof record.context === 'string' ? `${record.context}  ` : '';
  const fields = Object.entries(record)
    .filter(([key, value]) => !PLACED.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const text = [msg, ...fields].filter((part) => part !== '').join(' ');
  let line =
    (options.colour ? `${DIM}${time}${RESET} ` : `${time} `) +
    (colour ? `${colour}${name}${RESET} ` : `${name} `) +
    context +
    text;
  if (typeof record.trace === 'string' && record.trace !== '') {
    line += `\n${record.trace.replace(/^/gm, '    ')}`;
  }
  return `${line}\n`;
}

function clock(ms: number, utc = false): string {
  const d = new Date(ms);
  const parts = utc
    ? [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]
    : [d.getHours(), d.getMinutes(), d.getSeconds()];
  const millis = utc ? d.getUTCMilliseconds() : d.getMilliseconds();
  return `${parts.map((n) => String(n).padStart(2, '0')).join(':')}.${String(millis).padStart(3, '0')}`;
}

/** Plain words as they are; anything with spaces, quotes or `=` quoted; objects as JSON. */
function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return String(value);
  }
  return JSON.stringify(value);
}
