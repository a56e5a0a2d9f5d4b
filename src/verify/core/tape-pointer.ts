import { hex, u64 } from './bytes';

/** A tape's kept versions as its account states them: the current one served at `/`. */
export interface TapePointer {
  current: number;
  kept: { version: number; root: string }[];
  /** The alias table: each name and the version it points at, in table order. */
  aliases: { name: string; version: number }[];
}

/**
 * The tape account's pointer (docs/program.md, "Accounts"; program 1.3.0's 2,221-byte record):
 * the one place that knows the layout. `current` is the version served at `/`; `kept` is the
 * history table (every version the tape keeps: current, aliased and the newest `keep`), newest
 * first. Returns null for data that is not a tape record.
 */
export function readTapePointer(data: Uint8Array): TapePointer | null {
  if (data.length !== TAPE_RECORD_SIZE || data[0] !== 2) return null;
  const current = u64(data, 130);
  const historyLen = data[163];
  if (historyLen > HISTORY_SLOTS) return null;
  const kept: TapePointer['kept'] = [];
  for (let i = historyLen - 1; i >= 0; i--) {
    const at = HISTORY_AT + i * HISTORY_ENTRY_SIZE;
    kept.push({ version: u64(data, at), root: hex(data.subarray(at + 8, at + 40)) });
  }
  const aliasCount = data[ALIASES_AT];
  if (aliasCount > ALIAS_SLOTS) return null;
  const aliases: TapePointer['aliases'] = [];
  for (let i = 0; i < aliasCount; i++) {
    const at = ALIASES_AT + 1 + i * ALIAS_ENTRY_SIZE;
    const len = data[at];
    if (len < 1 || len > ALIAS_NAME_MAX) return null;
    let name = '';
    for (const b of data.subarray(at + 1, at + 1 + len)) name += String.fromCharCode(b);
    aliases.push({ name, version: u64(data, at + 1 + ALIAS_NAME_MAX) });
  }
  return { current, kept, aliases };
}

/** Program 1.3.0's tape record: 130 bytes of tape, then the pointer, history and aliases. */
const TAPE_RECORD_SIZE = 2221;
const HISTORY_AT = 164;
const HISTORY_SLOTS = 32;
const HISTORY_ENTRY_SIZE = 56;
/** After the history table: `u8 alias_count`, then 8 × (`u8 len`, `[24] name`, `u64 version`). */
const ALIASES_AT = HISTORY_AT + HISTORY_SLOTS * HISTORY_ENTRY_SIZE;
const ALIAS_SLOTS = 8;
const ALIAS_NAME_MAX = 24;
const ALIAS_ENTRY_SIZE = 1 + ALIAS_NAME_MAX + 8;
