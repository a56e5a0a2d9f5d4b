/**
 * The SBF linker's public API: relocatable eBPF objects from clang in, an SBPFv0 shared object
 * the Solana runtime deploys out. See docs/sbf-linker.md.
 */
import { readObject } from './elf-reader';
import { adaptCallxForSbpfV0 } from './instructions';
import { LinkError } from './link-error';
import { mergeSections } from './merge-sections';
import { applyRelocations } from './relocations';
import { imageLayout, writeSharedObject } from './shared-object';
import { createSymbolResolver, type ResolvedSymbol } from './symbols';

export { LinkError } from './link-error';

export interface LinkInput {
  /** Used in error messages (a file name). */
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** The global symbol the runtime enters (`uint64_t entrypoint(const uint8_t *input)`). */
export const ENTRYPOINT = 'entrypoint';

/**
 * Links relocatable eBPF objects into one SBPFv0 shared object. Deterministic: the same
 * objects in the same order give the same bytes. Throws LinkError on anything it cannot link.
 */
export function linkSbf(objects: readonly LinkInput[]): Buffer {
  if (objects.length === 0) throw new LinkError('no input objects');
  const parsed = objects.map((o) => readObject(o.name, o.bytes));
  const merged = mergeSections(parsed);
  const symbols = createSymbolResolver(parsed, merged);

  const entry = symbols.global(ENTRYPOINT);
  if (entry === undefined) {
    throw new LinkError(`no object defines the global symbol ${ENTRYPOINT}`);
  }
  if (entry.kind !== 'defined' || entry.output !== '.text') {
    throw new LinkError(`${ENTRYPOINT} must be a function in code, not ${describeEntry(entry)}`);
  }

  const layout = imageLayout(merged.text.length, merged.rodataAlign);
  const { relocations, syscalls } = applyRelocations(parsed, merged, symbols, layout);
  adaptCallxForSbpfV0(merged);

  return writeSharedObject({
    layout,
    text: merged.text,
    rodata: merged.rodata,
    rodataAlign: merged.rodataAlign,
    entry: { address: layout.textAddress + entry.offset, size: entry.size },
    relocations,
    syscalls,
  });
}

function describeEntry(entry: ResolvedSymbol): string {
  if (entry.kind === 'defined') return `data in ${entry.output}`;
  if (entry.kind === 'unusable') return `a symbol that ${entry.reason}`;
  return 'undefined';
}
