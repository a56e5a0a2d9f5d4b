import { Injectable } from '@nestjs/common';
import { labelFromAddress } from '../../chain/tape-label';
import { transactionFee } from '../../chain/priority-fee';
import { resizeCost } from '../../chain/storage-pricing';
import { commitmentToHex } from '../../tracks/commitment';
import { buildVersion } from '../../versions/version-builder';
import { VersionEntry } from '../../versions/version-entry';
import { ChangedFile, planVersion } from '../../versions/version-planner';
import { parseSize } from '../input/size-parser';
import { sizeArgumentCovering } from '../output/units';
import { SiteUrls } from '../session/site-url';
import { CliChain } from '../session/cli-chain';
import { CliGateway } from '../session/cli-gateway';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { ChangePublisher, addedBytesOf } from '../versions/change-publisher';
import { readCurrentVersion } from '../versions/current-version';
import { GatewayRefusalError, VersionPublisher } from '../versions/version-publisher';
import { tracksToUpload } from '../versions/version-tracks-to-upload';
import { UploadSigner } from './upload-signer';
import { assertTapeActive } from './deploy-preflight';
import { HashCache, userCacheDir } from './hash-cache';
import { hashSiteFiles } from './site-hasher';
import { scanSite } from './site-scanner';
import { changedFile, readSmallFile, storageAuthorityOf } from './site-deployer';
import { publishedFiles } from './well-known-files';

/** One file a deploy would send: its name and size. */
export interface FileToUpload {
  name: string;
  size: number;
}

/** What `tape deploy --dry-run` found: what the deploy would do, and what it would cost. */
export interface DryRunReport {
  tape: string;
  label: string;
  urls: SiteUrls;
  /** The tape's current version (0: none yet), and whether a deploy would publish a new one. */
  baseVersion: number;
  wouldPublish: boolean;
  files: number;
  /** Names new or changed against the current version. */
  changed: number;
  unchanged: number;
  /** Files whose bytes would be sent (the gateway lacks their track). */
  upload: FileToUpload[];
  /** Tracks and bytes that would be sent: files, packs, segment manifests, nodes, the root. */
  uploadTracks: number;
  uploadBytes: number;
  /** False when the gateway could not be asked what it holds: everything is counted. */
  gatewayAsked: boolean;
  /** Names of the current version a `--prune` removes (removed by this deploy when `prune`). */
  prunable: string[];
  prune: boolean;
  /** Bytes the version would add to the tape, and what the tape keeps after it, of its capacity. */
  addedBytes: number;
  keptAfter: number;
  capacity: number;
  /** The Publish's fee (the fee rule: signatures and priority fee; no rent). */
  feeLamports: number;
  /** Storage tokens the deploy spends: always 0 (a deploy pays none). */
  tokens: bigint;
  /** A resize the deploy needs first (the tape is too small), with what it would cost. */
  resize: { add: string; addBytes: number; tokens: bigint; feeLamports: number } | null;
  wallet: { address: string; lamports: number; tokens: bigint };
}

/**
 * `tape deploy --dry-run`: everything a deploy does before it sends anything (scan, hash, read
 * the current version, plan, ask the gateway which tracks it lacks), then stops. No transaction
 * is built to be sent, nothing is signed for the chain and nothing is uploaded; the `missing`
 * question is the deploy's own signed read (docs/cli.md, "Dry run").
 */
@Injectable()
export class DeployDryRun {
  constructor(
    private readonly target: CliTarget,
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
    private readonly gateways: CliGateway,
  ) {}

  async plan(sitePath: string, options: { prune: boolean }): Promise<DryRunReport> {
    const [site, tape] = await Promise.all([scanSite(sitePath), this.chain.loadTape()]);
    const { reader, ix, writer } = this.chain;
    const payer = this.signers.wallet();
    const gateway = this.gateways.client();
    try {
      const { config: network, now: nowUnix, currentEpoch } = await reader.clock();
      assertTapeActive(tape.record, currentEpoch, {
        address: tape.address,
        clock: network,
        nowUnix,
      });
      const signer = this.signers.tapeSigner(tape);
      const config = await gateway.uploadConfig();
      const storageAuthority = storageAuthorityOf(config.storageAuthority, gateway.baseUrl);
      const files = publishedFiles(site, config.wellKnownAllow);
      const cache = await HashCache.open(userCacheDir(), site.root, config.segmentBytes);
      const hashed = await hashSiteFiles(files, config.segmentBytes, { cache });
      await cache.save();
      const base = await readCurrentVersion(reader, gateway, tape.address, tape.record);
      const byName = new Map(hashed.map((f) => [f.name, f]));
      const pathOf = (file: ChangedFile) => byName.get(file.name)!.path;
      const plan = await planVersion(
        base,
        { put: hashed.map(changedFile), prune: options.prune },
        (file) => readSmallFile(pathOf(file), file),
      );
      const built = buildVersion(plan.entries, plan.settings);
      const wouldPublish = base.version === 0 || !built.rootCommitment.equals(base.rootCommitment);
      const publisher = new VersionPublisher(gateway, this.chain.rpc, ix, {
        concurrency: 1,
        segmentBytes: config.segmentBytes,
        storageAuthority,
      });
      const tracks = wouldPublish
        ? await tracksToUpload(plan, built, pathOf, config.segmentBytes)
        : [];
      let lacking: Set<string>;
      let gatewayAsked = true;
      try {
        lacking = await publisher.missing(
          new UploadSigner(signer),
          tape.address.toBase58(),
          tracks,
        );
      } catch (err) {
        // A gateway that does not answer `missing` (a reader): every track counts as sent.
        if (!(err instanceof GatewayRefusalError)) throw err;
        lacking = new Set(tracks.map((t) => t.commitment));
        gatewayAsked = false;
      }
      const sent = tracks.filter((t) => lacking.has(t.commitment));
      const names = new Set(hashed.map((f) => f.name));
      const changedNames = new Set([...plan.added, ...plan.changed]);
      const upload = wouldPublish
        ? plan.entries
            .filter((e) => changedNames.has(e.name) && lacking.has(trackOf(e)))
            .map((e) => ({ name: e.name, size: e.size }))
        : [];
      const addedBytes = wouldPublish ? addedBytesOf(plan, built, base) : 0;
      // The kept versions' unique bytes as last certified; the new version adds its added bytes.
      const kept = tape.record.keptBytes;
      const missingRoom = kept + addedBytes - tape.record.capacity;
      const changes = new ChangePublisher(this.chain.services, gateway, publisher);
      const balances = await reader.getBalances(payer.publicKey);
      let resize: DryRunReport['resize'] = null;
      if (missingRoom > 0) {
        const add = sizeArgumentCovering(missingRoom);
        const addBytes = parseSize(add, 'size');
        const resizeIx = ix.resizeTape({
          payer: payer.publicKey,
          tape: tape.address,
          mint: network.mint,
          treasury: network.treasury,
          addBytes,
        });
        resize = {
          add,
          addBytes,
          tokens: resizeCost(
            tape.record.capacity,
            addBytes,
            tape.record.expiryEpoch - currentEpoch,
            network.pricePerMibEpoch,
          ),
          feeLamports: transactionFee([resizeIx], 1, writer.packing),
        };
      }
      const label = labelFromAddress(tape.address);
      const changed = hashed.filter((f) => changedNames.has(f.name)).length;
      return {
        tape: tape.address.toBase58(),
        label,
        urls: this.target.siteUrls(label, tape.address.toBase58()),
        baseVersion: base.version,
        wouldPublish,
        files: hashed.length,
        changed: wouldPublish ? changed : 0,
        unchanged: hashed.length - (wouldPublish ? changed : 0),
        upload,
        uploadTracks: sent.length,
        uploadBytes: sent.reduce((sum, t) => sum + t.size, 0),
        gatewayAsked,
        prunable: options.prune
          ? plan.removed
          : base.entries.map((e) => e.name).filter((n) => !names.has(n)),
        prune: options.prune,
        addedBytes,
        keptAfter: kept + addedBytes,
        capacity: tape.record.capacity,
        feeLamports: wouldPublish ? changes.publishFee(signer, payer, storageAuthority) : 0,
        tokens: 0n,
        resize,
        wallet: { address: payer.publicKey.toBase58(), ...balances },
      };
    } finally {
      gateway.close();
    }
  }
}

/** The track that holds an entry's bytes: its own (blob, segment manifest) or its pack's. */
function trackOf(entry: VersionEntry): string {
  return commitmentToHex(entry.location.kind === 'packed' ? entry.location.pack : entry.commitment);
}
