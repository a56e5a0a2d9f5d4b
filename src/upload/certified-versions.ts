import { Injectable } from '@nestjs/common';
import { CertifiedFacts } from '../versions/certified-facts';

/** Tapes whose last certified version's facts are kept (one version each). */
const TAPES_KEPT = 32;
/**
 * Entries and nodes kept across all tapes' facts: bounds the memory (a decoded entry is a few
 * hundred bytes). A version larger than this alone is certified whole each time, as before.
 */
export const FACTS_WEIGHT_KEPT = 100_000;

/**
 * The facts of the last version this gateway certified per tape (docs/versions.md,
 * "Certification in proportion to the change"), so that tape's next version is certified in
 * proportion to what changed. They are trusted only while that version is the tape's current
 * one at the number it was certified to become: its references were recorded under that
 * version's owner before its Publish, so the collector keeps its bytes while the tape keeps it.
 */
@Injectable()
export class CertifiedVersions {
  private readonly byTape = new Map<string, { version: number; facts: CertifiedFacts }>();
  private weight = 0;

  /** The facts of `root` certified as `version` of `tape`, if this gateway certified it. */
  trusted(tape: string, version: number, root: Buffer): CertifiedFacts | undefined {
    const kept = this.byTape.get(tape);
    if (kept === undefined || kept.version !== version || !kept.facts.root.equals(root)) {
      return undefined;
    }
    return kept.facts;
  }

  remember(tape: string, version: number, facts: CertifiedFacts): void {
    this.forget(tape);
    if (weightOf(facts) > FACTS_WEIGHT_KEPT) return;
    this.byTape.set(tape, { version, facts });
    this.weight += weightOf(facts);
    while (this.byTape.size > TAPES_KEPT || this.weight > FACTS_WEIGHT_KEPT) {
      this.forget(this.byTape.keys().next().value!);
    }
  }

  private forget(tape: string): void {
    const kept = this.byTape.get(tape);
    if (kept === undefined) return;
    this.byTape.delete(tape);
    this.weight -= weightOf(kept.facts);
  }
}

function weightOf(facts: CertifiedFacts): number {
  return facts.nodes.size + facts.entries.size;
}
