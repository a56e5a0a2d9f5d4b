/**
 * Decides what becomes of every input section and concatenates the kept ones: executable
 * sections into the output `.text`, read-only data (`.rodata`, `.rodata.str1.1`, `.rodata.*`)
 * into ONE output `.rodata` (the SBPF loader maps no other read-only section name).
 * Writable data is refused: an SBF program has no writable globals.
 */
import {
  INSN_SIZE,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHF_WRITE,
  SHT_NOBITS,
  SHT_PROGBITS,
} from './elf-constants';
import type { InputSection, ObjectFile } from './elf-reader';
import { LinkError } from './link-error';

export type OutputSectionName = '.text' | '.rodata';

export interface Placement {
  readonly output: OutputSectionName;
  /** Offset of the input section inside the output section. */
  readonly offset: number;
  readonly size: number;
}

export interface Piece {
  readonly objectName: string;
  readonly sectionName: string;
  readonly output: OutputSectionName;
  readonly offset: number;
  readonly size: number;
}

export interface MergedSections {
  /** Concatenated executable code (a fresh copy: relocation patches it in place). */
  readonly text: Uint8Array;
  /** Concatenated read-only data (a fresh copy). */
  readonly rodata: Uint8Array;
  /** Largest alignment any read-only piece asked for (at least 8). */
  readonly rodataAlign: number;
  /** Every kept input section, in output order. */
  readonly pieces: readonly Piece[];
  /** Where section `sectionIndex` of object `objectIndex` went, if it was kept. */
  placement(objectIndex: number, sectionIndex: number): Placement | undefined;
}

type Kind = OutputSectionName | 'ignored';

/** What becomes of one input section; throws for allocated sections the runtime cannot map. */
export function classifySection(object: ObjectFile, section: InputSection): Kind {
  if (section.index === 0 || (section.flags & SHF_ALLOC) === 0) return 'ignored';
  if ((section.flags & SHF_WRITE) !== 0) {
    if (section.size === 0) return 'ignored';
    throw new LinkError(
      `${object.name}: section ${section.name} is writable data (${section.size} bytes); ` +
        'SBF programs cannot have writable globals (.data, .bss): make the data const or keep ' +
        'state in accounts',
    );
  }
  if (section.type === SHT_PROGBITS) {
    return (section.flags & SHF_EXECINSTR) !== 0 ? '.text' : '.rodata';
  }
  if (section.size === 0) return 'ignored';
  const what =
    section.type === SHT_NOBITS ? 'uninitialised (SHT_NOBITS)' : `of type ${section.type}`;
  throw new LinkError(
    `${object.name}: allocatable section ${section.name} is ${what}; only code and read-only ` +
      'data can be linked',
  );
}

function alignment(object: ObjectFile, section: InputSection): number {
  const align = Math.max(1, section.addralign);
  if ((align & (align - 1)) !== 0) {
    throw new LinkError(
      `${object.name}: section ${section.name} has sh_addralign ${align}, not a power of two`,
    );
  }
  return align;
}

export function alignUp(value: number, align: number): number {
  return Math.ceil(value / align) * align;
}

/**
 * Lays out the kept sections in a stable order (objects in the order given, sections in
 * section-header order) and copies their bytes.
 */
export function mergeSections(objects: readonly ObjectFile[]): MergedSections {
  const placements = new Map<string, Placement>();
  const pieces: (Piece & { readonly data: Uint8Array })[] = [];
  const sizes: Record<OutputSectionName, number> = { '.text': 0, '.rodata': 0 };
  let rodataAlign = 8;

  objects.forEach((object, objectIndex) => {
    for (const section of object.sections) {
      const kind = classifySection(object, section);
      if (kind === 'ignored') continue;
      let align = alignment(object, section);
      if (kind === '.text') {
        if (section.size % INSN_SIZE !== 0) {
          throw new LinkError(
            `${object.name}: code section ${section.name} is ${section.size} bytes, ` +
              `not a whole number of ${INSN_SIZE}-byte instructions`,
          );
        }
        align = Math.max(align, INSN_SIZE);
      } else {
        rodataAlign = Math.max(rodataAlign, align);
      }
      const offset = alignUp(sizes[kind], align);
      sizes[kind] = offset + section.size;
      placements.set(`${objectIndex}:${section.index}`, {
        output: kind,
        offset,
        size: section.size,
      });
      pieces.push({
        objectName: object.name,
        sectionName: section.name,
        output: kind,
        offset,
        size: section.size,
        data: section.data,
      });
    }
  });

  const text = new Uint8Array(sizes['.text']);
  const rodata = new Uint8Array(sizes['.rodata']);
  for (const piece of pieces) {
    (piece.output === '.text' ? text : rodata).set(piece.data, piece.offset);
  }
  return {
    text,
    rodata,
    rodataAlign,
    pieces: pieces.map(({ data: _data, ...piece }) => piece),
    placement: (objectIndex, sectionIndex) => placements.get(`${objectIndex}:${sectionIndex}`),
  };
}
