import { CompletionNode } from './command-tree';
import { hintWord, quoted } from './shell-quoting';

/** One row of a shell `case`: the pattern and the command that answers it. */
export type CaseRow = [pattern: string, answer: string];

/**
 * A shell function answering from a `case` on `subject` (bash and zsh share the syntax): the
 * tables both completion scripts generate from the registered commands.
 */
export function caseFunction(name: string, subject: string, rows: CaseRow[]): string {
  const cases = rows.map(([pattern, answer]) => `    ${pattern}) ${answer} ;;`).join('\n');
  return `${name}() {\n  case "${subject}" in\n${cases}\n  esac\n}`;
}

/** `<command path>` → its sub-commands' names, for the commands that have some. */
export function subcommandNameRows(
  nodes: CompletionNode[],
  answer: (words: string) => string,
): CaseRow[] {
  return nodes
    .filter((n) => n.subcommands.length > 0)
    .map((n) => [
      quoted(n.path.join(' ')),
      answer(quoted(n.subcommands.map((s) => s.path.at(-1)).join(' '))),
    ]);
}

/** `<command path>|<option>` → what the option takes (`file`, `any`, `words …`). */
export function optionValueRows(
  nodes: CompletionNode[],
  answer: (words: string) => string,
): CaseRow[] {
  return nodes.flatMap((n) =>
    n.options
      .filter((o) => o.value)
      .map((o): CaseRow => [
        o.names.map((name) => quoted(`${n.path.join(' ')}|${name}`)).join('|'),
        answer(quoted(hintWord(o.value!))),
      ]),
  );
}

/** `<command path>|<position>` → what the positional argument takes. */
export function argumentRows(
  nodes: CompletionNode[],
  answer: (words: string) => string,
): CaseRow[] {
  return nodes.flatMap((n) =>
    n.arguments.map((hint, i): CaseRow => [
      quoted(`${n.path.join(' ')}|${i}`),
      answer(quoted(hintWord(hint))),
    ]),
  );
}
