import { ALIAS_NAME_MAX } from '../../chain/account-layouts';
import { isAliasName } from '../../chain/tape-history';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';

/** An alias as typed: refused with the rule when the program would refuse it. */
export function parseAliasName(value: string | undefined): string {
  const name = (value ?? '').trim();
  if (!isAliasName(name)) {
    throw new CliError(
      `bad alias '${printable(value ?? '')}': expected 1-${ALIAS_NAME_MAX} characters of a-z, 0-9 and '-', starting and ending with a letter or digit, without '--', and not v<number> (that is a pinned version)`,
    );
  }
  return name;
}
