import { Injectable } from '@nestjs/common';
import type { Command } from 'commander';
import { InjectCommander } from 'nest-commander';
import { cliVersion } from '../cli-version';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { CONFIG_KEYS } from '../session/cli-config-store';
import { RPC_MONIKERS } from '../session/rpc-url';
import { bashCompletion } from './bash-completion';
import { completionTree, ValueHints } from './command-tree';
import { fishCompletion } from './fish-completion';
import { zshCompletion } from './zsh-completion';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Values the command tree cannot tell: which words an argument or option takes. */
const HINTS: ValueHints = {
  arguments: {
    completion: { shell: SHELLS },
    'config get': { key: CONFIG_KEYS },
    'config set': { key: CONFIG_KEYS },
  },
  options: { '--url': Object.keys(RPC_MONIKERS) },
};

/** Completion scripts for the `tape` program as nest-commander registered it. */
@Injectable()
export class CompletionScripts {
  constructor(@InjectCommander() private readonly program: Command) {}

  script(shell: string): string {
    const tree = completionTree(this.program, HINTS);
    switch (parseShell(shell)) {
      case 'bash':
        return bashCompletion(tree, cliVersion());
      case 'zsh':
        return zshCompletion(tree, cliVersion());
      case 'fish':
        return fishCompletion(tree, cliVersion());
    }
  }
}

export function parseShell(text: string): Shell {
  if ((SHELLS as readonly string[]).includes(text)) return text as Shell;
  throw new CliError(`unknown shell '${printable(text)}' (known: ${SHELLS.join(', ')})`);
}
