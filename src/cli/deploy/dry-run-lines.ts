import { keyValueLines } from '../output/key-value-lines';
import { formatBytes, formatSol, formatSolApprox, formatTokens } from '../output/units';
import { DryRunReport } from './deploy-dry-run';

/** `tape deploy --dry-run` for a person (docs/cli.md, "Dry run"). */
export function dryRunLines(r: DryRunReport): string[] {
  const version = r.wouldPublish
    ? `${r.baseVersion === 0 ? 'none' : r.baseVersion} -> ${r.baseVersion + 1} (would publish)`
    : `${r.baseVersion} (nothing changed: nothing would be published)`;
  const upload =
    `${r.upload.length} ${r.upload.length === 1 ? 'file' : 'files'}, ` +
    `${r.uploadTracks} ${r.uploadTracks === 1 ? 'track' : 'tracks'}, ${formatBytes(r.uploadBytes)}` +
    (r.gatewayAsked
      ? ' (what the gateway lacks)'
      : ' (the gateway could not be asked what it holds: everything counted)');
  const prune =
    r.prunable.length === 0
      ? 'nothing'
      : `${r.prunable.length} ${r.prunable.length === 1 ? 'name' : 'names'} ` +
        (r.prune ? 'would be removed (--prune)' : 'would be removed with --prune');
  const tokens = r.resize
    ? `0 for the deploy; the tape is too small: tape resize --add ${r.resize.add} first ` +
      `(${formatTokens(r.resize.tokens)} storage tokens + ~${formatSolApprox(r.resize.feeLamports)} SOL)`
    : '0 (a deploy spends no storage tokens; the tape has room)';
  const lines = keyValueLines([
    ['dry run', 'nothing was signed, sent or uploaded'],
    ['tape', r.tape],
    ['version', version],
    ['files', `${r.files} (${r.changed} new or changed, ${r.unchanged} unchanged)`],
    ['upload', upload],
    ['prune', prune],
    [
      'bytes added',
      `${r.addedBytes} (${formatBytes(r.addedBytes)}; kept after: ${formatBytes(r.keptAfter)} of ${formatBytes(r.capacity)})`,
    ],
    [
      'SOL',
      r.wouldPublish
        ? `~${formatSolApprox(r.feeLamports)} (${r.feeLamports} lamports: the Publish's fee; no rent)`
        : '0 (nothing to publish)',
    ],
    ['storage tokens', tokens],
    [
      'wallet',
      `${formatSol(r.wallet.lamports)} SOL, ${formatTokens(r.wallet.tokens)} storage tokens`,
    ],
    ['URL', r.urls.url],
  ]);
  if (r.upload.length > 0) {
    lines.push('files to upload:', ...r.upload.map((f) => `  ${f.name} (${formatBytes(f.size)})`));
  }
  if (r.prunable.length > 0) {
    lines.push(
      r.prune ? 'names removed by --prune:' : 'names --prune would remove:',
      ...r.prunable.map((n) => `  ${n}`),
    );
  }
  return lines;
}

/** `tape deploy --dry-run --json`: amounts exact (lamports as numbers, tokens as strings). */
export function dryRunJson(r: DryRunReport): Record<string, unknown> {
  return {
    dry_run: true,
    tape: r.tape,
    label: r.label,
    url: r.urls.url,
    host_url: r.urls.hostUrl,
    path_url: r.urls.pathUrl,
    version: r.baseVersion,
    would_publish: r.wouldPublish,
    files: r.files,
    changed: r.changed,
    unchanged: r.unchanged,
    upload: r.upload,
    upload_tracks: r.uploadTracks,
    upload_bytes: r.uploadBytes,
    gateway_asked: r.gatewayAsked,
    prune: r.prune,
    prunable: r.prunable,
    added_bytes: r.addedBytes,
    kept_bytes_after: r.keptAfter,
    capacity: r.capacity,
    fee_lamports: r.feeLamports,
    tokens: r.tokens.toString(),
    resize: r.resize
      ? {
          add: r.resize.add,
          add_bytes: r.resize.addBytes,
          tokens: r.resize.tokens.toString(),
          fee_lamports: r.resize.feeLamports,
        }
      : null,
    wallet: {
      address: r.wallet.address,
      lamports: r.wallet.lamports,
      tokens: r.wallet.tokens.toString(),
    },
  };
}
