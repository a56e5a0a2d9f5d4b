import { Injectable } from '@nestjs/common';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { PromptTerminal } from './prompt-terminal';

export interface RemovalRequest {
  /** The command, as the person typed it: `tape deploy --prune`, `tape object rm`. */
  command: string;
  /** The names that would go. */
  names: readonly string[];
  tape: string;
  /** `--yes`: no question asked. */
  yes: boolean;
}

/** Names shown in the one line of a refusal, at most. */
const NAMES_IN_REFUSAL = 3;

/**
 * Asks before names are removed from a site (`tape deploy --prune`, `tape object rm` of several
 * names), as `terraform apply`, `apt` or `gh repo delete` do: the list of what goes, then
 * `[y/N]`, on a terminal. `--yes` answers for scripts; with no terminal to ask and no `--yes`
 * the command is refused before anything is sent, naming `--yes`.
 */
@Injectable()
export class RemovalConfirmation {
  constructor(private readonly terminal: PromptTerminal) {}

  async confirm(req: RemovalRequest): Promise<void> {
    const n = req.names.length;
    if (n === 0 || req.yes) return;
    const count = `${n} ${n === 1 ? 'name' : 'names'}`;
    if (!this.terminal.interactive()) {
      const shown = req.names.slice(0, NAMES_IN_REFUSAL).map((name) => printable(name));
      const more = n > NAMES_IN_REFUSAL ? `, and ${n - NAMES_IN_REFUSAL} more` : '';
      throw new CliError(
        `${req.command} would remove ${count} from tape ${req.tape} (${shown.join(', ')}${more}) ` +
          `and there is no terminal to confirm it on: pass --yes to remove them; nothing was changed`,
      );
    }
    this.terminal.show([
      `${req.command} will remove ${count} from tape ${req.tape}:`,
      ...req.names.map((name) => `  ${printable(name)}`),
    ]);
    const answer = (await this.terminal.ask(`Remove ${n === 1 ? 'it' : 'them'}? [y/N] `))
      .trim()
      .toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      throw new CliError('cancelled: nothing was removed or published');
    }
  }
}
