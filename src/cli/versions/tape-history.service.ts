import { Injectable } from '@nestjs/common';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { KEEP_MAX, KeptVersion, TapeRecord } from '../../chain/account-layouts';
import { VersionConflictError } from '../../chain/chain-error';
import { aliasVersion, aliasesOf, keptVersion } from '../../chain/tape-history';
import { CliError } from '../cli-error';
import { PaidSender } from '../funding/paid-sender';
import { CliChain } from '../session/cli-chain';
import { CliGateway } from '../session/cli-gateway';
import { CliSigners } from '../session/cli-signers';
import { LoadedTape } from '../session/loaded-tape';
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
  constructor(
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
    private readonly gateway: CliGateway,
    private readonly sender: PaidSender,
  ) {}

  /** The kept versions, newest first, failing fast if the RPC goes away meanwhile. */
  list(): Promise<TapeVersions> {
    return this.chain.guarded(this.read());
  }

  private async read(): Promise<TapeVersions> {
    const { address, record } = await this.chain.loadTape();
    const gateway = this.gateway.client();
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
  rollback(to?: number): Promise<HistoryChange> {
    return this.changeCurrent((record) => {
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
  promote(alias: string): Promise<HistoryChange> {
    return this.changeCurrent((record) => {
      const target = aliasVersion(record, alias);
      if (!target) throw new CliError(`no alias ${alias} on this tape (${aliasList(record)})`);
      return target.version;
    });
  }

  removeAlias(name: string): Promise<HistoryChange> {
    return this.change((tape, signer) => {
      if (!tape.record.aliases.some((a) => a.name === name)) {
        throw new CliError(`no alias ${name} on this tape (${aliasList(tape.record)})`);
      }
      const { sequence } = tape.record;
      return this.chain.ix.removeAlias({
        signer,
        tape: tape.address,
        expectedSequence: sequence,
        name,
      });
    });
  }

  async setKeep(keep: number): Promise<HistoryChange> {
    if (!Number.isInteger(keep) || keep < 1 || keep > KEEP_MAX) {
      throw new CliError(`keep must be a whole number from 1 to ${KEEP_MAX}`);
    }
    return this.change((tape, signer) =>
      tape.record.keep === keep
        ? undefined
        : this.chain.ix.setKeep({
            signer,
            tape: tape.address,
            expectedSequence: tape.record.sequence,
            keep,
          }),
    );
  }

  private changeCurrent(target: (record: TapeRecord) => number): Promise<HistoryChange> {
    return this.change((tape, signer) => {
      const version = target(tape.record);
      if (version === tape.record.version) return undefined;
      return this.chain.ix.setCurrent({
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
    plan: (tape: LoadedTape, signer: PublicKey) => TransactionInstruction | undefined,
  ): Promise<HistoryChange> {
    for (let attempt = 1; ; attempt++) {
      const tape = await this.chain.loadTape();
      const signer = this.signers.tapeSigner(tape);
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
      try {
        const signature = await this.sender.send([ix], {
          cosigners: [signer],
          what: 'this change',
        });
        const after = await this.chain.loadTape();
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
