import { ValueHint } from './command-tree';

/** A POSIX shell single-quoted word (bash, zsh and fish read `'…'` alike for these texts). */
export function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A fish single-quoted word: fish escapes `'` and `\` inside quotes with a backslash. */
export function fishQuoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A hint as the scripts pass it around: `file`, `any`, or `words a b c`. */
export function hintWord(hint: ValueHint): string {
  return hint.kind === 'words' ? `words ${hint.words.join(' ')}` : hint.kind;
}

/** Descriptions on one line, without the characters completion menus choke on. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
