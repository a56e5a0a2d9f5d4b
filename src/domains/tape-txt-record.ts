import { parseAddress } from '../chain/tape-label';

/** What the TXT RRset at `_tape.<host>` says. */
export type TxtBindingValue =
  | { kind: 'tape'; tape: string }
  | { kind: 'none'; reason: 'no-address' | 'ambiguous'; tapes?: string[] };

/** Longest text we look at in one record; an address is at most 44 characters. */
const MAX_VALUE_LENGTH = 1024;

/**
 * Reads the tape address out of a TXT RRset. Per record: its character-strings are joined
 * (long values are split into 255-byte strings on the wire), surrounding whitespace is trimmed,
 * and one pair of literal double quotes is removed (DNS control panels that store the quotes
 * someone typed). A record that is not then a canonical base58 address is ignored, so the name
 * can carry other notes; records naming two different tapes make the binding ambiguous and
 * nothing is served.
 */
export function tapeFromTxtRecords(records: Buffer[][]): TxtBindingValue {
  const tapes = new Set<string>();
  for (const strings of records) {
    const tape = addressFromRecord(strings);
    if (tape) tapes.add(tape);
  }
  if (tapes.size === 0) return { kind: 'none', reason: 'no-address' };
  if (tapes.size > 1) return { kind: 'none', reason: 'ambiguous', tapes: [...tapes].sort() };
  return { kind: 'tape', tape: [...tapes][0] };
}

function addressFromRecord(strings: Buffer[]): string | null {
  const joined = Buffer.concat(strings);
  if (joined.length > MAX_VALUE_LENGTH) return null;
  // latin1 maps every byte to one character, so no byte sequence can decode into base58 text.
  let value = trimAsciiSpace(joined.toString('latin1'));
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    value = trimAsciiSpace(value.slice(1, -1));
  }
  return parseAddress(value);
}

/** String.trim would also eat NBSP and other Unicode spaces; a record is ASCII text. */
function trimAsciiSpace(text: string): string {
  return text.replace(/^[ \t\r\n\f\v]+|[ \t\r\n\f\v]+$/g, '');
}
