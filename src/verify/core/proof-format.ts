/**
 * The `tape-proof-v1` document a gateway hands out, the RPC answer a client reads, and the
 * verdicts (docs/verify.md, "The proof"): the types every part of the verifier core speaks.
 */

/** SHA-256 of some bytes: `webCryptoSha256` in a browser, node:crypto in the CLI. */
export type Sha256 = (data: Uint8Array) => Promise<Uint8Array> | Uint8Array;

export const PROOF_FORMAT = 'tape-proof-v1';
export const CHUNK_BYTES = 65536;

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
