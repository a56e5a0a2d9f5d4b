/** One problem of a rules file, printed `_redirects:12: status 305 is not allowed …`. */
export interface RuleProblem {
  line: number;
  message: string;
}

/**
 * The meaningful lines of a rules file: `\n` or `\r\n` ends a line, blank lines and lines whose
 * first non-blank character is `#` are skipped, and `indent` says whether the line began with
 * a space or a tab (`_headers` uses it). Line numbers count from 1.
 */
export function splitLines(text: string): Array<{ line: number; text: string; indent: boolean }> {
  const out: Array<{ line: number; text: string; indent: boolean }> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    out.push({ line: i + 1, text: trimmed, indent: /^[ \t]/.test(raw) });
  }
  return out;
}
