import { Injectable } from '@nestjs/common';
import { AccountInfo, Connection, Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { ResendingSender, SenderRpc, TransactionJob } from '../../chain/resending-sender';
import { addressWithSeed } from '../../chain/seeded-address';
import { transactionSize, withComputeBudget } from '../../chain/transaction-packer';
import { PACKET_DATA_SIZE } from '../../chain/transaction-budget';
import {
  BUFFER_METADATA_SIZE,
  createBufferInstructions,
  decodeLoaderState,
  deployWithMaxDataLen,
  LoaderComputeUnits,
  PROGRAM_ACCOUNT_SIZE,
  programDataAddress,
  PROGRAMDATA_METADATA_SIZE,
  setAuthority,
  UPGRADEABLE_LOADER_ID,
  upgradeProgram,
  writeBuffer,
} from '../../chain/upgradeable-loader';
import { CliError } from '../cli-error';
import { formatSolApprox } from '../output/units';
import { ProgramWriteProgress } from './write-progress';
import { transactionFeeLamports } from '../../chain/priority-fee';

/** The RPC calls a deploy makes (web3.js's Connection has them all). */
export type DeployRpc = SenderRpc &
  Pick<
    Connection,
    'getMultipleAccountsInfo' | 'getMinimumBalanceForRentExemption' | 'getBalance' | 'getSlot'
  >;

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
}

/** Write transactions in flight at once. */
const WRITE_CONCURRENCY = 16;

/**
 * Deploys an SBF program through the BPF Upgradeable Loader, as `solana program deploy` does:
 * a buffer account (37 + ELF bytes) at an address seeded from the payer, the program id, the
 * authority and the ELF's hash, InitializeBuffer, Write in chunks that fill a transaction (sent
 * concurrently; unconfirmed ones re-sent), then DeployWithMaxDataLen with the program account
 * created in the same transaction, or Upgrade when the program exists with other bytes.
 *
 * Every step reads the chain first, so running the same deploy again after an interruption
 * finds the buffer, writes only the chunks whose bytes differ, and finishes; a program that
 * already holds these bytes is left alone.
 */
@Injectable()
export class ProgramDeployer {
  async deploy(req: DeployRequest): Promise<DeployResult> {
    const { rpc, programId, elf } = req;
    const programData = programDataAddress(programId);
    const [program, data] = await rpc.getMultipleAccountsInfo([programId, programData]);
    const existing = this.existingProgram(req, program, data);
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
      if (existing) this.assertUpgradeable(req, existing);
      else if (!req.programKeypair) {
        throw new CliError(
          `no program at ${programId.toBase58()} on ${req.rpcUrl}: a first deploy needs the program keypair (--program-keypair <file>)`,
        );
      }
      await this.assertFunds(req, existing === null, result.maxDataLen);
      result.buffer = await this.fillBuffer(req, sender, result);
      if (existing) {
        result.action = 'upgraded';
        req.progress.step('upgrading the program from the buffer');
        await sender.sendAll([
          {
            instructions: [
              upgradeProgram({
                programId,
                buffer: result.buffer,
                authority: req.authority.publicKey,
                spill: req.payer.publicKey,
              }),
            ],
            signers: signers(req.payer, req.authority),
          },
        ]);
      } else {
        req.progress.step('deploying the program from the buffer');
        await sender.sendAll([await this.deployJob(req, program, result)]);
      }
      await this.nextSlot(rpc);
    }
    if (req.final && result.upgradeAuthority) {
      if (!result.upgradeAuthority.equals(req.authority.publicKey)) {
        throw new CliError(
          `cannot make ${programId.toBase58()} final: its upgrade authority is ${result.upgradeAuthority.toBase58()}, not ${req.authority.publicKey.toBase58()} (pass it with --upgrade-authority)`,
        );
      }
      req.progress.step('dropping the upgrade authority (--final)');
      await sender.sendAll([
        {
          instructions: [
            setAuthority({
              account: programData,
              currentAuthority: req.authority.publicKey,
              newAuthority: null,
            }),
          ],
          signers: signers(req.payer, req.authority),
        },
      ]);
      result.upgradeAuthority = null;
      result.madeFinal = true;
    }
    return result;
  }

  /** The program as the chain has it, or null when its address holds no program yet. */
  private existingProgram(
    req: DeployRequest,
    program: AccountInfo<Buffer> | null,
    data: AccountInfo<Buffer> | null,
  ): { authority: PublicKey | null; capacity: number; same: boolean } | null {
    const id = req.programId.toBase58();
    if (!program || (program.owner.equals(SystemProgram.programId) && program.data.length === 0)) {
      return null;
    }
    if (!program.owner.equals(UPGRADEABLE_LOADER_ID)) {
      throw new CliError(
        `${id} is an account of ${program.owner.toBase58()}, not a program of the BPF Upgradeable Loader`,
      );
    }
    const state = decodeLoaderState(program.data);
    if (state.kind !== 'program' || !data) {
      throw new CliError(`${id} is a loader account but not a deployed program (${state.kind})`);
    }
    const header = decodeLoaderState(data.data);
    if (header.kind !== 'programData') {
      throw new CliError(`the program data of ${id} is not readable (${header.kind})`);
    }
    const code = data.data.subarray(PROGRAMDATA_METADATA_SIZE);
    const same =
      code.length >= req.elf.length &&
      code.subarray(0, req.elf.length).equals(req.elf) &&
      code.subarray(req.elf.length).every((b) => b === 0);
    return { authority: header.upgradeAuthority, capacity: code.length, same };
  }

  private assertUpgradeable(
    req: DeployRequest,
    existing: { authority: PublicKey | null; capacity: number },
  ): void {
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
  }

  /** Before anything is signed: the payer can cover the buffer, the rent and the fees. */
  private async assertFunds(req: DeployRequest, fresh: boolean, maxDataLen: number): Promise<void> {
    const { rpc } = req;
    const chunks = Math.ceil(req.elf.length / this.chunkSize(req));
    const rent = (bytes: number) => rpc.getMinimumBalanceForRentExemption(bytes);
    const [buffer, program, data, balance] = await Promise.all([
      rent(BUFFER_METADATA_SIZE + req.elf.length),
      rent(PROGRAM_ACCOUNT_SIZE),
      rent(PROGRAMDATA_METADATA_SIZE + maxDataLen),
      rpc.getBalance(req.payer.publicKey),
    ]);
    const fees = (chunks + 3) * this.feePerTransaction(req);
    const needed = buffer + fees + (fresh ? program + data : 0);
    if (balance < needed) {
      throw new CliError(
        `insufficient funds: this deploy needs about ${formatSolApprox(needed)} SOL (buffer ${formatSolApprox(buffer)}` +
          (fresh
            ? `, program data ${formatSolApprox(data)}, program ${formatSolApprox(program)}`
            : '') +
          `, fees ${formatSolApprox(fees)}); payer ${req.payer.publicKey.toBase58()} has ${formatSolApprox(balance)} SOL`,
      );
    }
  }

  /** Creates or finds the buffer, writes the chunks it lacks, and checks it holds the ELF. */
  private async fillBuffer(
    req: DeployRequest,
    sender: ResendingSender,
    result: DeployResult,
  ): Promise<PublicKey> {
    const { rpc, elf, payer, authority } = req;
    const seed = bufferSeed(req.programId, authority.publicKey, elf);
    const buffer = addressWithSeed(payer.publicKey, seed, UPGRADEABLE_LOADER_ID);
    let contents = await this.readBuffer(req, buffer);
    if (contents) {
      req.progress.step(`found buffer ${buffer.toBase58()} of an earlier run`);
    } else {
      req.progress.step(
        `creating buffer ${buffer.toBase58()} (${BUFFER_METADATA_SIZE + elf.length} bytes)`,
      );
      const lamports = await rpc.getMinimumBalanceForRentExemption(
        BUFFER_METADATA_SIZE + elf.length,
      );
      await sender.sendAll([
        {
          instructions: createBufferInstructions({
            payer: payer.publicKey,
            buffer,
            seed,
            authority: authority.publicKey,
            elfLength: elf.length,
            lamports,
          }),
          signers: [payer],
        },
      ]);
      contents = Buffer.alloc(elf.length);
    }
    const size = this.chunkSize(req);
    const offsets: number[] = [];
    for (let offset = 0; offset < elf.length; offset += size) offsets.push(offset);
    result.chunks = offsets.length;
    let written: Buffer = contents;
    for (let pass = 0; ; pass++) {
      const missing = offsets.filter((o) => !sameBytes(written, elf, o, size));
      if (missing.length === 0) break;
      if (pass === 2) {
        throw new CliError(
          `buffer ${buffer.toBase58()} does not hold the program after writing it`,
        );
      }
      if (pass === 0) result.chunksResumed = offsets.length - missing.length;
      req.progress.startWrites(offsets.length, offsets.length - missing.length);
      const jobs: TransactionJob[] = missing.map((offset) => ({
        instructions: [
          writeBuffer({
            buffer,
            authority: authority.publicKey,
            offset,
            bytes: elf.subarray(offset, offset + size),
          }),
        ],
        signers: signers(payer, authority),
      }));
      try {
        await sender.sendAll(jobs, () => {
          result.chunksWritten++;
          req.progress.chunkWritten();
        });
      } finally {
        req.progress.endWrites();
      }
      written = (await this.readBuffer(req, buffer)) ?? Buffer.alloc(elf.length);
    }
    return buffer;
  }

  /** The ELF bytes of our buffer, or null when it does not exist yet. */
  private async readBuffer(req: DeployRequest, buffer: PublicKey): Promise<Buffer | null> {
    const [info] = await req.rpc.getMultipleAccountsInfo([buffer]);
    if (!info) return null;
    const state = info.owner.equals(UPGRADEABLE_LOADER_ID) ? decodeLoaderState(info.data) : null;
    if (
      state?.kind !== 'buffer' ||
      !state.authority?.equals(req.authority.publicKey) ||
      info.data.length !== BUFFER_METADATA_SIZE + req.elf.length
    ) {
      throw new CliError(
        `account ${buffer.toBase58()} (this deploy's buffer address) holds something else; close it or deploy with another payer`,
      );
    }
    return info.data.subarray(BUFFER_METADATA_SIZE);
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
      signers: signers(req.payer, req.programKeypair!, req.authority),
    };
  }

  /** Bytes of ELF per Write: what is left of 1232 once the rest of the transaction is counted. */
  private chunkSize(req: DeployRequest): number {
    const empty = writeBuffer({
      buffer: PublicKey.default,
      authority: req.authority.publicKey,
      offset: 0,
      bytes: new Uint8Array(0),
    });
    const { transactionInstructions } = withComputeBudget([empty], this.packing(req));
    const overhead = transactionSize(transactionInstructions, req.payer.publicKey);
    // The data length prefix grows from one byte to two past 127 bytes.
    return PACKET_DATA_SIZE - overhead - 1;
  }

  /** Every transaction of the deploy at most: three signatures, the deploy's compute units. */
  private feePerTransaction(req: DeployRequest): number {
    const deploy = withComputeBudget(
      [
        SystemProgram.createAccount({
          fromPubkey: req.payer.publicKey,
          newAccountPubkey: req.programId,
          lamports: 0,
          space: PROGRAM_ACCOUNT_SIZE,
          programId: UPGRADEABLE_LOADER_ID,
        }),
        deployWithMaxDataLen({
          payer: req.payer.publicKey,
          programId: req.programId,
          buffer: PublicKey.default,
          authority: req.authority.publicKey,
          maxDataLen: 0,
        }),
      ],
      this.packing(req),
    );
    return transactionFeeLamports(3, req.computeUnitPrice, deploy.computeUnitLimit);
  }

  private packing(req: DeployRequest) {
    return {
      computeUnits: new LoaderComputeUnits(req.programId),
      computeUnitPrice: req.computeUnitPrice,
    };
  }

  private sender(req: DeployRequest): ResendingSender {
    return new ResendingSender(req.rpc, {
      rpcUrl: req.rpcUrl,
      packing: this.packing(req),
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

/**
 * The buffer's seed: one per program, authority and ELF, so an interrupted deploy of the same
 * bytes finds its buffer, and a different ELF never writes into it. 32 hex characters (the
 * seed limit) of SHA-256.
 */
export function bufferSeed(programId: PublicKey, authority: PublicKey, elf: Buffer): string {
  return createHash('sha256')
    .update(programId.toBuffer())
    .update(authority.toBuffer())
    .update(elf)
    .digest('hex')
    .slice(0, 32);
}

function sameBytes(have: Buffer, want: Buffer, offset: number, size: number): boolean {
  return have.subarray(offset, offset + size).equals(want.subarray(offset, offset + size));
}

/** Each key once, the payer first. */
function signers(...keys: Keypair[]): Keypair[] {
  const seen = new Set<string>();
  return keys.filter((k) => {
    const id = k.publicKey.toBase58();
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
