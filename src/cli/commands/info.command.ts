import { Command } from 'nest-commander';
import { TapeRecord } from '../../chain/account-layouts';
import { labelFromAddress } from '../../chain/tape-label';
import { expiredMessage, expiryWarning } from '../output/expiry-notice';
import { keyValueLines } from '../output/key-value-lines';
import { epochDurationValue, epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatBytes, isoTime } from '../output/units';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

@Command({
  name: 'info',
  description: 'show the tape: label, capacity, used, epochs, estimated expiry',
})
export class InfoCommand extends TapeCommand {
  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const session = this.session(options);
    const { address, record } = await session.loadTape();
    const { reader } = session.chain;
    const [config, now, currentEpoch] = await Promise.all([
      reader.networkConfig(),
      reader.chainTime(),
      reader.currentEpoch(),
    ]);
    const label = labelFromAddress(address);
    const status = currentEpoch < record.expiryEpoch ? 'active' : 'expired';
    const url = session.siteUrl(label);
    // On stderr, so the output (and --json) keeps its shape: expiring soon, or what is left to do.
    const warning =
      status === 'expired'
        ? `warning: ${expiredMessage(address, record, config, now)}`
        : expiryWarning(address, record, config, now);
    if (warning) this.printer.note(warning);
    if (session.json) {
      this.printer.json({
        tape: address.toBase58(),
        label,
        status,
        capacity: record.capacity,
        used: record.used,
        objects: record.nameCount,
        tracks: record.trackCount,
        active_epoch: record.activeEpoch,
        expiry_epoch: record.expiryEpoch,
        current_epoch: currentEpoch,
        epoch_duration_secs: config.epochDurationSecs,
        expires_at: isoTime(epochStart(record.expiryEpoch, config)),
        authority: record.authority.toBase58(),
        delegate: record.delegate?.toBase58() ?? null,
        payer: record.payer.toBase58(),
        version: record.version,
        root: record.version > 0 ? record.root.toString('hex') : null,
        version_bytes: record.versionBytes,
        kept_bytes: record.keptBytes,
        published_at: record.version > 0 ? isoTime(record.publishedAt) : null,
        url,
      });
      return;
    }
    const percent = record.capacity > 0 ? Math.floor((record.used / record.capacity) * 100) : 0;
    this.printer.lines(
      keyValueLines([
        ['tape address', address.toBase58()],
        ['label', label],
        ['status', status],
        ['capacity', `${record.capacity} bytes (${formatBytes(record.capacity)})`],
        ['used', `${record.used} bytes (${formatBytes(record.used)}, ${percent}%)`],
        ['objects', String(record.nameCount)],
        ['epochs', epochsValue(record.activeEpoch, record.expiryEpoch)],
        ['epoch duration', epochDurationValue(config)],
        ['expires', expiresValue(record.expiryEpoch, config, now)],
        ['delegate', record.delegate?.toBase58() ?? 'none'],
        ['version', versionValue(record)],
        ['URL', url],
      ]),
    );
  }
}

/** The published version, as `tape info` prints it. */
function versionValue(record: TapeRecord): string {
  if (record.version === 0) return 'none';
  return `${record.version} (published ${isoTime(record.publishedAt)})`;
}
