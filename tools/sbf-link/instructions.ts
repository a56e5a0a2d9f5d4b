/**
 * Instruction fix-ups between upstream eBPF (what clang -target bpf emits) and SBPFv0.
 *
 * `callx` (opcode 0x8d): upstream clang puts the register holding the target address in the
 * dst field; the SBPFv0 verifier and VM read it from the imm field. The linker copies dst into
 * imm so calls through function pointers reach the right register.
 */
import { INSN_SIZE, OPC_CALLX, OPC_LDDW } from './elf-constants';
import { LinkError, hex } from './link-error';
import type { MergedSections } from './merge-sections';

export function adaptCallxForSbpfV0(merged: MergedSections): void {
  const text = merged.text;
  const view = new DataView(text.buffer, text.byteOffset, text.byteLength);
  for (const piece of merged.pieces) {
    if (piece.output !== '.text') continue;
    for (let at = piece.offset; at < piece.offset + piece.size; at += INSN_SIZE) {
      const opcode = text[at];
      if (opcode === OPC_LDDW) {
        at += INSN_SIZE; // skip the second slot of the 16-byte lddw
        continue;
      }
      if (opcode !== OPC_CALLX) continue;
      const dst = text[at + 1] & 0x0f;
      const imm = view.getInt32(at + 4, true);
      if (imm === dst) continue;
      if (imm !== 0 && dst !== 0) {
        throw new LinkError(
          `${piece.objectName}: callx at ${piece.sectionName}+${hex(at - piece.offset)} names ` +
            `register r${dst} in dst and ${imm} in imm; cannot tell which one holds the target`,
        );
      }
      if (dst !== 0) view.setInt32(at + 4, dst, true);
    }
  }
}
