/**
 * `key: value` lines with the values aligned, the way `tape create` and `tape info` print:
 *
 *   tape address:   7Xf...
 *   epoch duration: 1h
 */
export function keyValueLines(pairs: [string, string][]): string[] {
  const width = Math.max(0, ...pairs.map(([key]) => key.length + 1));
  return pairs.map(([key, value]) => `${`${key}:`.padEnd(width)} ${value}`);
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function tableLines(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => [...(row[i] ?? '')].length)));
  return all.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - [...cell].length),
      )
      .join('  '),
  );
}
