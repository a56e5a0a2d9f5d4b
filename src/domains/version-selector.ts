import { isAliasName } from '../chain/tape-history';

/**
 * Which kept version of a tape a request asks for, besides the current one (docs/site.md,
 * "Pinned and alias URLs"): a version number (`/site/{tape}@3/`, host `v3--<label>`), served
 * immutable, or an alias (`/site/{tape}@pr-12/`, host `pr-12--<label>`), served live.
 */
export type VersionSelector = { kind: 'pinned'; version: number } | { kind: 'alias'; name: string };

export type ParsedSelector = VersionSelector | { kind: 'bad'; reason: string };

/** A version number as URLs write it: decimal, no leading zero, at most 2^53 − 1. */
const VERSION_NUMBER = /^[1-9][0-9]{0,15}$/;

/**
 * The text after `@` in a path route. All digits is a version number (an alias spelled with
 * digits only is reached by its host); anything else must be an alias name (src/chain/
 * tape-history.ts): lower-case letters, digits and inner hyphens, at most 24 bytes.
 */
export function parsePathSelector(text: string): ParsedSelector {
  if (/^[0-9]+$/.test(text)) return versionNumber(text);
  if (isAliasName(text)) return { kind: 'alias', name: text };
  return { kind: 'bad', reason: 'not a version number or an alias name' };
}

/**
 * The part of a host label before `--<label>`: `v<n>` pins version n, any other valid alias
 * name is that alias (`v<digits>` is never an alias name, so the two cannot collide).
 */
export function parseHostSelector(text: string): ParsedSelector {
  if (/^v[0-9]+$/.test(text)) return versionNumber(text.slice(1));
  if (isAliasName(text)) return { kind: 'alias', name: text };
  return { kind: 'bad', reason: 'not v<number> or an alias name' };
}

function versionNumber(digits: string): ParsedSelector {
  if (!VERSION_NUMBER.test(digits) || !Number.isSafeInteger(Number(digits))) {
    return { kind: 'bad', reason: 'not a version number (1 to 2^53 - 1, no leading zero)' };
  }
  return { kind: 'pinned', version: Number(digits) };
}

/** One key per selector (`v3`, `pr-12`): alias names never look like `v<digits>`. */
export function selectorKey(selector: VersionSelector): string {
  return selector.kind === 'pinned' ? `v${selector.version}` : selector.name;
}
