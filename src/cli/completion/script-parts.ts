/** What the bash and zsh completion scripts share: their `case` tables and their command walk. */
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

/** How one shell names what the command walk reads and does. */
export interface WalkWords {
  /** The word at index `i` (`\${COMP_WORDS[i]}`), and the index of the word being typed. */
  word: string;
  current: string;
  /** The function printing the sub-command names of a command path. */
  subcommandNames: string;
  /** What answers an option's value being typed (`$hint` says what it takes), and returns. */
  replyToHint: string;
}

/**
 * The loop both scripts' `_tape` start with: walk the words before the cursor from `i`,
 * skipping options and the values they take (answering at once when the cursor is on such a
 * value), to find the command path (`cmdpath`) and how many positional arguments precede the
 * cursor (`pos`).
 */
export function commandWalk(w: WalkWords): string {
  return `  while (( i < ${w.current} )); do
    word="${w.word}"
    if [[ "$word" == -* ]]; then
      hint="$(_tape_option_value "$cmdpath" "$word")"
      if [[ -n "$hint" && "$word" != *=* ]]; then
        if (( i + 1 == ${w.current} )); then
${w.replyToHint}
        fi
        (( i++ ))
      fi
    elif (( pos == 0 )) && [[ " $(${w.subcommandNames} "$cmdpath") " == *" $word "* ]]; then
      cmdpath="\${cmdpath:+$cmdpath }$word"
    else
      (( pos++ ))
    fi
    (( i++ ))
  done`;
}
