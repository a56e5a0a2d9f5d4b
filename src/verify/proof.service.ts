import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { ChainError } from '../chain/chain-error';
import { ChainRpc } from '../chain/chain-rpc';
import { SiteConfig } from '../config/site.config';
import { ApiError } from '../http/api-error';
import { parseSiteSettings } from '../site/site-settings';
import { parseSitePath } from '../site/site-path';
import { isGatewayFile, namesOfPath, routeSitePath } from '../site/site-routing';
import { NOT_FOUND_FILE } from '../site/site-path';
import { requestPathOf } from '../site/site-directory';
import { VersionSelector } from '../domains/version-selector';
import { decodeSiteRules, NO_RULES } from '../versions/rules/site-rules';
import { IntegrityError, TrackStoreError } from '../tracks/track-errors';
import { VersionFormatError } from '../versions/version-entry';
import { VersionEntry } from '../versions/version-entry';
import {
  firstRedirectRule,
  objectAddress,
  objectAddressParts,
  PROOF_FORMAT,
  readTapePointer,
  TapeProof,
  TapePointer,
} from './core/tape-verifier';
import { VersionProofs } from './version-proofs';

/** The tape account as read for a proof: the slot of the read and the account's data. */
interface PointerRead {
  slot: number;
  data: Buffer;
  pointer: TapePointer;
}

export const proofErrors = {
  badTape: () => new ApiError(400, 'bad_request', 'the tape address is not a base58 public key'),
  badPath: (reason: string) => new ApiError(400, 'bad_path', `the site path is refused: ${reason}`),
  noTape: () => new ApiError(404, 'not_found', 'no such tape'),
  noVersion: () => new ApiError(404, 'not_found', 'the tape has no version published'),
  noSelected: (what: string) => new ApiError(404, 'not_found', `the tape keeps no ${what}`),
  notServed: (what: string) =>
    new ApiError(404, 'not_found', `${what}: no file of the version answers it`),
  notCertified: () =>
    new ApiError(400, 'track_not_certified', 'no version the tape keeps holds the commitment'),
  invalidAddress: () =>
    new ApiError(
      400,
      'invalid_track_address',
      'the track address is not base58(tape || commitment)',
    ),
  integrity: () =>
    new ApiError(502, 'integrity_failure', 'the stored version fails its commitment'),
  missing: () => new ApiError(502, 'content_unavailable', 'the version is missing from storage'),
  chain: () => new ApiError(503, 'chain_unavailable', 'the chain RPC cannot be reached; try again'),
};

/**
 * Proofs of site and object answers (docs/verify.md): the tape account is read once (with the
 * slot of the read), the answer is resolved in the version it names exactly as the site and
 * object routes resolve it, and the path from the root to the entry is recorded.
 */
@Injectable()
export class ProofService {
  constructor(
    private readonly rpc: ChainRpc,
    private readonly proofs: VersionProofs,
    private readonly site: SiteConfig,
  ) {}

  /**
   * The proof of a site answer: of the current version, or (`selector`) of a pinned version or
   * an alias's version. The path is routed as the site routes route it (SiteDirectory.route):
   * the version's `_redirects` rules first (a file at the path shadows a rule without `!`),
   * then the file rules; every name a verifier needs to see present or absent is looked up, so
   * its nodes are in the proof.
   */
  async siteProof(tape: string, rawPath: string, selector?: VersionSelector): Promise<TapeProof> {
    const read = await this.readPointer(parseTape(tape));
    const version = chosenVersion(read.pointer, selector);
    const path = parseSitePath(rawPath);
    if (!path.ok)
      throw path.hidden ? proofErrors.notServed(rawPath) : proofErrors.badPath(path.reason);
    return this.guard(async () => {
      const lookup = await this.proofs.open(Buffer.from(version.root, 'hex'));
      const spa = this.spaFallback(lookup.root.settings);
      const found = new Map<string, VersionEntry>();
      const look = async (name: string) => {
        if (found.has(name)) return found.get(name);
        const entry = await lookup.byName(name);
        if (entry) found.set(name, entry);
        return entry;
      };
      for (const name of namesOfPath(path, spa)) await look(name);
      const files = routeSitePath((name) => siteObjectStub(found.get(name)), spa, path);
      const head = {
        ...this.head(tape, read, version.version, version.root),
        ...(selector && { selector }),
      };
      const rules = lookup.root.rules.length > 0 ? decodeSiteRules(lookup.root.rules) : NO_RULES;
      const match = firstRedirectRule(rules.redirects, requestPathOf(path));
      const shadowed = (files.kind === 'object' && files.named) || files.kind === 'add-slash';
      if (match !== null && (match.rule.force || !shadowed)) {
        const status = match.rule.status;
        if (status !== 200 && status !== 404 && status !== 410 && status !== 451) {
          return {
            ...head,
            target: {
              kind: 'site',
              path: rawPath,
              status,
              location: match.target,
              rule: match.index,
            },
            nodes: lookup.nodes.map((n) => n.toString('base64')),
          };
        }
        const to = parseSitePath(match.target.split(/[?#]/)[0]);
        const wanted = to.ok && !isGatewayFile(to.name) ? await look(to.name) : undefined;
        const page = wanted
          ? { entry: wanted, status }
          : status === 200 || status === 404
            ? { entry: await look(NOT_FOUND_FILE), status: 404 as const }
            : undefined;
        // A 410/451 rule without its page, or no 404 page: the gateway's built-in page.
        if (!page?.entry) {
          return {
            ...head,
            target: {
              kind: 'site',
              path: rawPath,
              status: status === 410 || status === 451 ? status : 404,
              page: 'built-in',
              rule: match.index,
            },
            nodes: lookup.nodes.map((n) => n.toString('base64')),
          };
        }
        return {
          ...head,
          target: {
            kind: 'site',
            path: rawPath,
            name: page.entry.name,
            status: page.status,
            rule: match.index,
          },
          ...(await lookup.part(page.entry, true)),
        };
      }
      if (files.kind !== 'object' || (files.status !== 200 && files.status !== 404))
        throw proofErrors.notServed(rawPath);
      const entry = found.get(files.object.name)!;
      return {
        ...head,
        target: { kind: 'site', path: rawPath, name: entry.name, status: files.status },
        ...(await lookup.part(entry, true)),
      };
    });
  }

  async objectProof(address: string): Promise<TapeProof> {
    const parts = /^[1-9A-HJ-NP-Za-km-z]{80,90}$/.test(address)
      ? objectAddressParts(address)
      : null;
    if (!parts || objectAddress(parts.tape, parts.commitment) !== address)
      throw proofErrors.invalidAddress();
    const tape = parts.tape;
    const read = await this.readPointer(new PublicKey(tape));
    return this.guard(async () => {
      // Newest kept version first, as the object route looks.
      const kept = [...read.pointer.kept].sort((a, b) => b.version - a.version);
      for (const k of kept) {
        const lookup = await this.proofs.open(Buffer.from(k.root, 'hex'));
        const entry = await lookup.byCommitment(Buffer.from(parts.commitment, 'hex'));
        if (!entry) continue;
        return {
          ...this.head(tape, read, k.version, k.root),
          target: { kind: 'object', commitment: parts.commitment },
          ...(await lookup.part(entry, false)),
        };
      }
      throw proofErrors.notCertified();
    });
  }

  private head(tape: string, read: PointerRead, version: number, root: string) {
    return {
      format: PROOF_FORMAT,
      tape,
      pointer: { slot: read.slot, data: read.data.toString('base64') },
      version,
      root,
    } as const;
  }

  /** The one read of the tape account a proof rests on (`getAccountInfo` with its context). */
  private async readPointer(tape: PublicKey): Promise<PointerRead> {
    let answer;
    try {
      answer = await this.rpc.call((c) => c.getAccountInfoAndContext(tape));
    } catch (err) {
      if (err instanceof ChainError) throw proofErrors.chain();
      throw err;
    }
    if (!answer.value) throw proofErrors.noTape();
    const data = answer.value.data;
    const pointer = readTapePointer(data);
    if (!pointer) throw proofErrors.noTape();
    return { slot: answer.context.slot, data, pointer };
  }

  private spaFallback(settings: Buffer): boolean {
    if (!this.site.tenant_overrides || settings.length === 0) return this.site.spa_fallback;
    const parsed = parseSiteSettings(settings, this.site.tenant_wildcard_origins);
    return parsed.overrides.spaFallback ?? this.site.spa_fallback;
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof VersionFormatError || err instanceof IntegrityError)
        throw proofErrors.integrity();
      if (err instanceof TrackStoreError) throw proofErrors.missing();
      throw err;
    }
  }
}

/** The kept version a site proof is of: the current one, a pinned number or an alias's. */
function chosenVersion(
  pointer: TapePointer,
  selector: VersionSelector | undefined,
): TapePointer['kept'][number] {
  const number =
    selector === undefined
      ? pointer.current
      : selector.kind === 'pinned'
        ? selector.version
        : pointer.aliases.find((a) => a.name === selector.name)?.version;
  const kept = pointer.kept.find((k) => k.version === number);
  if (kept && number !== 0) return kept;
  if (selector === undefined) throw proofErrors.noVersion();
  throw proofErrors.noSelected(
    selector.kind === 'pinned' ? `version ${selector.version}` : `alias ${selector.name}`,
  );
}

function parseTape(tape: string): PublicKey {
  try {
    if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(tape)) throw new Error('not base58');
    return new PublicKey(tape);
  } catch {
    throw proofErrors.badTape();
  }
}

/** Routing needs only a file's name: the rules look names up, never their contents. */
function siteObjectStub(entry: VersionEntry | undefined) {
  if (!entry) return undefined;
  return {
    name: entry.name,
    kind: 'blob' as const,
    commitment: entry.commitment,
    commitmentHex: '',
    size: entry.size,
    contentType: entry.contentType,
  };
}
