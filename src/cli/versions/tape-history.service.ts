import { Injectable } from '@nestjs/common';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { KEEP_MAX, KeptVersion, TapeRecord } from '../../chain/account-layouts';
import { VersionConflictError } from '../../chain/chain-error';
import { transactionFee } from '../../chain/priority-fee';
import { aliasVersion, aliasesOf, keptVersion } from '../../chain/tape-history';
import { CliError } from '../cli-error';
import { assertWalletCanPay } from '../funding/payment-check';
import { LoadedTape, TapeSession } from '../session/tape-session';
import { MAX_PUBLISH_TRIES } from './change-publisher';
import { readVersionRoot } from './current-version';

/** One kept version as `tape versions` lists it. */
export interface VersionRow {
  version: number;
  publishedAt: number;
  /** Names in the version (its root's entry count); null when the gateway could not say. */
  files: number | null;
  bytes: number;
  aliases: string[];
  current: boolean;
}

export interface TapeVersions {
  address: PublicKey;
  record: TapeRecord;
  /** Newest first. */
  rows: VersionRow[];
  /** Why some FILES are unknown (the gateway's answer), if any are. */
  filesUnknown?: string;
}

/** What a change of the tape's history did. */
export interface HistoryChange {
  tape: PublicKey;
  /** The current version before and after. */
  previous: number;
  version: number;
  /** The tape's sequence after the change; the change's signature (none when nothing changed). */
  sequence: number;
  signature?: string;
  changed: boolean;
}

/**
 * The tape's kept versions and aliases (docs/versions.md, "History and aliases"): listing them,
 * and the one-instruction changes `tape rollback`, `promote`, `alias rm` and `keep` make. Each
 * change is planned on the tape as read and sent with its sequence (compare-and-swap); when
 * another writer changed the tape meanwhile, the tape is read again and the change planned
 * anew (a rollback's default target, an alias's version), a bounded number of times.
 */
@Injectable()
export class TapeHistoryService {
  async list(session: TapeSession): Promise<TapeVersions> {
    const { address, record } = await session.loadTape();
    const gateway = session.gateway();
    let filesUnknown: string | undefined;
    try {
      const newestFirst = [...record.history].reverse();
      const files = await Promise.all(
        newestFirst.map(async (v) => {
          try {
            return (await readVersionRoot(gateway, address, v.root, v.version)).entryCount;
          } catch (err) {
            filesUnknown ??= (err as Error).message;
            return null;
          }
        }),
      );
      const rows = newestFirst.map((v, i) => rowOf(record, v, files[i]));
      return { address, record, rows, filesUnknown };
    } finally {
      gateway.close();
    }
  }

  /** Makes `to` current, or the newest kept version below the current one. */
  rollback(session: TapeSession, to?: number): Promise<HistoryChange> {
    return this.changeCurrent(session, (record) => {
      if (to !== undefined) {
        if (!keptVersion(record, to)) {
          throw new CliError(`version ${to} is not kept (kept: ${keptList(record)})`);
        }
        return to;
      }
      const before = record.history.filter((v) => v.version < record.version).at(-1);
      if (!before) {
        throw new CliError(
          record.version === 0
            ? 'the tape has no version yet: nothing to roll back'
            : `no kept version before version ${record.version} (kept: ${keptList(record)})`,
        );
      }
      return before.version;
    });
  }

  /** Makes the alias's version current. */
  promote(session: TapeSession, alias: string): Promise<HistoryChange> {
    return this.changeCurrent(session, (record) => {
      const target = aliasVersion(record, alias);
      if (!target) throw new CliError(`no alias ${alias} on this tape (${aliasList(record)})`);
      return target.version;
    });
  }

  removeAlias(session: TapeSession, name: string): Promise<HistoryChange> {
    return this.change(session, (tape, signer) => {
      if (!tape.record.aliases.some((a) => a.name === name)) {
        throw new CliError(`no alias ${name} on this tape (${aliasList(tape.record)})`);
      }
      const { sequence } = tape.record;
      return session.chain.ix.removeAlias({
        signer,
        tape: tape.address,
        expectedSequence: sequence,
        name,
      });
    });
  }

  async setKeep(session: TapeSession, keep: number): Promise<HistoryChange> {
    if (!Number.isInteger(keep) || keep < 1 || keep > KEEP_MAX) {
      throw new CliError(`keep must be a whole number from 1 to ${KEEP_MAX}`);
    }
    return this.change(session, (tape, signer) =>
      tape.record.keep === keep
        ? undefined
        : session.chain.ix.setKeep({
            signer,
            tape: tape.address,
            expectedSequence: tape.record.sequence,
            keep,
          }),
    );
  }

  private changeCurrent(
    session: TapeSession,
    target: (record: TapeRecord) => number,
  ): Promise<HistoryChange> {
    return this.change(session, (tape, signer) => {
      const version = target(tape.record);
      if (version === tape.record.version) return undefined;
      return session.chain.ix.setCurrent({
        signer,
        tape: tape.address,
        expectedSequence: tape.record.sequence,
        version,
      });
    });
  }

  /**
   * Reads the tape, plans the instruction on it (undefined: nothing to change), sends it; on a
   * lost compare-and-swap, reads the tape again and plans again.
   */
  private async change(
    session: TapeSession,
    plan: (tape: LoadedTape, signer: PublicKey) => TransactionInstruction | undefined,
  ): Promise<HistoryChange> {
    const { reader, writer } = session.chain;
    for (let attempt = 1; ; attempt++) {
      const tape = await session.loadTape();
      const signer = session.tapeSigner(tape);
      const ix = plan(tape, signer.publicKey);
      const base = { tape: tape.address, previous: tape.record.version };
      if (!ix) {
        return {
          ...base,
          version: tape.record.version,
          sequence: tape.record.sequence,
          changed: false,
        };
      }
      const payer = session.wallet();
      const signers = signer.publicKey.equals(payer.publicKey) ? [payer] : [payer, signer];
      await assertWalletCanPay(
        reader,
        payer.publicKey,
        0n,
        transactionFee([ix], signers.length, writer.packing),
        'this change',
      );
      try {
        const [signature] = await session.guarded(writer.send([ix], signers));
        const after = await session.loadTape();
        return {
          ...base,
          version: after.record.version,
          sequence: after.record.sequence,
          signature,
          changed: true,
        };
      } catch (err) {
        if (!(err instanceof VersionConflictError)) throw err;
        if (attempt >= MAX_PUBLISH_TRIES) {
          throw new CliError(
            `version conflict: the tape changed ${attempt} times while this change was sent (another writer is changing it); run the command again`,
          );
        }
      }
    }
  }
}

function rowOf(record: TapeRecord, v: KeptVersion, files: number | null): VersionRow {
  return {
    version: v.version,
    publishedAt: v.publishedAt,
    files,
    bytes: v.bytes,
    aliases: aliasesOf(record, v.version),
    current: v.version === record.version,
  };
}

function keptList(record: TapeRecord): string {
  return record.history.map((v) => v.version).join(', ') || 'none';
}

function aliasList(record: TapeRecord): string {
  const names = record.aliases.map((a) => a.name);
  return names.length > 0 ? `aliases: ${names.join(', ')}` : 'it has no aliases';
}
