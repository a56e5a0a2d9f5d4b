import type { Command } from 'commander';

/** What a value or an argument takes: a file name, one of some words, or anything. */
export type ValueHint =
  { kind: 'file' } | { kind: 'words'; words: readonly string[] } | { kind: 'any' };

export interface CompletionOption {
  /** `-k`, `--keypair`: every name of the option. */
  names: string[];
  description: string;
  /** Undefined for a switch (`--json`); what follows it otherwise. */
  value?: ValueHint;
}

/** One command of the tree: the root (`tape`, path []) or a sub-command (['network', 'deploy']). */
export interface CompletionNode {
  path: string[];
  description: string;
  options: CompletionOption[];
  subcommands: CompletionNode[];
  /** What each positional argument takes, in order. */
  arguments: ValueHint[];
}

/** Extra knowledge about argument and option values, by command path (`config set`) and name. */
export interface ValueHints {
  arguments?: Record<string, Record<string, readonly string[]>>;
  options?: Record<string, readonly string[]>;
}

const HELP: CompletionOption = { names: ['-h', '--help'], description: 'display help for command' };
const FILE_PLACEHOLDER = /<(path|file|keypair|dir)>|\[(path|file|keypair|dir)\]/;
const FILE_ARGUMENT = /path|file|dir|html|keypair/;

/**
 * The registered command tree, read from commander after nest-commander has built it, so a
 * completion script always lists exactly the commands and options that exist. Values whose
 * placeholder names a file (`<path>`, `<file>`, `<keypair>`) complete file names.
 */
export function completionTree(program: Command, hints: ValueHints = {}): CompletionNode {
  const visit = (cmd: Command, path: string[]): CompletionNode => {
    const key = path.join(' ');
    const options = cmd.options
      .filter((o) => !o.hidden)
      .map((o): CompletionOption => {
        const names = [o.short, o.long].filter((n): n is string => !!n);
        const takesValue = o.required || o.optional;
        const words = o.argChoices ?? (o.long ? hints.options?.[o.long] : undefined);
        const value: ValueHint | undefined = !takesValue
          ? undefined
          : words
            ? { kind: 'words', words }
            : FILE_PLACEHOLDER.test(o.flags)
              ? { kind: 'file' }
              : { kind: 'any' };
        return { names, description: o.description ?? '', value };
      });
    if (path.length === 0) {
      options.push({
        names: ['-V', '--version'],
        description: 'print the version of tape and exit',
      });
    }
    options.push(HELP);
    const args = cmd.registeredArguments.map((a): ValueHint => {
      const words = a.argChoices ?? hints.arguments?.[key]?.[a.name()];
      if (words) return { kind: 'words', words };
      return FILE_ARGUMENT.test(a.name()) ? { kind: 'file' } : { kind: 'any' };
    });
    return {
      path,
      description: cmd.description(),
      options: dedupe(options),
      subcommands: cmd.commands
        .filter((c) => !(c as Command & { _hidden?: boolean })._hidden)
        .map((c) => visit(c, [...path, c.name()])),
      arguments: args,
    };
  };
  return visit(program, []);
}

/** Every node, root first, parents before children. */
export function allNodes(root: CompletionNode): CompletionNode[] {
  return [root, ...root.subcommands.flatMap(allNodes)];
}

/** The last word of a path: the command's own name. */
export function nodeName(node: CompletionNode): string {
  return node.path[node.path.length - 1] ?? 'tape';
}

function dedupe(options: CompletionOption[]): CompletionOption[] {
  const seen = new Set<string>();
  return options.filter((o) => {
    const key = o.names.join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
