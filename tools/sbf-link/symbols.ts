/**
 * Symbol resolution: global definitions across all objects (duplicates refused, COMMON
 * refused), and for any symbol a relocation names, where it ended up in the output.
 */
import {
  SHN_ABS,
  SHN_COMMON,
  SHN_LORESERVE,
  SHN_UNDEF,
  STB_GLOBAL,
  STB_LOCAL,
  STB_WEAK,
  STT_FILE,
  STT_SECTION,
} from './elf-constants';
import type { InputSymbol, ObjectFile } from './elf-reader';
import { LinkError } from './link-error';
import type { MergedSections, OutputSectionName } from './merge-sections';

/** Where a symbol a relocation refers to lives in the output image. */
export type ResolvedSymbol =
  | {
      readonly kind: 'defined';
      readonly name: string;
      readonly output: OutputSectionName;
      /** Offset inside the output section. */
      readonly offset: number;
      readonly size: number;
      readonly type: number;
    }
  | { readonly kind: 'undefined'; readonly name: string }
  | { readonly kind: 'unusable'; readonly name: string; readonly reason: string };

interface GlobalDefinition {
  readonly objectIndex: number;
  readonly symbol: InputSymbol;
}

export interface SymbolResolver {
  /** Resolves symbol `symbolIndex` of object `objectIndex` (following globals to their definition). */
  resolve(objectIndex: number, symbolIndex: number): ResolvedSymbol;
  /** The definition of a global symbol, if any object defines it. */
  global(name: string): ResolvedSymbol | undefined;
}

function displayName(object: ObjectFile, symbol: InputSymbol): string {
  if (symbol.type === STT_SECTION) {
    return object.sections[symbol.shndx]?.name ?? `section ${symbol.shndx}`;
  }
  return symbol.name === '' ? `symbol #${symbol.index}` : symbol.name;
}

/** Collects global definitions; throws on duplicates and on COMMON (tentative) definitions. */
export function createSymbolResolver(
  objects: readonly ObjectFile[],
  sections: MergedSections,
): SymbolResolver {
  const globals = new Map<string, GlobalDefinition>();

  objects.forEach((object, objectIndex) => {
    for (const symbol of object.symbols) {
      if (symbol.index === 0 || symbol.type === STT_FILE) continue;
      if (symbol.shndx === SHN_COMMON) {
        throw new LinkError(
          `${object.name}: symbol ${symbol.name} is a COMMON (tentative, writable) definition; ` +
            'SBF programs cannot have writable globals (compile with -fno-common and make it const)',
        );
      }
      if (symbol.bind === STB_LOCAL || symbol.shndx === SHN_UNDEF) continue;
      if (symbol.bind !== STB_GLOBAL && symbol.bind !== STB_WEAK) {
        throw new LinkError(
          `${object.name}: symbol ${symbol.name} has unsupported binding ${symbol.bind}`,
        );
      }
      const previous = globals.get(symbol.name);
      if (
        previous === undefined ||
        (previous.symbol.bind === STB_WEAK && symbol.bind === STB_GLOBAL)
      ) {
        globals.set(symbol.name, { objectIndex, symbol });
      } else if (previous.symbol.bind === STB_GLOBAL && symbol.bind === STB_GLOBAL) {
        throw new LinkError(
          `duplicate definition of global symbol ${symbol.name} in ` +
            `${objects[previous.objectIndex].name} and ${object.name}`,
        );
      }
    }
  });

  const locate = (objectIndex: number, symbol: InputSymbol): ResolvedSymbol => {
    const object = objects[objectIndex];
    const name = displayName(object, symbol);
    if (symbol.shndx === SHN_UNDEF) return { kind: 'undefined', name };
    if (symbol.shndx === SHN_ABS) {
      return { kind: 'unusable', name, reason: 'is an absolute (SHN_ABS) symbol' };
    }
    if (symbol.shndx >= SHN_LORESERVE) {
      return { kind: 'unusable', name, reason: `has special section index ${symbol.shndx}` };
    }
    const placement = sections.placement(objectIndex, symbol.shndx);
    if (placement === undefined) {
      const section = object.sections[symbol.shndx];
      return {
        kind: 'unusable',
        name,
        reason: `is in section ${section.name}, which is not part of the program image`,
      };
    }
    if (symbol.value > placement.size) {
      return {
        kind: 'unusable',
        name,
        reason: `has value ${symbol.value} beyond the end of its section (${placement.size} bytes)`,
      };
    }
    return {
      kind: 'defined',
      name,
      output: placement.output,
      offset: placement.offset + symbol.value,
      size: symbol.size,
      type: symbol.type,
    };
  };

  return {
    resolve(objectIndex, symbolIndex) {
      const symbol = objects[objectIndex].symbols[symbolIndex];
      if (symbol.bind !== STB_LOCAL && symbol.type !== STT_SECTION) {
        const definition = globals.get(symbol.name);
        if (definition !== undefined) return locate(definition.objectIndex, definition.symbol);
      }
      return locate(objectIndex, symbol);
    },
    global(name) {
      const definition = globals.get(name);
      return definition === undefined
        ? undefined
        : locate(definition.objectIndex, definition.symbol);
    },
  };
}
