import {
  firstRedirectRule,
  REDIRECT_STATUSES,
  RedirectRule,
  RedirectStatus,
} from '../../versions/rules/redirect-match';

export {
  firstRedirectRule,
  matchPath,
  placeholdersOf,
  REDIRECT_STATUSES,
  substitute,
} from '../../versions/rules/redirect-match';
export type { PathParams, RedirectRule, RedirectStatus } from '../../versions/rules/redirect-match';

/**
 * The verifier of tape proofs (docs/verify.md): given one RPC answer (getAccountInfo of the
 * tape, with its context slot), a proof a gateway handed out and the bytes it served, it accepts
 * them or names the first file, byte range and reason that fail.
 *
 * No dependencies, on purpose: the `tape verify` command runs it under Node and the gateway
 * serves the very same code to browsers as one ES module (`GET /_tape/verify.js`), so it uses
 * only Uint8Array, TextEncoder/TextDecoder and an injected SHA-256 (WebCrypto's
 * `crypto.subtle.digest` in a browser). Its one import, the `_redirects` matching, is itself
 * import-free and inlined into the module by `npm run build` (tools/bundle-verify-module.mjs).
 */

/** SHA-256 of some bytes: `webCryptoSha256` in a browser, node:crypto in the CLI. */
export type Sha256 = (data: Uint8Array) => Promise<Uint8Array> | Uint8Array;

export const PROOF_FORMAT = 'tape-proof-v1';
export const CHUNK_BYTES = 65536;
const TRACK_DOMAIN = 'tape-track-v1';
const ROOT_MAGIC = 'tape-version-v1';
/** A root carrying the site's compiled `_redirects` and `_headers` (docs/versions.md). */
const ROOT_MAGIC_RULES = 'tape-version-v2';
const MAX_LEVEL = 16;

export type EntryLocation =
  | { kind: 'blob' }
  | { kind: 'stream'; manifestBytes: number }
  | { kind: 'packed'; pack: string; packSize: number; offset: number };

/** A file of a version as a proof states it (hex commitments). */
export interface ProofEntry {
  /** The name (site targets); absent for `/object` targets (the commits tree has no names). */
  name?: string;
  commitment: string;
  size: number;
  contentType: string;
  location: EntryLocation;
}

/**
 * A site answer: a file (`name`) under `status`, or (`location`) a redirect a `_redirects` rule
 * decides. `rule` is the index of the `_redirects` rule that decides the answer (absent when no
 * rule does): a redirect, a 200 rewrite, a 404/410/451 page chosen by the rule.
 */
export type SiteProofTarget = SiteFileTarget | SiteRedirectTarget | SitePageTarget;
export interface SiteFileTarget {
  kind: 'site';
  path: string;
  name: string;
  status: 200 | 404 | 410 | 451;
  rule?: number;
}
/**
 * The gateway's built-in page for a rule whose file is absent: a 410/451 rule's page, or the
 * built-in 404 of a 200/404 rule when the site has no `404.html` either.
 */
export interface SitePageTarget {
  kind: 'site';
  path: string;
  status: 404 | 410 | 451;
  page: 'built-in';
  rule: number;
}
export interface SiteRedirectTarget {
  kind: 'site';
  path: string;
  status: 301 | 302 | 303 | 307 | 308;
  location: string;
  rule: number;
}

export type ProofTarget = SiteProofTarget | { kind: 'object'; commitment: string };

/** Which kept version a site URL asks for instead of the current one (`@3`, `@pr-12`). */
export type ProofSelector = { kind: 'pinned'; version: number } | { kind: 'alias'; name: string };

export interface TapeProof {
  format: typeof PROOF_FORMAT;
  /** The tape's account address (base58). */
  tape: string;
  /** What the gateway read: the slot and the tape account's data (base64). Informational. */
  pointer: { slot: number; data: string };
  /** Which version the answer is of, and its root commitment (hex). */
  version: number;
  root: string;
  /** The selector of a pinned or alias URL the proof answers (absent: the current version). */
  selector?: ProofSelector;
  target: ProofTarget;
  /** base64: the version root, then every node on the way down to the entry's leaf. */
  nodes: string[];
  /** The file answering (absent only for a redirect target). */
  entry?: ProofEntry;
  /** The chunk-hash list of the entry's own commitment, or (streamed files) its segment manifest. */
  content?: { chunkHashes: string } | { manifest: string };
}

/** The JSON-RPC `result` of `getAccountInfo(tape, {encoding: "base64"})`. */
export interface RpcAccountAnswer {
  context: { slot: number };
  value: { data: [string, string] | string[]; owner?: string } | null;
}

export type FailureReason =
  | 'malformed_proof'
  | 'wrong_target'
  | 'no_tape'
  | 'no_version'
  | 'stale_version'
  | 'version_not_kept'
  | 'root_mismatch'
  | 'node_mismatch'
  | 'entry_not_found'
  | 'entry_mismatch'
  | 'name_not_for_path'
  | 'alias_mismatch'
  | 'rule_mismatch'
  | 'rule_shadowed'
  | 'content_proof_mismatch'
  | 'size_mismatch'
  | 'content_mismatch'
  | 'header_mismatch';

export interface Accepted {
  ok: true;
  file: string;
  tape: string;
  version: number;
  root: string;
  slot: number;
  /** The file that answered (absent for a redirect). */
  entry?: ProofEntry;
  /** A redirect's status and location (the `_redirects` rule's). */
  redirect?: { status: number; location: string };
  /** The status of a built-in page a `_redirects` rule answers with (no file, body unchecked). */
  builtInPage?: number;
  /** Bytes checked against the chain (0 when no body was given). */
  checkedBytes: number;
}

export interface Refused {
  ok: false;
  file: string;
  reason: FailureReason;
  message: string;
  /** The bytes that fail, inclusive, when the failure is in the body. */
  range?: [number, number];
}

export type Verdict = Accepted | Refused;

/** A tape's kept versions as its account states them: the current one served at `/`. */
export interface TapePointer {
  current: number;
  kept: { version: number; root: string }[];
  /** The alias table: each name and the version it points at, in table order. */
  aliases: { name: string; version: number }[];
}

/**
 * The tape account's pointer (docs/program.md, "Accounts"; program 1.3.0's 2,221-byte record):
 * the one place that knows the layout. `current` is the version served at `/`; `kept` is the
 * history table (every version the tape keeps: current, aliased and the newest `keep`), newest
 * first. Returns null for data that is not a tape record.
 */
export function readTapePointer(data: Uint8Array): TapePointer | null {
  if (data.length !== TAPE_RECORD_SIZE || data[0] !== 2) return null;
  const current = u64(data, 130);
  const historyLen = data[163];
  if (historyLen > HISTORY_SLOTS) return null;
  const kept: TapePointer['kept'] = [];
  for (let i = historyLen - 1; i >= 0; i--) {
    const at = HISTORY_AT + i * HISTORY_ENTRY_SIZE;
    kept.push({ version: u64(data, at), root: hex(data.subarray(at + 8, at + 40)) });
  }
  const aliasCount = data[ALIASES_AT];
  if (aliasCount > ALIAS_SLOTS) return null;
  const aliases: TapePointer['aliases'] = [];
  for (let i = 0; i < aliasCount; i++) {
    const at = ALIASES_AT + 1 + i * ALIAS_ENTRY_SIZE;
    const len = data[at];
    if (len < 1 || len > ALIAS_NAME_MAX) return null;
    let name = '';
    for (const b of data.subarray(at + 1, at + 1 + len)) name += String.fromCharCode(b);
    aliases.push({ name, version: u64(data, at + 1 + ALIAS_NAME_MAX) });
  }
  return { current, kept, aliases };
}

/** Program 1.3.0's tape record: 130 bytes of tape, then the pointer, history and aliases. */
const TAPE_RECORD_SIZE = 2221;
const HISTORY_AT = 164;
const HISTORY_SLOTS = 32;
const HISTORY_ENTRY_SIZE = 56;
/** After the history table: `u8 alias_count`, then 8 × (`u8 len`, `[24] name`, `u64 version`). */
const ALIASES_AT = HISTORY_AT + HISTORY_SLOTS * HISTORY_ENTRY_SIZE;
const ALIAS_SLOTS = 8;
const ALIAS_NAME_MAX = 24;
const ALIAS_ENTRY_SIZE = 1 + ALIAS_NAME_MAX + 8;

export interface VerifyInput {
  rpc: RpcAccountAnswer;
  proof: unknown;
  /** The whole body served (omit to check the proof alone). */
  body?: Uint8Array;
  /** The answer's status and headers (lower-case names), checked against the proof. */
  status?: number;
  headers?: Record<string, string | undefined>;
  /** What the client asked for: the proof must be about exactly this. */
  expect?: {
    tape?: string;
    path?: string;
    commitment?: string;
    version?: number;
    /** The URL asked for a pinned version or an alias (`@3`, `v3--…`, `@pr-12`, `pr-12--…`). */
    selector?: ProofSelector;
  };
  sha256: Sha256;
}

/** Checks one answer; never throws for bad input (it is a refusal). */
export async function verifyAnswer(input: VerifyInput): Promise<Verdict> {
  const file = fileOf(input);
  try {
    return await verify(input, file);
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, file, ...err.detail };
    return refused(file, 'malformed_proof', (err as Error).message);
  }
}

/** WebCrypto's SHA-256 (browsers, Node 20+). */
export const webCryptoSha256: Sha256 = async (data) => {
  const subtle = (globalThis as unknown as { crypto: { subtle: SubtleLike } }).crypto.subtle;
  return new Uint8Array(await subtle.digest('SHA-256', data));
};

interface SubtleLike {
  digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer>;
}

/** A version's entries and nodes, checked from its root: what `tape verify --all` walks. */
export interface CheckedVersion {
  entries: ProofEntry[];
}

/**
 * Every entry of the names tree of a version whose root is `root` (hex), from its nodes (the
 * root's bytes first or anywhere; each node found by its own commitment and checked against the
 * branch naming it).
 */
export async function walkVersion(
  root: string,
  nodes: Uint8Array[],
  sha256: Sha256,
): Promise<CheckedVersion> {
  const byCommitment = await indexNodes(nodes, sha256);
  const rootBytes = byCommitment.get(root);
  if (!rootBytes) throw new Refusal('root_mismatch', `no node hashes to the root ${root}`);
  const top = decodeRoot(rootBytes).names;
  const entries: ProofEntry[] = [];
  const visit = (node: Node): void => {
    if (node.level === 0) {
      entries.push(...node.entries);
      return;
    }
    for (let i = 0; i < node.branches.length; i++) visit(childOf(node, i, byCommitment));
  };
  visit(top);
  return { entries };
}

/** tape-track-v1 of some bytes (docs/tracks.md), with the chunk hashes. */
export async function trackCommitment(
  bytes: Uint8Array,
  sha256: Sha256,
): Promise<{ commitment: Uint8Array; chunkHashes: Uint8Array }> {
  const count = Math.ceil(bytes.length / CHUNK_BYTES);
  const chunkHashes = new Uint8Array(count * 32);
  for (let i = 0; i < count; i++) {
    const chunk = bytes.subarray(i * CHUNK_BYTES, Math.min(bytes.length, (i + 1) * CHUNK_BYTES));
    chunkHashes.set(await sha256(chunk), i * 32);
  }
  return { commitment: await commitmentOfList(bytes.length, chunkHashes, sha256), chunkHashes };
}

/** The tape and the commitment a `/object/{track}` address names (base58 of the 64 bytes). */
export function objectAddressParts(address: string): { tape: string; commitment: string } | null {
  const bytes = base58Decode(address);
  if (bytes === null || bytes.length !== 64) return null;
  return { tape: base58Encode(bytes.subarray(0, 32)), commitment: hex(bytes.subarray(32)) };
}

/** The `/object/{track}` address of a file of a tape: base58 of the 64 bytes tape || commitment. */
export function objectAddress(tape: string, commitment: string): string | null {
  const key = base58Decode(tape);
  if (key === null || key.length !== 32 || !isHex64(commitment)) return null;
  const bytes = new Uint8Array(64);
  bytes.set(key, 0);
  bytes.set(unhex(commitment), 32);
  return base58Encode(bytes);
}

/**
 * The names a site path may be answered with (docs/site.md, "Path mapping"); null if refused.
 * `requestPath` is the decoded path rules match; `directoryIndex` the `<path>/index.html` whose
 * existence makes the gateway add a slash.
 */
export function namesForPath(path: string): {
  exact: string[];
  fallback200: string[];
  requestPath: string;
  directoryIndex: string[];
} | null {
  if (!path.startsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const relative = decoded.slice(1);
  const directory = relative === '' || relative.endsWith('/');
  const name = directory ? `${relative}index.html` : relative;
  const last = relative.split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  const route = directory || dot <= 0 || dot === last.length - 1;
  const exact = [name];
  if (!directory && route) exact.push(`${name}.html`);
  return {
    exact,
    fallback200: route ? ['index.html'] : [],
    requestPath: decoded,
    directoryIndex: directory ? [] : [`${name}/index.html`],
  };
}

/** The `_redirects` rules of a root's compiled rules (docs/versions.md, "Encoding"). */
export function redirectsOfRules(bytes: Uint8Array): RedirectRule[] {
  if (bytes.length === 0) return [];
  const bad = (): never => {
    throw new Refusal('node_mismatch', 'malformed site rules in the version root');
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return bad();
  }
  const list = (parsed as { redirects?: unknown }).redirects;
  if (!Array.isArray(list)) return bad();
  return list.map((r: unknown): RedirectRule => {
    if (!Array.isArray(r) || r.length !== 4) return bad();
    const [from, to, status, force] = r as unknown[];
    if (typeof from !== 'string' || typeof to !== 'string' || typeof force !== 'boolean')
      return bad();
    if (!(REDIRECT_STATUSES as readonly unknown[]).includes(status)) bad();
    if (!from.startsWith('/') || !to.startsWith('/') || to.startsWith('//')) bad();
    return { from, to, status: status as RedirectStatus, force };
  });
}

// ---------------------------------------------------------------------------------------------

export class Refusal extends Error {
  constructor(
    reason: FailureReason,
    message: string,
    readonly range?: [number, number],
  ) {
    super(message);
    this.detail = range ? { reason, message, range } : { reason, message };
  }
  readonly detail: { reason: FailureReason; message: string; range?: [number, number] };
}

function refused(file: string, reason: FailureReason, message: string): Refused {
  return { ok: false, file, reason, message };
}

function fileOf(input: VerifyInput): string {
  const p = input.proof as Partial<TapeProof> | null;
  const t = p && typeof p === 'object' ? p.target : undefined;
  if (t?.kind === 'site' && typeof t.path === 'string') return t.path;
  if (t?.kind === 'object' && typeof t.commitment === 'string') return t.commitment;
  return input.expect?.path ?? input.expect?.commitment ?? '(unknown)';
}

async function verify(input: VerifyInput, file: string): Promise<Verdict> {
  const proof = checkShape(input.proof);
  const { sha256, expect } = input;
  const target = proof.target;
  if (expect?.tape !== undefined && expect.tape !== proof.tape)
    throw new Refusal('wrong_target', `the proof is of tape ${proof.tape}, not ${expect.tape}`);
  if (expect?.path !== undefined && (target.kind !== 'site' || target.path !== expect.path))
    throw new Refusal('wrong_target', `the proof is not of the path ${expect.path}`);
  if (
    expect?.commitment !== undefined &&
    (target.kind !== 'object' || target.commitment !== expect.commitment)
  )
    throw new Refusal('wrong_target', `the proof is not of the object ${expect.commitment}`);
  const selector = expect?.selector;
  if (selector !== undefined && selectorText(proof.selector) !== selectorText(selector))
    throw new Refusal('wrong_target', `the proof is not of ${selectorText(selector)}`);

  // 1. The version, against the chain.
  const value = input.rpc?.value;
  if (!value) throw new Refusal('no_tape', `the RPC has no account ${proof.tape}`);
  const pointer = readTapePointer(base64Decode(String(value.data[0])));
  if (!pointer) throw new Refusal('no_tape', `${proof.tape} is not a tape account`);
  if (pointer.current === 0) throw new Refusal('no_version', 'the tape has no version published');
  const pinned = selector?.kind === 'pinned' ? selector.version : expect?.version;
  if (pinned !== undefined && proof.version !== pinned)
    throw new Refusal('wrong_target', `the proof is of version ${proof.version}, not ${pinned}`);
  if (selector?.kind === 'alias') {
    const alias = pointer.aliases.find((a) => a.name === selector.name);
    if (!alias) throw new Refusal('alias_mismatch', `the tape has no alias ${selector.name}`);
    if (alias.version !== proof.version) {
      throw new Refusal(
        'alias_mismatch',
        `the alias ${selector.name} points at version ${alias.version}, the answer is of version ${proof.version} (slot ${input.rpc.context.slot})`,
      );
    }
  } else if (target.kind === 'site' && pinned === undefined && proof.version !== pointer.current) {
    throw new Refusal(
      proof.version < pointer.current ? 'stale_version' : 'version_not_kept',
      `the answer is of version ${proof.version}; the tape's current version is ${pointer.current} (slot ${input.rpc.context.slot})`,
    );
  }
  const kept = pointer.kept.find((k) => k.version === proof.version);
  if (!kept) throw new Refusal('version_not_kept', `the tape keeps no version ${proof.version}`);
  if (kept.root !== proof.root) {
    throw new Refusal(
      'root_mismatch',
      `version ${proof.version}'s root on chain is ${kept.root}, the proof's ${proof.root} was never published`,
    );
  }

  // 2. The manifest path, from the root to the entry; a site path's `_redirects` rule.
  const nodes = proof.nodes.map(base64Decode);
  const byCommitment = await indexNodes(nodes, sha256);
  const rootBytes = byCommitment.get(proof.root);
  if (!rootBytes) throw new Refusal('node_mismatch', `no node of the proof hashes to the root`);
  const root = decodeRoot(rootBytes);
  const has = (name: string): boolean =>
    leafFor(root.names, new TextEncoder().encode(name), byCommitment).entries.some(
      (e) => e.name === name,
    );
  if (target.kind === 'site') {
    const decided = checkSiteRules(target, root.rules, has);
    const head = {
      ok: true as const,
      file,
      tape: proof.tape,
      version: proof.version,
      root: proof.root,
      slot: input.rpc.context.slot,
      checkedBytes: 0,
    };
    if (decided?.kind === 'redirect') {
      const redirect = { status: decided.status, location: decided.location };
      checkRedirectAnswer(input, proof, redirect, selector);
      return { ...head, redirect };
    }
    if (decided?.kind === 'page') {
      if (input.status !== undefined && input.status !== decided.status)
        throw new Refusal(
          'header_mismatch',
          `status ${input.status}, the rule's ${decided.status}`,
        );
      const version = input.headers?.['x-tape-version'];
      if (version !== undefined && version !== String(proof.version))
        throw new Refusal(
          'header_mismatch',
          `X-Tape-Version ${version}, the proof's ${proof.version}`,
        );
      return { ...head, builtInPage: decided.status };
    }
  }
  if (
    !proof.entry ||
    !proof.content ||
    (target.kind === 'site' && ('location' in target || 'page' in target))
  )
    throw new Refusal('malformed_proof', `not a ${PROOF_FORMAT} proof: entry`);
  const key =
    target.kind === 'site' ? new TextEncoder().encode(target.name) : unhex(target.commitment);
  const leaf = leafFor(target.kind === 'site' ? root.names : root.commits, key, byCommitment);
  const found = leaf.entries.find((e) =>
    target.kind === 'site' ? e.name === target.name : e.commitment === target.commitment,
  );
  if (!found) throw new Refusal('entry_not_found', `version ${proof.version} has no such entry`);
  if (!sameEntry(found, proof.entry))
    throw new Refusal('entry_mismatch', 'the proof states another entry than its nodes hold');

  // 3. The content proof, against the entry's commitment.
  const entry = found;
  const content = await checkedContent(entry, proof.content, sha256);

  // 4. The answer: headers and bytes.
  if (input.status !== undefined && target.kind === 'site' && input.status !== target.status)
    throw new Refusal('header_mismatch', `status ${input.status}, the proof says ${target.status}`);
  checkHeaders(input.headers, proof, entry, selector);
  let checkedBytes = 0;
  if (input.body !== undefined) {
    await checkBody(input.body, entry, content, sha256);
    await checkDigest(input.headers, input.body, sha256);
    checkedBytes = input.body.length;
  }
  return {
    ok: true,
    file,
    tape: proof.tape,
    version: proof.version,
    root: proof.root,
    slot: input.rpc.context.slot,
    entry,
    checkedBytes,
  };
}

function selectorText(selector: ProofSelector | undefined): string {
  if (selector === undefined) return 'the current version';
  return selector.kind === 'pinned' ? `@${selector.version}` : `@${selector.name}`;
}

/**
 * The site's routing of the path, rules first (docs/verify.md, "Site rules"): which `_redirects`
 * rule decides the path (the first whose pattern matches, unless a file at the path shadows a
 * rule without `!`) must be the proof's `rule`; a file answer must then be the rule's target
 * file (or the 404 page when the target is absent), a plain answer one the path names.
 * Returns the redirect a redirect target proves.
 */
function checkSiteRules(
  target: SiteProofTarget,
  rules: RedirectRule[],
  has: (name: string) => boolean,
):
  { kind: 'redirect'; status: number; location: string } | { kind: 'page'; status: number } | null {
  const names = namesForPath(target.path);
  if (!names) throw new Refusal('name_not_for_path', `${target.path} is not a site path`);
  const match = firstRedirectRule(rules, names.requestPath);
  // A file the path names itself (or its directory's index) shadows a rule without `!`.
  const shadowed = (): boolean =>
    [...names.exact, ...names.directoryIndex].some((n) => !isGatewayName(n) && has(n));
  const applies = match !== null && (match.rule.force || !shadowed());
  if (!('location' in target) && !('page' in target) && target.rule === undefined) {
    if (applies) {
      throw new Refusal(
        'rule_mismatch',
        `_redirects rule ${match.index + 1} (${match.rule.from} ${match.rule.to} ${match.rule.status}) answers ${target.path}, the proof says no rule does`,
      );
    }
    if (match !== null && !(target.status === 200 && names.exact.includes(target.name))) {
      throw new Refusal(
        'rule_mismatch',
        `${target.path} is answered by _redirects rule ${match.index + 1} unless a file shadows it; ${target.name} does not`,
      );
    }
    checkNameForPath(target);
    return null;
  }
  if (match === null || match.index !== target.rule) {
    throw new Refusal(
      'rule_mismatch',
      match === null
        ? `no _redirects rule matches ${target.path}`
        : `_redirects rule ${match.index + 1} matches ${target.path} first, not rule ${(target.rule ?? 0) + 1}`,
    );
  }
  if (!applies)
    throw new Refusal(
      'rule_shadowed',
      `a file at ${target.path} shadows _redirects rule ${match.index + 1}`,
    );
  const rule = match.rule;
  if ('location' in target) {
    if (target.status !== rule.status || target.location !== match.target) {
      throw new Refusal(
        'rule_mismatch',
        `_redirects rule ${match.index + 1} answers ${rule.status} to ${match.target}, the proof says ${target.status} to ${target.location}`,
      );
    }
    return { kind: 'redirect', status: rule.status, location: match.target };
  }
  if (rule.status !== 200 && rule.status !== 404 && rule.status !== 410 && rule.status !== 451)
    throw new Refusal('rule_mismatch', `_redirects rule ${match.index + 1} is a redirect`);
  const wanted = nameOfTarget(match.target);
  if ('page' in target) {
    // No file answers: the rule's file is absent, and for a 200/404 rule the 404 page too.
    const absent = wanted === null || !has(wanted);
    const ok =
      absent &&
      (rule.status === 410 || rule.status === 451
        ? target.status === rule.status
        : target.status === 404 && !has('404.html'));
    if (!ok) {
      throw new Refusal(
        'rule_mismatch',
        `_redirects rule ${match.index + 1} answers ${target.path} with a file, not a built-in ${target.status} page`,
      );
    }
    return { kind: 'page', status: target.status };
  }
  if (wanted !== null && target.name === wanted && target.status === rule.status) return null;
  // The rule's file is absent: a 200 or 404 rule answers with the site's 404 page.
  const fallback =
    (rule.status === 200 || rule.status === 404) &&
    target.name === '404.html' &&
    target.status === 404 &&
    (wanted === null || !has(wanted));
  if (!fallback) {
    throw new Refusal(
      'rule_mismatch',
      `_redirects rule ${match.index + 1} answers ${target.path} with ${wanted ?? 'no file'} (status ${rule.status}), the proof says ${target.name} (status ${target.status})`,
    );
  }
  return null;
}

/** The file a rule's target path names (`/a/` -> `a/index.html`), null for a gateway file. */
function nameOfTarget(to: string): string | null {
  const names = namesForPath(to.split(/[?#]/)[0]);
  if (!names) return null;
  const name = names.exact[0];
  return isGatewayName(name) ? null : name;
}

/** `_site.json`, `_redirects`, `_headers`: read by the gateway, never served. */
function isGatewayName(name: string): boolean {
  return name === '_site.json' || name === '_redirects' || name === '_headers';
}

/**
 * A redirect's answer: its status and `Location` (the rule's target under the site's mount:
 * nothing on a hostname, `/site/{tape}` or `/site/{tape}@<selector>` on the path route; the
 * request's query added when the target has none). Its body is the gateway's own note.
 */
function checkRedirectAnswer(
  input: VerifyInput,
  proof: TapeProof,
  redirect: { status: number; location: string },
  selector: ProofSelector | undefined,
): void {
  if (input.status !== undefined && input.status !== redirect.status)
    throw new Refusal('header_mismatch', `status ${input.status}, the rule's ${redirect.status}`);
  const headers = input.headers;
  if (!headers) return;
  const version = headers['x-tape-version'];
  if (version !== undefined && version !== String(proof.version))
    throw new Refusal('header_mismatch', `X-Tape-Version ${version}, the proof's ${proof.version}`);
  const location = headers['location'];
  if (location === undefined) {
    if (input.status !== undefined)
      throw new Refusal('header_mismatch', 'a redirect without Location');
    return;
  }
  const mounts = ['', `/site/${proof.tape}`];
  if (selector !== undefined) mounts.push(`/site/${proof.tape}${selectorText(selector)}`);
  const ok = mounts.some((mount) => {
    const want = mount + redirect.location;
    if (location === want) return true;
    return !redirect.location.includes('?') && location.startsWith(`${want}?`);
  });
  if (!ok) {
    throw new Refusal(
      'header_mismatch',
      `Location ${location}, the rule's ${redirect.location} (under the site's mount)`,
    );
  }
}

function checkNameForPath(target: { path: string; name: string; status: number }): void {
  const names = namesForPath(target.path);
  if (!names) throw new Refusal('name_not_for_path', `${target.path} is not a site path`);
  const ok =
    target.status === 404
      ? target.name === '404.html'
      : target.status === 200 &&
        (names.exact.includes(target.name) || names.fallback200.includes(target.name));
  if (!ok) {
    throw new Refusal(
      'name_not_for_path',
      `${target.name} (status ${target.status}) is not what ${target.path} names`,
    );
  }
}

type CheckedContent =
  { chunkHashes: Uint8Array } | { segments: { size: number; commitment: string }[] };

async function checkedContent(
  entry: ProofEntry,
  content: NonNullable<TapeProof['content']>,
  sha256: Sha256,
): Promise<CheckedContent> {
  if (entry.location.kind === 'stream') {
    if (!('manifest' in content))
      throw new Refusal('content_proof_mismatch', 'a streamed file needs its segment manifest');
    const bytes = base64Decode(content.manifest);
    const { commitment } = await trackCommitment(bytes, sha256);
    if (hex(commitment) !== entry.commitment || bytes.length !== entry.location.manifestBytes)
      throw new Refusal('content_proof_mismatch', 'the segment manifest is not the entry’s');
    const manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as {
      size: number;
      segments: { size: number; commitment: string }[];
    };
    const sum = manifest.segments.reduce((s, seg) => s + seg.size, 0);
    if (manifest.size !== entry.size || sum !== entry.size)
      throw new Refusal('content_proof_mismatch', 'the segment manifest’s size is not the entry’s');
    return { segments: manifest.segments };
  }
  if (!('chunkHashes' in content))
    throw new Refusal('content_proof_mismatch', 'a file needs its chunk-hash list');
  const list = base64Decode(content.chunkHashes);
  if (
    list.length !== Math.ceil(entry.size / CHUNK_BYTES) * 32 ||
    hex(await commitmentOfList(entry.size, list, sha256)) !== entry.commitment
  )
    throw new Refusal('content_proof_mismatch', 'the chunk-hash list is not the entry’s');
  return { chunkHashes: list };
}

async function checkBody(
  body: Uint8Array,
  entry: ProofEntry,
  content: CheckedContent,
  sha256: Sha256,
): Promise<void> {
  if (body.length !== entry.size) {
    const at = Math.min(body.length, entry.size);
    throw new Refusal('size_mismatch', `${body.length} bytes served, the entry has ${entry.size}`, [
      at,
      Math.max(body.length, entry.size) - 1,
    ]);
  }
  if ('chunkHashes' in content) {
    for (let i = 0; i * CHUNK_BYTES < body.length; i++) {
      const start = i * CHUNK_BYTES;
      const end = Math.min(body.length, start + CHUNK_BYTES);
      const got = await sha256(body.subarray(start, end));
      if (!equalBytes(got, content.chunkHashes.subarray(i * 32, i * 32 + 32))) {
        throw new Refusal('content_mismatch', `chunk ${i} does not match its hash`, [
          start,
          end - 1,
        ]);
      }
    }
    return;
  }
  let start = 0;
  for (let i = 0; i < content.segments.length; i++) {
    const seg = content.segments[i];
    const bytes = body.subarray(start, start + seg.size);
    if (hex((await trackCommitment(bytes, sha256)).commitment) !== seg.commitment) {
      throw new Refusal('content_mismatch', `segment ${i} does not match its commitment`, [
        start,
        start + seg.size - 1,
      ]);
    }
    start += seg.size;
  }
}

/** Headers the gateway states about the answer must agree with the proof (when present). */
function checkHeaders(
  headers: VerifyInput['headers'],
  proof: TapeProof,
  entry: ProofEntry,
  selector: ProofSelector | undefined,
): void {
  if (!headers) return;
  const version = headers['x-tape-version'];
  if (version !== undefined && version !== String(proof.version))
    throw new Refusal('header_mismatch', `X-Tape-Version ${version}, the proof's ${proof.version}`);
  // A preview must not be indexed: an alias answer that names its version says `noindex`.
  if (
    selector?.kind === 'alias' &&
    version !== undefined &&
    !/(^|[\s,])noindex($|[\s,])/i.test(headers['x-robots-tag'] ?? '')
  )
    throw new Refusal('header_mismatch', 'an alias answer without X-Robots-Tag: noindex');
  const commitment = headers['x-tape-commitment'];
  if (commitment !== undefined && commitment !== entry.commitment)
    throw new Refusal('header_mismatch', `X-Tape-Commitment ${commitment} is not the entry's`);
}

async function checkDigest(
  headers: VerifyInput['headers'],
  body: Uint8Array,
  sha256: Sha256,
): Promise<void> {
  const digest = headers?.['content-digest'];
  if (digest === undefined) return;
  const match = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/=]+):/.exec(digest);
  if (!match) return;
  if (!equalBytes(base64Decode(match[1]), await sha256(body)))
    throw new Refusal('header_mismatch', 'Content-Digest is not the SHA-256 of the body');
}

function sameEntry(a: ProofEntry, b: ProofEntry): boolean {
  return (
    (b.name === undefined || a.name === b.name) &&
    a.commitment === b.commitment &&
    a.size === b.size &&
    a.contentType === b.contentType &&
    JSON.stringify(a.location) === JSON.stringify(b.location)
  );
}

function checkShape(value: unknown): TapeProof {
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

// --- version nodes (docs/versions.md, "Encoding") ---------------------------------------------

interface Branch {
  key: Uint8Array;
  child: string;
  childBytes: number;
  count: number;
}

interface Node {
  tree: 1 | 2;
  level: number;
  branches: Branch[];
  entries: ProofEntry[];
}

async function indexNodes(nodes: Uint8Array[], sha256: Sha256): Promise<Map<string, Uint8Array>> {
  const map = new Map<string, Uint8Array>();
  for (const node of nodes) map.set(hex((await trackCommitment(node, sha256)).commitment), node);
  return map;
}

function leafFor(top: Node, key: Uint8Array, nodes: Map<string, Uint8Array>): Node {
  let node = top;
  while (node.level > 0) {
    let index = -1;
    for (let i = 0; i < node.branches.length; i++)
      if (compareBytes(node.branches[i].key, key) <= 0) index = i;
    if (index < 0) return { ...node, level: 0, branches: [], entries: [] };
    node = childOf(node, index, nodes);
  }
  return node;
}

/** The i-th child of a branch, checked against what the branch says of it. */
function childOf(parent: Node, i: number, nodes: Map<string, Uint8Array>): Node {
  const b = parent.branches[i];
  const bytes = nodes.get(b.child);
  if (!bytes) throw new Refusal('node_mismatch', `the proof lacks node ${b.child}`);
  if (bytes.length !== b.childBytes)
    throw new Refusal('node_mismatch', `node ${b.child} is not of the length its branch states`);
  const r = new Reader(bytes);
  const node = readNode(r);
  r.end();
  const last = node.level === 0 ? node.entries.length : node.branches.length;
  const next = parent.branches[i + 1]?.key;
  if (last === 0) throw new Refusal('node_mismatch', `node ${b.child} is empty`);
  if (
    node.tree !== parent.tree ||
    node.level !== parent.level - 1 ||
    !equalBytes(nodeKey(node, 0), b.key) ||
    countOf(node) !== b.count ||
    (next !== undefined && compareBytes(nodeKey(node, last - 1), next) >= 0)
  )
    throw new Refusal('node_mismatch', `node ${b.child} does not match the branch that names it`);
  return node;
}

function decodeRoot(bytes: Uint8Array): { names: Node; commits: Node; rules: RedirectRule[] } {
  const r = new Reader(bytes);
  const magic = new TextDecoder().decode(r.bytes(ROOT_MAGIC.length));
  if (magic !== ROOT_MAGIC && magic !== ROOT_MAGIC_RULES)
    throw new Refusal('node_mismatch', 'not a version root');
  const entryCount = r.u64();
  r.u64();
  r.bytes(r.u32());
  const rules = magic === ROOT_MAGIC_RULES ? r.bytes(r.u32()) : new Uint8Array(0);
  if (magic === ROOT_MAGIC_RULES && rules.length === 0)
    throw new Refusal('node_mismatch', 'a v2 root without rules');
  const names = readNode(r);
  const commits = readNode(r);
  r.end();
  if (names.tree !== 1 || commits.tree !== 2 || countOf(names) !== entryCount)
    throw new Refusal('node_mismatch', 'malformed version root');
  return { names, commits, rules: redirectsOfRules(rules) };
}

function readNode(r: Reader): Node {
  if (r.u8() !== 1) throw new Refusal('node_mismatch', 'unknown node format');
  const tree = r.u8();
  if (tree !== 1 && tree !== 2) throw new Refusal('node_mismatch', 'unknown tree');
  const level = r.u8();
  if (level > MAX_LEVEL) throw new Refusal('node_mismatch', 'level too high');
  const count = r.u32();
  const node: Node = { tree, level, branches: [], entries: [] };
  for (let i = 0; i < count; i++) {
    if (level > 0) {
      const key = tree === 1 ? r.bytes(r.u16()) : r.bytes(32);
      node.branches.push({ key, child: hex(r.bytes(32)), childBytes: r.u64(), count: r.u64() });
    } else if (tree === 1) {
      const name = r.str(r.u16());
      const commitment = hex(r.bytes(32));
      const size = r.u64();
      const contentType = r.str(r.u8());
      r.bytes(r.u16());
      node.entries.push({ name, commitment, size, contentType, location: readLocation(r) });
    } else {
      const commitment = hex(r.bytes(32));
      const size = r.u64();
      const contentType = r.str(r.u8());
      node.entries.push({ commitment, size, contentType, location: readLocation(r) });
    }
  }
  if (level > 0 && count === 0) throw new Refusal('node_mismatch', 'empty branch');
  for (let i = 1; i < count; i++)
    if (compareBytes(nodeKey(node, i - 1), nodeKey(node, i)) >= 0)
      throw new Refusal('node_mismatch', 'node keys not strictly ascending');
  return node;
}

function readLocation(r: Reader): EntryLocation {
  const kind = r.u8();
  if (kind === 0) return { kind: 'blob' };
  if (kind === 1) return { kind: 'stream', manifestBytes: r.u64() };
  if (kind === 2)
    return { kind: 'packed', pack: hex(r.bytes(32)), packSize: r.u64(), offset: r.u64() };
  throw new Refusal('node_mismatch', `unknown location kind ${kind}`);
}

function nodeKey(node: Node, i: number): Uint8Array {
  if (node.level > 0) return node.branches[i].key;
  const e = node.entries[i];
  return node.tree === 1 ? new TextEncoder().encode(e.name) : unhex(e.commitment);
}

function countOf(node: Node): number {
  if (node.level === 0) return node.entries.length;
  return node.branches.reduce((sum, b) => sum + b.count, 0);
}

class Reader {
  private at = 0;
  constructor(private readonly buf: Uint8Array) {}
  private need(n: number): number {
    if (this.at + n > this.buf.length) throw new Refusal('node_mismatch', 'truncated node');
    const start = this.at;
    this.at += n;
    return start;
  }
  u8(): number {
    return this.buf[this.need(1)];
  }
  u16(): number {
    const s = this.need(2);
    return this.buf[s] | (this.buf[s + 1] << 8);
  }
  u32(): number {
    const s = this.need(4);
    return (
      (this.buf[s] | (this.buf[s + 1] << 8) | (this.buf[s + 2] << 16)) + this.buf[s + 3] * 0x1000000
    );
  }
  u64(): number {
    return u64(this.buf, this.need(8));
  }
  bytes(n: number): Uint8Array {
    const s = this.need(n);
    return this.buf.subarray(s, s + n);
  }
  str(n: number): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes(n));
  }
  end(): void {
    if (this.at !== this.buf.length) throw new Refusal('node_mismatch', 'trailing bytes');
  }
}

// --- bytes -------------------------------------------------------------------------------------

async function commitmentOfList(
  size: number,
  chunkHashes: Uint8Array,
  sha256: Sha256,
): Promise<Uint8Array> {
  const domain = new TextEncoder().encode(TRACK_DOMAIN);
  const input = new Uint8Array(domain.length + 8 + chunkHashes.length);
  input.set(domain, 0);
  let rest = size;
  for (let i = 0; i < 8; i++) {
    input[domain.length + i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  input.set(chunkHashes, domain.length + 8);
  return sha256(input);
}

function u64(buf: Uint8Array, at: number): number {
  let value = 0;
  for (let i = 7; i >= 0; i--) value = value * 256 + buf[at + i];
  if (!Number.isSafeInteger(value)) throw new Refusal('node_mismatch', 'integer over 2^53');
  return value;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function unhex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function isHex64(text: unknown): boolean {
  return typeof text === 'string' && /^[0-9a-f]{64}$/.test(text);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && compareBytes(a, b) === 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function base64Decode(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(clean) || clean.length % 4 === 1)
    throw new Refusal('malformed_proof', 'bad base64');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (const ch of clean) {
    value = (value << 6) | B64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 100) return null;
  const bytes: number[] = [];
  for (const ch of text) {
    let carry = B58.indexOf(ch);
    if (carry < 0) return null;
    for (let i = 0; i < bytes.length; i++) {
      carry += bytes[i] * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (const ch of text) {
    if (ch !== '1') break;
    bytes.push(0);
  }
  return new Uint8Array(bytes.reverse());
}

function base58Encode(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i] << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = '';
  for (const byte of bytes) {
    if (byte !== 0) break;
    out += '1';
  }
  for (let i = digits.length - 1; i >= 0; i--) out += B58[digits[i]];
  return out;
}
