#!/usr/bin/env node
/**
 * sbf-link: `node dist-tools/tools/sbf-link/cli.js -o out.so a.o [b.o …]`.
 * On error prints one line `sbf-link: <message>` and exits 1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { LinkError, linkSbf } from './link';

const USAGE = 'usage: sbf-link -o <output.so> <input.o>...';

export function runCli(args: readonly string[]): void {
  let output: string | undefined;
  const inputs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-o') {
      if (output !== undefined) throw new LinkError(`-o given twice; ${USAGE}`);
      output = args[++i];
      if (output === undefined) throw new LinkError(`-o needs a file name; ${USAGE}`);
    } else if (arg.startsWith('-o') && arg.length > 2) {
      if (output !== undefined) throw new LinkError(`-o given twice; ${USAGE}`);
      output = arg.slice(2);
    } else if (arg.startsWith('-') && arg !== '-') {
      throw new LinkError(`unknown option ${arg}; ${USAGE}`);
    } else {
      inputs.push(arg);
    }
  }
  if (output === undefined) throw new LinkError(`no output file; ${USAGE}`);
  if (inputs.length === 0) throw new LinkError(`no input objects; ${USAGE}`);
  const objects = inputs.map((name) => {
    try {
      return { name, bytes: readFileSync(name) };
    } catch (error) {
      throw new LinkError(`cannot read ${name}: ${(error as Error).message}`);
    }
  });
  const linked = linkSbf(objects);
  try {
    writeFileSync(output, linked);
  } catch (error) {
    throw new LinkError(`cannot write ${output}: ${(error as Error).message}`);
  }
}

/** Runs the CLI; returns the exit code (errors go to `stderr` as one `sbf-link: …` line). */
export function main(args: readonly string[], stderr: (line: string) => void): number {
  try {
    runCli(args);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stderr(`sbf-link: ${message.split('\n')[0]}\n`);
    return 1;
  }
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2), (line) => process.stderr.write(line));
}
