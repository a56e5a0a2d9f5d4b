import { Injectable } from '@nestjs/common';
import { AccountInfo, Connection, Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import {
  embeddedProgramVersion,
  formatProgramVersion,
  ProgramVersion,
} from '../../chain/program-version';
import { ResendingSender, TransactionJob } from '../../chain/resending-sender';
import { ResendingSenders } from '../../chain/resending-senders';
import { PackOptions } from '../../chain/transaction-packer';
import {
  deployWithMaxDataLen,
  PROGRAM_ACCOUNT_SIZE,
  programDataAddress,
  setAuthority,
  UPGRADEABLE_LOADER_ID,
  upgradeProgram,
} from '../../chain/upgradeable-loader';
import { CliError } from '../cli-error';
import { assertDeployFunds } from './deploy-funds';
import { DeployedProgram, holdsElf, readDeployedProgram } from './deployed-program';
import { BufferRpc, fillProgramBuffer, uniqueSigners, writeChunkSize } from './program-buffer';
import { downgradeRefusal } from './upgrade-policy';
import { ProgramWriteProgress } from './write-progress';

/** The RPC calls a deploy makes (web3.js's Connection has them all). */
export type DeployRpc = BufferRpc & Pick<Connection, 'getBalance' | 'getSlot'>;

export interface DeployRequest {
  rpc: DeployRpc;
  rpcUrl: string;
  elf: Buffer;
  programId: PublicKey;
  /** Needed only to create the program account (a first deploy). */
  programKeypair: Keypair | null;
  /** Pays fees and rent; the base of the buffer's seeded address. */
  payer: Keypair;
  /** The upgrade authority (and the buffer's): the payer unless given. */
  authority: Keypair;
  /** Room for later upgrades; default twice the ELF. */
  maxDataLen?: number;
  /** Drop the upgrade authority once the program holds these bytes. */
  final: boolean;
  /** Replace the program even with a build whose version is not newer. */
  allowDowngrade: boolean;
  computeUnitPrice?: number;
  concurrency?: number;
  progress: ProgramWriteProgress;
}

export type DeployAction = 'deployed' | 'upgraded' | 'unchanged';

export interface DeployResult {
  action: DeployAction;
  programId: PublicKey;
  programData: PublicKey;
  /** The upgrade authority after this run; null once final. */
  upgradeAuthority: PublicKey | null;
  /** Bytes the program data can hold (the ELF and room for upgrades). */
  maxDataLen: number;
  elfLength: number;
  buffer: PublicKey | null;
  /** Chunks of the ELF; those written by this run; those found already in the buffer. */
  chunks: number;
  chunksWritten: number;
  chunksResumed: number;
  /** True when this run dropped the upgrade authority. */
  madeFinal: boolean;
  /** The version the ELF embeds; the one the program ran before this run (null: none or new). */
  version: ProgramVersion | null;
  previousVersion: ProgramVersion | null;
}

/** A deployed program, and whether it holds the ELF at hand. */
type ExistingProgram = DeployedProgram & { same: boolean };

/** Write transactions in flight at once. */
const WRITE_CONCURRENCY = 16;

/**
 * Deploys an SBF program through the BPF Upgradeable Loader, as `solana program deploy` does:
 * a buffer account (37 + ELF bytes) at an address seeded from the payer, the program id, the
 * authority and the ELF's hash, InitializeBuffer, Write in chunks that fill a transaction (sent
 * concurrently; unconfirmed ones re-sent), then DeployWithMaxDataLen with the program account
 * created in the same transaction, or Upgrade when the program exists with other bytes and the
 * new build's version is newer (docs/program.md, "The version"; `allowDowngrade` overrides).
 *
 * Every step reads the chain first, so running the same deploy again after an interruption
 * finds the buffer, writes only the chunks whose bytes differ, and finishes; a program that
 * already holds these bytes is left alone.
 */
@Injectable()
export class ProgramDeployer {
  constructor(private readonly senders: ResendingSenders) {}

  async deploy(req: DeployRequest): Promise<DeployResult> {
    const { rpc, programId, elf } = req;
    const programData = programDataAddress(programId);
    const [program, data] = await rpc.getMultipleAccountsInfo([programId, programData]);
    const deployed = readDeployedProgram(programId, program, data);
    const existing = deployed && { ...deployed, same: holdsElf(deployed, elf) };
    const result: DeployResult = {
      action: 'deployed',
      programId,
      programData,
      upgradeAuthority: req.authority.publicKey,
      maxDataLen: existing?.capacity ?? req.maxDataLen ?? 2 * elf.length,
      elfLength: elf.length,
      buffer: null,
      chunks: 0,
      chunksWritten: 0,
      chunksResumed: 0,
      madeFinal: false,
      version: embeddedProgramVersion(elf),
      previousVersion: existing?.version ?? null,
    };
    if (result.maxDataLen < elf.length) {
      throw new CliError(
        `--max-len ${result.maxDataLen} is smaller than the program (${elf.length} bytes)`,
      );
    }
    const sender = this.sender(req);
    if (existing?.same) {
      result.action = 'unchanged';
      result.upgradeAuthority = existing.authority;
      req.progress.step(`program ${programId.toBase58()} already holds these ${elf.length} bytes`);
    } else {
      await this.install(req, sender, program, existing, result);
    }
    if (req.final && result.upgradeAuthority) await this.dropAuthority(req, sender, result);
    return result;
  }

  /** Writes the buffer and deploys from it (a new program) or upgrades (another ELF). */
  private async install(
    req: DeployRequest,
    sender: ResendingSender,
    program: AccountInfo<Buffer> | null,
    existing: ExistingProgram | null,
    result: DeployResult,
  ): Promise<void> {
    if (existing) this.assertUpgradeable(req, existing);
    else if (!req.programKeypair) {
      throw new CliError(
        `no program at ${req.programId.toBase58()} on ${req.rpcUrl}: a first deploy needs the program keypair (--program-keypair <file>)`,
      );
    }
    const target = { ...req, packing: this.packing(req) };
    await assertDeployFunds({
      ...target,
      elfLength: req.elf.length,
      fresh: existing === null,
      maxDataLen: result.maxDataLen,
      writes: Math.ceil(req.elf.length / writeChunkSize(target)),
    });
    const fill = await fillProgramBuffer(target, sender);
    Object.assign(result, {
      buffer: fill.address,
      chunks: fill.chunks,
      chunksWritten: fill.written,
      chunksResumed: fill.resumed,
    });
    if (existing) {
      result.action = 'upgraded';
      req.progress.step('upgrading the program from the buffer');
      const upgrade = upgradeProgram({
        programId: req.programId,
        buffer: fill.address,
        authority: req.authority.publicKey,
        spill: req.payer.publicKey,
      });
      await sender.sendAll([
        { instructions: [upgrade], signers: uniqueSigners(req.payer, req.authority) },
      ]);
    } else {
      req.progress.step('deploying the program from the buffer');
      await sender.sendAll([await this.deployJob(req, program, result)]);
    }
    await this.nextSlot(req.rpc);
  }

  /** `--final`: SetAuthority to none on the program data. It cannot be undone. */
  private async dropAuthority(
    req: DeployRequest,
    sender: ResendingSender,
    result: DeployResult,
  ): Promise<void> {
    const current = result.upgradeAuthority!;
    if (!current.equals(req.authority.publicKey)) {
      throw new CliError(
        `cannot make ${req.programId.toBase58()} final: its upgrade authority is ${current.toBase58()}, not ${req.authority.publicKey.toBase58()} (pass it with --upgrade-authority)`,
      );
    }
    req.progress.step('dropping the upgrade authority (--final)');
    const drop = setAuthority({
      account: result.programData,
      currentAuthority: current,
      newAuthority: null,
    });
    await sender.sendAll([
      { instructions: [drop], signers: uniqueSigners(req.payer, req.authority) },
    ]);
    result.upgradeAuthority = null;
    result.madeFinal = true;
  }

  private assertUpgradeable(req: DeployRequest, existing: ExistingProgram): void {
    const id = req.programId.toBase58();
    if (!existing.authority) {
      throw new CliError(
        `program ${id} holds other bytes and is final (no upgrade authority): it cannot be upgraded`,
      );
    }
    if (!existing.authority.equals(req.authority.publicKey)) {
      throw new CliError(
        `program ${id} holds other bytes and its upgrade authority is ${existing.authority.toBase58()}, not ${req.authority.publicKey.toBase58()} (pass it with --upgrade-authority <keypair>)`,
      );
    }
    if (req.elf.length > existing.capacity) {
      throw new CliError(
        `the new program is ${req.elf.length} bytes but program ${id} has room for ${existing.capacity} (the max length it was deployed with); deploy it under a new program id with a larger --max-len`,
      );
    }
    const refusal = downgradeRefusal(
      req.programId,
      existing.version,
      embeddedProgramVersion(req.elf),
    );
    if (refusal && !req.allowDowngrade) throw new CliError(refusal);
    if (refusal) {
      const was = existing.version
        ? `version ${formatProgramVersion(existing.version)}`
        : 'an unversioned build';
      req.progress.step(`replacing ${was} with a build that is not newer (--allow-downgrade)`);
    }
  }

  /**
   * The program account (36 bytes, owned by the loader) and DeployWithMaxDataLen in one
   * transaction, so nobody can take the account in between. Lamports someone sent to the
   * address beforehand are kept: the account is topped up, allocated and assigned instead.
   */
  private async deployJob(
    req: DeployRequest,
    program: AccountInfo<Buffer> | null,
    result: DeployResult,
  ): Promise<TransactionJob> {
    const programId = req.programId;
    const payer = req.payer.publicKey;
    const rent = await req.rpc.getMinimumBalanceForRentExemption(PROGRAM_ACCOUNT_SIZE);
    const create = program
      ? [
          ...(program.lamports < rent
            ? [
                SystemProgram.transfer({
                  fromPubkey: payer,
                  toPubkey: programId,
                  lamports: rent - program.lamports,
                }),
              ]
            : []),
          SystemProgram.allocate({ accountPubkey: programId, space: PROGRAM_ACCOUNT_SIZE }),
          SystemProgram.assign({ accountPubkey: programId, programId: UPGRADEABLE_LOADER_ID }),
        ]
      : [
          SystemProgram.createAccount({
            fromPubkey: payer,
            newAccountPubkey: programId,
            lamports: rent,
            space: PROGRAM_ACCOUNT_SIZE,
            programId: UPGRADEABLE_LOADER_ID,
          }),
        ];
    return {
      instructions: [
        ...create,
        deployWithMaxDataLen({
          payer,
          programId,
          buffer: result.buffer!,
          authority: req.authority.publicKey,
          maxDataLen: result.maxDataLen,
        }),
      ],
      signers: uniqueSigners(req.payer, req.programKeypair!, req.authority),
    };
  }

  private packing(req: DeployRequest): PackOptions {
    return this.senders.packing('loader', req.programId, req.computeUnitPrice);
  }

  private sender(req: DeployRequest): ResendingSender {
    return this.senders.sender(req.rpc, 'loader', {
      rpcUrl: req.rpcUrl,
      programId: req.programId,
      computeUnitPrice: req.computeUnitPrice,
      concurrency: req.concurrency ?? WRITE_CONCURRENCY,
    });
  }

  /** A program deployed in slot N runs from slot N + 1: wait for it, so "deployed" means usable. */
  private async nextSlot(rpc: DeployRpc): Promise<void> {
    const deployed = await rpc.getSlot('confirmed');
    const deadline = Date.now() + 30_000;
    while ((await rpc.getSlot('confirmed')) <= deployed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
