import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSbfObject } from '../../tools/sbf-link/compile-c';
import { linkSbf } from '../../tools/sbf-link/link';

/**
 * A small SBF program that logs `message` and succeeds: C compiled by clang-19 and linked by the
 * project's SBF linker (tools/sbf-link), as program/tape.so is built. Tests deploy it as "other
 * bytes" for an upgrade. With `version`, it embeds the marker program/src/version.c does
 * (`tape network deploy` compares versions); without, it is an unversioned build.
 */
export function buildLoggingProgram(message: string, version?: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'sbf-program-'));
  try {
    const source = [
      '#include <stdint.h>',
      'void sol_log_(const char *message, uint64_t length);',
      `static const char text[] = ${JSON.stringify(message)};`,
      ...(version === undefined
        ? []
        : [`const char tape_program_version[] = "tape-program-version=${version}";`]),
      'uint64_t entrypoint(const uint8_t *input) {',
      '  (void)input;',
      '  sol_log_(text, sizeof text - 1);',
      '  return 0;',
      '}',
      '',
    ].join('\n');
    return linkSbf([compileSbfObject(dir, 'program', source)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
