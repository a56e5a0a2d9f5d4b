import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { readFile } from 'node:fs/promises';
import { labelFromAddress } from '../../chain/tape-label';
import { commitmentOfBuffer, commitmentToHex } from '../../tracks/commitment';
import { VersionEntry } from '../../versions/version-entry';
import { ChangedFile } from '../../versions/version-planner';
import { CliError } from '../cli-error';
import { formatBytes } from '../output/units';
import { expiryWarning } from '../output/expiry-notice';
import { Printer } from '../output/printer';
import { CliChain } from '../session/cli-chain';
import { CliGateway } from '../session/cli-gateway';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { InterruptNotice } from '../session/interrupt-notice';
import { ChangePublisher } from '../versions/change-publisher';
import { VersionPublisher } from '../versions/version-publisher';
import { assertCanPay, assertTapeActive, assertVersionCapacity } from './deploy-preflight';
import { DeployProgress, PlainProgress, TerminalProgress } from './deploy-progress';
import { HashedFile, hashSiteFiles } from './site-hasher';
import { checkSiteRules } from './site-rules-check';
import { scanSite } from './site-scanner';
import { HashCache, userCacheDir } from './hash-cache';
import { readCurrentVersion } from '../versions/current-version';
import { publishedFiles } from './well-known-files';

/**
 * What Ctrl-C during a deploy means: nothing names the new version until its Publish, so the
 * live site is the one before the deploy, whole; what was uploaded stays staged, so running
 * the deploy again resumes.
 */
const INTERRUPTED =
  'interrupted: the site is unchanged (its current version stays live); run tape deploy again to resume';

export interface DeployOptions {
  prune: boolean;
  /** Uploads in flight at once, at most. */
  concurrency: number;
  /** The longest one upload request waits on a busy gateway, in all (`--max-wait`). */
  maxWaitMs: number;
  /** Asked before a version without some of the current names is sent (`--prune`); throws to stop. */
  confirmRemoval?: (names: string[], tape: string) => Promise<void>;
  /** Publish under this alias (a preview): the live version stays. */
  alias?: string;
}

export interface DeployResult {
  tape: string;
  label: string;
  url: string;
  /** `<scheme>://<label>.<domain>/`, or null when none is known (site-url.ts). */
  hostUrl: string | null;
  /** `<gateway>/site/<tape>/`. */
  pathUrl: string;
  files: number;
  /** Files whose name is new or whose bytes changed in the published version. */
  uploaded: number;
  unchanged: number;
  /** Bytes sent: only the tracks the gateway lacked. */
  bytesUploaded: number;
  /** Names of the previous version the new one no longer has (`--prune`). */
  pruned: number;
  /** The tape's version after the deploy, and whether this deploy published it. */
  version: number;
  root: string;
  published: boolean;
  signature?: string;
  /** Bytes the new version added to the tape, as the gateway certified them. */
  addedBytes: number;
  /** With `--alias`: the alias (the URLs above are then the alias's). */
  alias?: string;
}

/**
 * `tape deploy`: scan, hash, check what can be checked before anything is sent (tape active,
 * signer allowed, capacity, funds), then publish the directory as one version of the tape's
 * site (docs/versions.md): planned on the current version, only the bytes the gateway lacks
 * uploaded, one Publish with compare-and-swap, planned again when another publisher won.
 */
@Injectable()
export class SiteDeployer {
  constructor(
    private readonly printer: Printer,
    private readonly target: CliTarget,
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
    private readonly gateways: CliGateway,
    private readonly interrupt: InterruptNotice,
  ) {}

  /** Publishes the site at `indexPath`; Ctrl-C meanwhile says the live site is unchanged. */
  deploy(indexPath: string, options: DeployOptions): Promise<DeployResult> {
    return this.interrupt.during(INTERRUPTED, () => this.publish(indexPath, options));
  }

  private async publish(indexPath: string, options: DeployOptions): Promise<DeployResult> {
    const terminal = this.printer.terminal();
    const progress: DeployProgress = terminal
      ? new TerminalProgress(terminal)
      : new PlainProgress((line) => this.printer.note(line));

    // Everything that waits on the network starts at once and runs while the files are hashed.
    const scanning = quiet(scanSite(indexPath));
    const loading = quiet(this.chain.loadTape());
    const site = await scanning;
    // `_redirects`/`_headers` refused: stop before anything is sent; then what the policy blocks.
    for (const warning of await checkSiteRules(site.files)) this.printer.note(warning);
    const tape = await loading;
    const chain = this.chain.services;
    const { reader } = chain;
    const payer = this.signers.wallet();
    const gateway = this.gateways.client();
    try {
      const checks = quiet(reader.clock());
      const configuring = quiet(gateway.uploadConfig());
      const firstBase = quiet(readCurrentVersion(reader, gateway, tape.address, tape.record));
      const firstBalance = quiet(reader.getBalances(payer.publicKey));
      const { config: clock, now: nowUnix, currentEpoch } = await checks;
      assertTapeActive(tape.record, currentEpoch, { address: tape.address, clock, nowUnix });
      const warning = expiryWarning(tape.address, tape.record, clock, nowUnix);
      if (warning) this.printer.note(warning);
      const signer = this.signers.tapeSigner(tape);
      const config = await configuring;
      const files = publishedFiles(site, config.wellKnownAllow);
      const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
      const cache = await HashCache.open(userCacheDir(), site.root, config.segmentBytes);
      const hashed = await hashSiteFiles(files, config.segmentBytes, { cache });
      const saving = cache.save();
      progress.step(
        `hashed ${files.length} ${files.length === 1 ? 'file' : 'files'} (${formatBytes(totalBytes)})` +
          (site.hidden.length > 0 ? `, skipped ${site.hidden.length} hidden` : ''),
      );
      const byName = new Map(hashed.map((f) => [f.name, f]));
      const pathOf = (file: ChangedFile) => byName.get(file.name)!.path;
      const publisher = new VersionPublisher(gateway, chain.rpc, chain.ix, {
        concurrency: options.concurrency,
        segmentBytes: config.segmentBytes,
        storageAuthority: storageAuthorityOf(config.storageAuthority, gateway.baseUrl),
        maxWaitMs: options.maxWaitMs,
        onUploads: (tracks, bytes) => progress.startUploads(tracks, bytes),
        onUploaded: (track) => {
          progress.bytesSent(track.size);
          progress.trackUploaded(track.label);
        },
        onWait: (status, ms) => progress.waiting(status, ms),
      });
      const changes = new ChangePublisher(chain, gateway, publisher);
      const storageAuthority = storageAuthorityOf(config.storageAuthority, gateway.baseUrl);
      const confirmed = new Set<string>();
      const outcome = await this.chain.guarded(
        changes.publish({
          tape: tape.address,
          tapeSigner: signer,
          wallet: payer,
          change: () => ({ put: hashed.map(changedFile), prune: options.prune }),
          firstBase,
          alias: options.alias,
          readSmall: (file) => readSmallFile(pathOf(file), file),
          pathOf,
          check: async ({ base, plan, addedBytes }, attempt) => {
            const changed = changedFiles(hashed, base.entries);
            progress.step(
              `${changed} changed, ${hashed.length - changed} unchanged` +
                (plan.removed.length > 0 ? `, ${plan.removed.length} removed` : '') +
                ` (on version ${base.version})`,
            );
            assertVersionCapacity(base.record, addedBytes);
            const { lamports } = await (attempt === 1
              ? firstBalance
              : reader.getBalances(payer.publicKey));
            assertCanPay(
              payer.publicKey,
              lamports,
              changes.publishFee(signer, payer, storageAuthority),
              'this deploy',
            );
            if (options.confirmRemoval && plan.removed.some((n) => !confirmed.has(n))) {
              await options.confirmRemoval(plan.removed, tape.address.toBase58());
              plan.removed.forEach((n) => confirmed.add(n));
            }
          },
          onRebase: (lostTo) =>
            progress.step(
              `another writer changed the tape (now at sequence ${lostTo ?? 'a newer one'}): planning again on it`,
            ),
        }),
      );
      progress.endUploads();
      await saving;
      const label = labelFromAddress(tape.address);
      const alias = options.alias;
      // An alias answers on its own host, `<alias>--<label>`, and at `/site/{tape}@<alias>/`.
      const urls = this.target.siteUrls(
        alias ? `${alias}--${label}` : label,
        alias ? `${tape.address.toBase58()}@${alias}` : tape.address.toBase58(),
      );
      const changed = outcome.published ? changedFiles(hashed, outcome.base.entries) : 0;
      return {
        tape: tape.address.toBase58(),
        label,
        url: urls.url,
        hostUrl: urls.hostUrl,
        pathUrl: urls.pathUrl,
        ...(alias ? { alias } : {}),
        files: hashed.length,
        uploaded: changed,
        unchanged: hashed.length - changed,
        bytesUploaded: outcome.published?.uploadedBytes ?? 0,
        pruned: outcome.published ? outcome.plan.removed.length : 0,
        version: outcome.published?.version ?? outcome.base.version,
        root: commitmentToHex(
          outcome.published ? outcome.built.rootCommitment : outcome.base.rootCommitment,
        ),
        published: outcome.published !== undefined,
        signature: outcome.published?.signature,
        addedBytes: outcome.published?.addedBytes ?? 0,
      };
    } finally {
      gateway.close();
    }
  }
}

/**
 * A promise started ahead of its use: its rejection is handled where it is awaited, and is not
 * reported as unhandled if an earlier step fails first.
 */
function quiet<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/** Files whose name the base lacks or holds with other bytes (`--prune` or not). */
function changedFiles(files: HashedFile[], base: readonly VersionEntry[]): number {
  const held = new Map(base.map((e) => [e.name, e.commitment]));
  return files.filter((f) => held.get(f.name)?.equals(f.commitment) !== true).length;
}

/** A scanned, hashed file as a version entry to write. */
export function changedFile(f: HashedFile): ChangedFile {
  return {
    name: f.name,
    commitment: f.commitment,
    size: f.size,
    contentType: f.contentType,
    layout: f.layout,
  };
}

/** A small file's bytes for its pack, checked against what was hashed (it may have changed). */
export async function readSmallFile(path: string, file: ChangedFile): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new CliError(`cannot read ${path} (${code}); run tape deploy again`);
  }
  if (bytes.length !== file.size || !commitmentOfBuffer(bytes).commitment.equals(file.commitment)) {
    throw new CliError(`${path} changed since it was read; run tape deploy again`);
  }
  return bytes;
}

export function storageAuthorityOf(text: string, gatewayUrl: string): PublicKey {
  try {
    return new PublicKey(text);
  } catch {
    throw new CliError(
      `the gateway at ${gatewayUrl} names no storage authority (GET /upload/config): it cannot publish versions`,
    );
  }
}
