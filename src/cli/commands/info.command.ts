import { Command } from 'nest-commander';
import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { currentVersion } from '../../chain/tape-history';
import { labelFromAddress } from '../../chain/tape-label';
import { expiredMessage, expiryWarning } from '../output/expiry-notice';
import { keyValueLines } from '../output/key-value-lines';
import { epochDurationValue, epochStart, epochsValue, expiresValue } from '../output/tape-lines';
import { formatBytes, isoTime } from '../output/units';
import { GlobalOptions, TapeSession } from '../session/tape-session';
import { readCurrentRoot } from '../versions/current-version';
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
    const objects = await this.objectCount(session, address, record);
    const label = labelFromAddress(address);
    const status = currentEpoch < record.expiryEpoch ? 'active' : 'expired';
    // The same URL `tape deploy` prints: the gateway's own port (site-url.ts, siteUrls).
    const url = session.siteUrls(label, address.toBase58()).url;
    const current = currentVersion(record);
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

  /**
   * Names in the current version: its root's entry count, read from the gateway and checked
   * against the pointer (only the root is read). Unknown, with the reason, when the gateway
   * cannot say: the rest of `tape info` comes from the chain alone.
   */
  private async objectCount(
    session: TapeSession,
    address: PublicKey,
    record: TapeRecord,
  ): Promise<{ count: number | null; why?: string }> {
    if (record.version === 0) return { count: 0 };
    const gateway = session.gateway();
    try {
      const root = await readCurrentRoot(gateway, address, record);
      return { count: root?.entryCount ?? 0 };
    } catch (err) {
      return { count: null, why: (err as Error).message };
    } finally {
      gateway.close();
    }
  }
}

/** The published version, as `tape info` prints it. */
function versionValue(record: TapeRecord): string {
  const current = currentVersion(record);
  if (!current) return 'none';
  return `${record.version} (published ${isoTime(current.publishedAt)})`;
}
