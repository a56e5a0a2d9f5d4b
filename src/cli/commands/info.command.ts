import { Command } from 'nest-commander';
import { TapeRecord } from '../../chain/account-layouts';
import { currentVersion } from '../../chain/tape-history';
import { labelFromAddress } from '../../chain/tape-label';
import { expiredMessage, expiryWarning } from '../output/expiry-notice';
import { keyValueLines } from '../output/key-value-lines';
import { epochDurationValue, epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatBytes, isoTime } from '../output/units';
import { GlobalOptions } from '../session/cli-target';
import { TapeReadCommand } from './tape-read-command';

@Command({
  name: 'info',
  description: 'show the tape: label, capacity, used, epochs, estimated expiry',
})
export class InfoCommand extends TapeReadCommand {
  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const { address, record, config, now, currentEpoch, objects } = await this.reads.facts();
    const label = labelFromAddress(address);
    const status = currentEpoch < record.expiryEpoch ? 'active' : 'expired';
    // The same URL `tape deploy` prints: the gateway's own port (site-url.ts, siteUrls).
    const url = target.siteUrls(label, address.toBase58()).url;
    const current = currentVersion(record);
    // On stderr, so the output (and --json) keeps its shape: expiring soon, or what is left to do.
    const warning =
      status === 'expired'
        ? `warning: ${expiredMessage(address, record, config, now)}`
        : expiryWarning(address, record, config, now);
    if (warning) this.printer.note(warning);
    if (target.json) {
      this.printer.json({
        tape: address.toBase58(),
        label,
        status,
        capacity: record.capacity,
        // Charged against capacity: the unique bytes of the kept versions (current and previous).
        used: record.keptBytes,
        objects: objects.count,
        active_epoch: record.activeEpoch,
        expiry_epoch: record.expiryEpoch,
        current_epoch: currentEpoch,
        epoch_duration_secs: config.epochDurationSecs,
        expires_at: isoTime(epochStart(record.expiryEpoch, config)),
        authority: record.authority.toBase58(),
        delegate: record.delegate?.toBase58() ?? null,
        payer: record.payer.toBase58(),
        version: record.version,
        root: current ? current.root.toString('hex') : null,
        version_bytes: current?.bytes ?? 0,
        kept_bytes: record.keptBytes,
        published_at: current ? isoTime(current.publishedAt) : null,
        keep: record.keep,
        kept_versions: record.history.length,
        url,
      });
      return;
    }
    const percent =
      record.capacity > 0 ? Math.floor((record.keptBytes / record.capacity) * 100) : 0;
    this.printer.lines(
      keyValueLines([
        ['tape address', address.toBase58()],
        ['label', label],
        ['status', status],
        ['capacity', `${record.capacity} bytes (${formatBytes(record.capacity)})`],
        ['used', `${record.keptBytes} bytes (${formatBytes(record.keptBytes)}, ${percent}%)`],
        ['objects', objects.count === null ? `unknown (${objects.why})` : String(objects.count)],
        ['epochs', epochsValue(record.activeEpoch, record.expiryEpoch)],
        ['epoch duration', epochDurationValue(config)],
        ['expires', expiresValue(record.expiryEpoch, config, now)],
        ['delegate', record.delegate?.toBase58() ?? 'none'],
        ['version', versionValue(record)],
        ...(current
          ? ([
              ['root', current.root.toString('hex')],
              ['version bytes', `${current.bytes} (kept: ${record.keptBytes})`],
            ] as Array<[string, string]>)
          : []),
        ['kept versions', `${record.history.length} (keep ${record.keep} newest)`],
        ['URL', url],
      ]),
    );
  }
}

/** The published version, as `tape info` prints it. */
function versionValue(record: TapeRecord): string {
  const current = currentVersion(record);
  if (!current) return 'none';
  return `${record.version} (published ${isoTime(current.publishedAt)})`;
}
