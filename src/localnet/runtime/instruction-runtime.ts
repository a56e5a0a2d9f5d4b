import { PublicKey } from '@solana/web3.js';
import { LayoutError } from '../../chain/byte-codec';
import { TapeProgramError } from '../../chain/program-errors';
import { describeInstructionError } from '../transactions/instruction-errors';
import { InvokeFrame } from './invoke-frame';
import { LogCollector } from './log-collector';
import {
  Clock,
  CpiAccount,
  InstructionFailure,
  InvokeContext,
  NativeProgram,
} from './native-program';
import { ProgramAddressDeriver } from './program-address';
import { ProgramRegistry } from './program-registry';
import { minimumBalance } from '../transactions/rent';
import { AccountHandle } from './transaction-account';

/** Solana allows a top-level instruction plus four nested CPI levels. */
const MAX_INVOKE_DEPTH = 5;
/** Native built-ins cost a flat amount of compute; reported, never enforced. */
const UNITS_PER_INVOCATION = 150;

/**
 * Runs one transaction's instructions: each program gets an `InvokeContext`, its account changes
 * are checked by an `InvokeFrame` when it returns (and before it makes a CPI), and Solana's log
 * lines are written around every invocation. Any failure aborts the transaction: the caller
 * throws the overlay away.
 */
export class InstructionRuntime {
  readonly logs = new LogCollector();
  unitsConsumed = 0;
  private readonly stack: InvokeFrame[] = [];
  /** The first failure: it aborts the transaction even if a caller catches what `invoke` threw. */
  private abort: InstructionFailure | null = null;

  constructor(
    private readonly registry: ProgramRegistry,
    private readonly addresses: ProgramAddressDeriver,
    private readonly clock: Clock,
  ) {}

  /** Runs a top-level instruction; throws `InstructionFailure`. */
  execute(programId: PublicKey, handles: AccountHandle[], data: Buffer): void {
    const program = this.registry.get(programId);
    if (!program) throw new InstructionFailure('UnsupportedProgramId', '');
    this.invoke(program, handles, data);
  }

  private invoke(program: NativeProgram, handles: AccountHandle[], data: Buffer): void {
    const id = base58Of(program.programId);
    const depth = this.stack.length + 1;
    this.logs.push(`Program ${id} invoke [${depth}]`);
    this.unitsConsumed += UNITS_PER_INVOCATION;
    const frame = new InvokeFrame(program.programId, depth, handles);
    this.stack.push(frame);
    try {
      program.process(this.context(frame, handles, data));
      if (this.abort) throw this.abort;
      frame.verify();
    } catch (err) {
      const failure = this.abort ?? this.asFailure(err);
      this.abort = failure;
      // Every level of a failed CPI chain logs its own `failed` line, as Solana does.
      this.logs.push(`Program ${id} failed: ${describeInstructionError(failure.kind)}`);
      throw failure;
    } finally {
      this.stack.pop();
    }
    this.logs.push(`Program ${id} success`);
  }

  /**
   * Programs log their own failures before throwing `InstructionFailure` (docs/program.md:
   * `Program log: Error: <message>`); anything else that escapes a program is logged here.
   */
  private asFailure(err: unknown): InstructionFailure {
    if (err instanceof InstructionFailure) return err;
    if (err instanceof TapeProgramError) {
      this.logs.push(`Program log: Error: ${err.message}`);
      return new InstructionFailure({ Custom: err.code }, err.message);
    }
    if (err instanceof LayoutError) {
      this.logs.push(`Program log: Error: ${err.message}`);
      return new InstructionFailure('InvalidInstructionData', err.message);
    }
    const message = err instanceof Error ? err.message : String(err);
    this.logs.push(`Program log: panicked: ${message}`);
    return new InstructionFailure('ProgramFailedToComplete', message);
  }

  private context(frame: InvokeFrame, handles: AccountHandle[], data: Buffer): InvokeContext {
    return {
      programId: frame.programId,
      accounts: handles,
      data,
      clock: { ...this.clock },
      minimumBalance,
      log: (message: string) => this.logs.push(`Program log: ${message}`),
      invoke: (programId, accounts, ixData) => this.cpi(frame, programId, accounts, ixData, []),
      invokeSigned: (programId, accounts, ixData, seeds) =>
        this.cpi(frame, programId, accounts, ixData, seeds),
    };
  }

  private cpi(
    caller: InvokeFrame,
    programId: PublicKey,
    metas: CpiAccount[],
    data: Buffer,
    seeds: Uint8Array[][],
  ): void {
    if (this.stack[this.stack.length - 1] !== caller) {
      throw new InstructionFailure('GenericError', 'invoke called outside its own program');
    }
    if (caller.depth >= MAX_INVOKE_DEPTH) throw new InstructionFailure('CallDepth', '');
    const signers = new Set<string>();
    for (const seedSet of seeds) {
      const address = this.addresses.derive(seedSet, caller.programId);
      if (address === null) throw new InstructionFailure('InvalidSeeds', '');
      signers.add(address);
    }
    const program = this.registry.get(programId);
    if (!program) {
      this.logs.push(`Program log: Unknown program ${programId.toBase58()}`);
      throw new InstructionFailure('UnsupportedProgramId', '');
    }
    const handles = metas.map((meta) => {
      const found = caller.find(meta.pubkey);
      if (!found) {
        this.logs.push(
          `Program log: Instruction references an unknown account ${meta.pubkey.toBase58()}`,
        );
        throw new InstructionFailure('MissingAccount', '');
      }
      if (meta.isWritable && !found.privileges.writable) {
        this.logs.push(`Program log: ${meta.pubkey.toBase58()}'s writable privilege escalated`);
        throw new InstructionFailure('PrivilegeEscalation', '');
      }
      const pdaSigner = signers.has(found.account.keyBytes.toString('base64'));
      if (meta.isSigner && !found.privileges.signer && !pdaSigner) {
        this.logs.push(`Program log: ${meta.pubkey.toBase58()}'s signer privilege escalated`);
        throw new InstructionFailure('PrivilegeEscalation', '');
      }
      return new AccountHandle(found.account, meta.isSigner, meta.isWritable);
    });
    caller.verify();
    this.invoke(program, handles, data);
    caller.rebaseline();
  }
}

/** Program ids appear in four log lines per call; base58 costs ~15 µs, so compute it once. */
const names = new WeakMap<PublicKey, string>();

function base58Of(key: PublicKey): string {
  let name = names.get(key);
  if (name === undefined) {
    name = key.toBase58();
    names.set(key, name);
  }
  return name;
}
