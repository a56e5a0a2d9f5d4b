import { isHex64 } from './bytes';
import { PROOF_FORMAT, ProofEntry, TapeProof } from './proof-format';
import { Refusal } from './refusal';

/** The proof is a `tape-proof-v1` document of a known shape, else `malformed_proof`. */
export function checkShape(value: unknown): TapeProof {
  const p = value as TapeProof;
  const fail = (what: string): never => {
    throw new Refusal('malformed_proof', `not a ${PROOF_FORMAT} proof: ${what}`);
  };
  if (typeof p !== 'object' || p === null) fail('not an object');
  if (p.format !== PROOF_FORMAT) fail('format');
  if (typeof p.tape !== 'string') fail('tape');
  if (!Number.isSafeInteger(p.version) || p.version < 1) fail('version');
  if (!isHex64(p.root)) fail('root');
  if (!Array.isArray(p.nodes) || p.nodes.some((n) => typeof n !== 'string')) fail('nodes');
  const t = p.target;
  if (typeof t !== 'object' || t === null) fail('target');
  const sel = p.selector;
  if (sel !== undefined) {
    const ok =
      typeof sel === 'object' &&
      sel !== null &&
      ((sel.kind === 'pinned' && Number.isSafeInteger(sel.version) && sel.version >= 1) ||
        (sel.kind === 'alias' && typeof sel.name === 'string'));
    if (!ok) fail('selector');
  }
  let noFile = false;
  if (t.kind === 'site') {
    if (typeof t.path !== 'string') fail('target');
    if (t.rule !== undefined && (!Number.isSafeInteger(t.rule) || t.rule < 0)) fail('target rule');
    if ('location' in t) {
      noFile = true;
      if (typeof t.location !== 'string' || t.rule === undefined) fail('target');
      if (![301, 302, 303, 307, 308].includes(t.status)) fail('target status');
    } else if ('page' in t) {
      noFile = true;
      if (t.page !== 'built-in' || t.rule === undefined) fail('target');
      if (![404, 410, 451].includes(t.status)) fail('target status');
    } else {
      if (typeof t.name !== 'string') fail('target');
      const statuses = t.rule === undefined ? [200, 404] : [200, 404, 410, 451];
      if (!statuses.includes(t.status)) fail('target status');
    }
  } else if (t.kind !== 'object' || !isHex64(t.commitment)) fail('target');
  if (noFile && p.entry === undefined && p.content === undefined) return p;
  const e = p.entry as ProofEntry;
  if (typeof e !== 'object' || e === null || !isHex64(e.commitment)) fail('entry');
  if (!Number.isSafeInteger(e.size) || typeof e.contentType !== 'string') fail('entry');
  const c = p.content as Record<string, unknown>;
  if (typeof c !== 'object' || c === null) fail('content');
  if (typeof c.chunkHashes !== 'string' && typeof c.manifest !== 'string') fail('content');
  return p;
}
