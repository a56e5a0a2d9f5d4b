/**
 * Applies the objects' relocations to the merged `.text` and `.rodata` and produces the
 * dynamic relocations the SBPFv0 loader applies when it deploys the program:
 *
 * - R_BPF_64_64 on an `lddw` (address of read-only data or code): the final address goes into
 *   the two imm halves and the loader gets an R_BPF_64_RELATIVE (it adds the program's base).
 * - R_BPF_64_ABS64 in read-only data (pointer tables): SBPFv0 reads a data relocation's address
 *   as the u32 at offset + 4 (a legacy layout), so the 8 bytes get `address << 32` and the loader
 *   gets an R_BPF_64_RELATIVE (it writes base + address there as a u64).
 * - R_BPF_64_32 on `call -1`: to an undefined symbol named like a syscall (`abort`, `sol_*`) it
 *   stays R_BPF_64_32 against an undefined `.dynsym` entry (the loader hashes the name); to a
 *   function defined in
 *   any object it becomes a pc-relative call (src = 1), which needs no dynamic relocation.
 *
 * Anything else is refused with a LinkError naming object, section, offset, type and symbol.
 */
import {
  INSN_SIZE,
  OPC_CALL,
  OPC_LDDW,
  R_BPF_64_32,
  R_BPF_64_64,
  R_BPF_64_ABS64,
  R_BPF_64_RELATIVE,
  R_BPF_NONE,
  STT_OBJECT,
  relocationName,
} from './elf-constants';
import type { InputRelocation, ObjectFile } from './elf-reader';
import { LinkError, hex } from './link-error';
import type { MergedSections, Placement } from './merge-sections';
import type { DynamicRelocation, ImageLayout } from './shared-object';
import type { ResolvedSymbol, SymbolResolver } from './symbols';

/** Longest syscall name the loader reads from `.dynstr` (64 bytes including the NUL). */
const MAX_SYSCALL_NAME_LENGTH = 63;
const MAX_ADDRESS = 0xffff_ffff;

/**
 * Every syscall agave registers is `abort` or starts with `sol_`. Checking the name turns a
 * forgotten object (its functions would otherwise become "syscalls" the runtime cannot
 * resolve, failing only when called) into a link error.
 */
export function isSyscallName(name: string): boolean {
  return name === 'abort' || name.startsWith('sol_');
}

export interface RelocationResult {
  /** Sorted by offset. */
  readonly relocations: DynamicRelocation[];
  /** Distinct syscall names, sorted. */
  readonly syscalls: string[];
}

interface Site {
  readonly object: ObjectFile;
  readonly sectionName: string;
  readonly relocation: InputRelocation;
  readonly placement: Placement;
  /** Offset of the patched bytes inside the output section. */
  readonly at: number;
  readonly symbol: ResolvedSymbol;
}

function describe(site: Site): string {
  return (
    `${site.object.name}: ${relocationName(site.relocation.type)} at ` +
    `${site.sectionName}+${hex(site.relocation.offset)} against ${site.symbol.name}`
  );
}

function refuse(site: Site, problem: string): never {
  throw new LinkError(`${describe(site)}: ${problem}`);
}

export function applyRelocations(
  objects: readonly ObjectFile[],
  merged: MergedSections,
  symbols: SymbolResolver,
  layout: ImageLayout,
): RelocationResult {
  const text = new DataView(merged.text.buffer, merged.text.byteOffset, merged.text.byteLength);
  const rodata = new DataView(
    merged.rodata.buffer,
    merged.rodata.byteOffset,
    merged.rodata.byteLength,
  );
  const base = { '.text': layout.textAddress, '.rodata': layout.rodataAddress } as const;
  const relocations: DynamicRelocation[] = [];
  const syscalls = new Set<string>();

  /** Final address of a defined symbol plus an addend; refuses anything else. */
  const address = (site: Site, addend: bigint): number => {
    const { symbol } = site;
    if (symbol.kind === 'undefined') {
      refuse(
        site,
        'the symbol is not defined in any object (only calls may name undefined symbols: ' +
          'those are syscalls)',
      );
    }
    if (symbol.kind === 'unusable') refuse(site, `the symbol ${symbol.reason}`);
    const value = BigInt(base[symbol.output] + symbol.offset) + addend;
    if (value <= 0n || value > BigInt(MAX_ADDRESS)) {
      refuse(site, `the address ${hex(value)} (addend ${addend}) lies outside the program`);
    }
    return Number(value);
  };

  const requireIn = (site: Site, output: '.text' | '.rodata', what: string): void => {
    if (site.placement.output !== output) refuse(site, `only supported in ${what}`);
  };

  const requireInstruction = (site: Site, opcode: number, length: number, what: string): void => {
    const { at, relocation, placement } = site;
    if ((at - placement.offset) % INSN_SIZE !== 0 || relocation.offset + length > placement.size) {
      refuse(site, `not on a whole ${what} instruction`);
    }
    if (merged.text[at] !== opcode) {
      refuse(
        site,
        `expected ${what} (opcode ${hex(opcode)}), found opcode ${hex(merged.text[at])}`,
      );
    }
  };

  objects.forEach((object, objectIndex) => {
    for (const relocationSection of object.relocationSections) {
      const target = object.sections[relocationSection.target];
      const placement = merged.placement(objectIndex, target.index);
      if (placement === undefined) continue; // debug info, BTF and other sections not linked
      if (relocationSection.rela) {
        throw new LinkError(
          `${object.name}: ${relocationSection.name} holds RELA relocations for ${target.name}; ` +
            'only REL relocations (what clang -target bpf writes) are supported',
        );
      }
      for (const relocation of relocationSection.relocations) {
        if (relocation.offset >= placement.size) {
          throw new LinkError(
            `${object.name}: ${relocationName(relocation.type)} at ${target.name}+` +
              `${hex(relocation.offset)} lies outside the section (${placement.size} bytes)`,
          );
        }
        const site: Site = {
          object,
          sectionName: target.name,
          relocation,
          placement,
          at: placement.offset + relocation.offset,
          symbol: symbols.resolve(objectIndex, relocation.symbol),
        };
        switch (relocation.type) {
          case R_BPF_NONE:
            break;
          case R_BPF_64_64: {
            requireIn(site, '.text', 'code (on lddw)');
            requireInstruction(site, OPC_LDDW, 2 * INSN_SIZE, 'lddw');
            if (merged.text[site.at + INSN_SIZE] !== 0) {
              refuse(site, 'the lddw has no second instruction slot (opcode 0)');
            }
            const addend = BigInt(text.getInt32(site.at + 4, true));
            const value = address(site, addend);
            text.setUint32(site.at + 4, value, true);
            text.setUint32(site.at + INSN_SIZE + 4, 0, true);
            relocations.push({ offset: layout.textAddress + site.at, type: R_BPF_64_RELATIVE });
            break;
          }
          case R_BPF_64_ABS64: {
            requireIn(site, '.rodata', 'read-only data');
            if (relocation.offset + 8 > placement.size) {
              refuse(site, 'the 8 bytes cross the section end');
            }
            const addend = rodata.getBigInt64(site.at, true);
            const value = address(site, addend);
            // SBPFv0 reads the address from the upper half (legacy layout); see the file comment.
            rodata.setUint32(site.at, 0, true);
            rodata.setUint32(site.at + 4, value, true);
            relocations.push({ offset: layout.rodataAddress + site.at, type: R_BPF_64_RELATIVE });
            break;
          }
          case R_BPF_64_32: {
            requireIn(site, '.text', 'code (on call)');
            requireInstruction(site, OPC_CALL, INSN_SIZE, 'call');
            const imm = text.getInt32(site.at + 4, true);
            const { symbol } = site;
            if (symbol.kind === 'undefined') {
              if (!isSyscallName(symbol.name)) {
                refuse(
                  site,
                  'the called function is not defined in any object and is not a syscall name ' +
                    '(abort, sol_*): is an object missing from the link?',
                );
              }
              if (imm !== -1) refuse(site, `a syscall must be "call -1", found call ${imm}`);
              if (symbol.name.length === 0 || symbol.name.length > MAX_SYSCALL_NAME_LENGTH) {
                refuse(site, `a syscall name must be 1..${MAX_SYSCALL_NAME_LENGTH} characters`);
              }
              syscalls.add(symbol.name);
              relocations.push({
                offset: layout.textAddress + site.at,
                type: R_BPF_64_32,
                symbol: symbol.name,
              });
              break;
            }
            if (symbol.kind === 'defined' && symbol.output !== '.text') {
              refuse(
                site,
                `the call target is ${symbol.type === STT_OBJECT ? 'a data object' : 'data'}, not code`,
              );
            }
            // The implicit addend of a call is imm + 1 instructions past the symbol (0 for `call -1`).
            const target = address(site, BigInt(imm + 1) * BigInt(INSN_SIZE)) - layout.textAddress;
            if (target % INSN_SIZE !== 0 || target < 0 || target >= merged.text.length) {
              refuse(site, `the call target ${hex(target)} is not an instruction in .text`);
            }
            const relative = target / INSN_SIZE - site.at / INSN_SIZE - 1;
            if (relative === -1) {
              refuse(site, 'a call to its own instruction would read as a syscall (imm -1)');
            }
            text.setInt32(site.at + 4, relative, true);
            merged.text[site.at + 1] = (merged.text[site.at + 1] & 0x0f) | 0x10; // src = 1
            break;
          }
          default:
            refuse(site, 'unsupported relocation type');
        }
      }
    }
  });

  relocations.sort((a, b) => a.offset - b.offset);
  return { relocations, syscalls: [...syscalls].sort() };
}
