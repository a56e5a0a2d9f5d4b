import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { SYSTEM_PROGRAM_ID } from '../../../src/chain/program-ids';
import {
  AccountView,
  Clock,
  CpiAccount,
  InstructionErrorKind,
  InstructionFailure,
  InvokeContext,
  NativeProgram,
} from './native-program';

/**
 * A test double of the local network's runtime: an in-memory account map that runs one
 * instruction at a time with Solana's account rules (who may change data, owner, lamports),
 * CPI privilege checks, lamport balance and rent exemption, and all-or-nothing commits. Any
 * broken rule fails the instruction, so a spec that passes proves the program obeys the model.
 */
export interface StoredAccount {
  lamports: number;
  owner: PublicKey;
  data: Buffer;
  executable: boolean;
}

export interface Outcome {
  error: InstructionErrorKind | null;
  logs: string[];
  /** On failure: whether anything had changed (or a CPI had run) before it failed. */
  effectsBeforeFailure: boolean;
}

export function rentExempt(dataLength: number): number {
  return (128 + dataLength) * 3480 * 2;
}

const MAX_GROWTH_PER_INSTRUCTION = 10_240;

interface Snapshot {
  lamports: number;
  owner: PublicKey;
  data: Buffer;
}

export class TestLedger {
  readonly accounts = new Map<string, StoredAccount>();
  readonly clock: Clock = { slot: 1, unixTimestamp: 1_700_000_000 };
  private readonly programs = new Map<string, NativeProgram>();
  private cpiCount = 0;

  constructor(programs: NativeProgram[]) {
    for (const p of programs) this.programs.set(p.programId.toBase58(), p);
  }

  get(pubkey: PublicKey): StoredAccount | undefined {
    return this.accounts.get(pubkey.toBase58());
  }

  set(pubkey: PublicKey, account: Partial<StoredAccount>): void {
    this.accounts.set(pubkey.toBase58(), {
      lamports: 0,
      owner: SYSTEM_PROGRAM_ID,
      data: Buffer.alloc(0),
      executable: false,
      ...account,
    });
  }

  lamports(pubkey: PublicKey): number {
    return this.get(pubkey)?.lamports ?? 0;
  }

  execute(ix: TransactionInstruction): Outcome {
    const logs: string[] = [];
    const views = this.topLevelViews(ix);
    const before = new Map(views.map((v) => [v.pubkey.toBase58(), snap(v)]));
    this.cpiCount = 0;
    try {
      this.runFrame(ix.programId, views, ix.data, logs);
      this.checkRent(views, before);
    } catch (e) {
      if (!(e instanceof InstructionFailure)) throw e;
      const changed = views.some((v) => !sameState(before.get(v.pubkey.toBase58())!, v));
      return { error: e.kind, logs, effectsBeforeFailure: changed || this.cpiCount > 0 };
    }
    for (const view of views) {
      const key = view.pubkey.toBase58();
      if (view.lamports === 0) this.accounts.delete(key);
      else this.set(view.pubkey, { ...snap(view), executable: view.executable });
    }
    return { error: null, logs, effectsBeforeFailure: false };
  }

  /** One view per distinct account, flags merged over duplicates, as Solana does. */
  private topLevelViews(ix: TransactionInstruction): AccountView[] {
    const byKey = new Map<string, AccountView>();
    const flags = new Map<string, { s: boolean; w: boolean }>();
    for (const k of ix.keys) {
      const f = flags.get(k.pubkey.toBase58()) ?? { s: false, w: false };
      flags.set(k.pubkey.toBase58(), { s: f.s || k.isSigner, w: f.w || k.isWritable });
    }
    return ix.keys.map((k) => {
      const key = k.pubkey.toBase58();
      const existing = byKey.get(key);
      if (existing) return existing;
      const stored = this.accounts.get(key);
      const f = flags.get(key)!;
      const view: AccountView = {
        pubkey: k.pubkey,
        isSigner: f.s,
        isWritable: f.w,
        lamports: stored?.lamports ?? 0,
        owner: stored?.owner ?? SYSTEM_PROGRAM_ID,
        data: Buffer.from(stored?.data ?? Buffer.alloc(0)),
        executable: stored?.executable ?? false,
      };
      byKey.set(key, view);
      return view;
    });
  }

  private runFrame(programId: PublicKey, views: AccountView[], data: Buffer, logs: string[]): void {
    const program = this.programs.get(programId.toBase58());
    if (!program) throw new InstructionFailure('UnsupportedProgramId', programId.toBase58());
    let snapshot = snapAll(views);
    const invokeSigned = (
      callee: PublicKey,
      metas: CpiAccount[],
      cpiData: Buffer,
      seeds: Uint8Array[][],
    ): void => {
      checkRules(programId, snapshot, views);
      const pdaSigners = seeds.map((s) => PublicKey.createProgramAddressSync(s, programId));
      const calleeViews = metas.map((meta) => {
        const base = views.find((v) => v.pubkey.equals(meta.pubkey));
        if (!base) throw new InstructionFailure('MissingAccount', meta.pubkey.toBase58());
        const pdaSigns = pdaSigners.some((k) => k.equals(meta.pubkey));
        if (
          (meta.isWritable && !base.isWritable) ||
          (meta.isSigner && !base.isSigner && !pdaSigns)
        ) {
          throw new InstructionFailure('PrivilegeEscalation', meta.pubkey.toBase58());
        }
        return withFlags(base, meta.isSigner, meta.isWritable);
      });
      this.cpiCount++;
      logs.push(`Program ${callee.toBase58()} invoke`);
      this.runFrame(callee, calleeViews, cpiData, logs);
      snapshot = snapAll(views);
    };
    const ctx: InvokeContext = {
      programId,
      accounts: views,
      data,
      clock: { ...this.clock },
      minimumBalance: rentExempt,
      log: (message) => logs.push(`Program log: ${message}`),
      invoke: (callee, metas, cpiData) => invokeSigned(callee, metas, cpiData, []),
      invokeSigned,
    };
    program.process(ctx);
    checkRules(programId, snapshot, views);
  }

  private checkRent(views: AccountView[], before: Map<string, Snapshot>): void {
    for (const view of unique(views)) {
      const was = before.get(view.pubkey.toBase58())!;
      const changed = was.lamports !== view.lamports || !was.data.equals(view.data);
      if (changed && view.lamports > 0 && view.lamports < rentExempt(view.data.length)) {
        throw new InstructionFailure('InsufficientFundsForRent', view.pubkey.toBase58());
      }
    }
  }
}

/** Solana's per-instruction account rules for what `programId` changed since `pre`. */
function checkRules(programId: PublicKey, pre: Map<string, Snapshot>, views: AccountView[]): void {
  let sumBefore = 0;
  let sumAfter = 0;
  for (const view of unique(views)) {
    const was = pre.get(view.pubkey.toBase58())!;
    const ownedBefore = was.owner.equals(programId);
    const fail = (kind: string): never => {
      throw new InstructionFailure(kind, `${programId.toBase58()} on ${view.pubkey.toBase58()}`);
    };
    if (!Number.isSafeInteger(view.lamports) || view.lamports < 0) fail('InvalidLamports');
    if (!view.owner.equals(was.owner)) {
      if (!ownedBefore || !view.isWritable || view.data.some((b) => b !== 0))
        fail('ModifiedProgramId');
    }
    if (!view.data.equals(was.data)) {
      if (!view.isWritable) fail('ReadonlyDataModified');
      if (!ownedBefore) fail('ExternalAccountDataModified');
      if (view.data.length > was.data.length + MAX_GROWTH_PER_INSTRUCTION) fail('InvalidRealloc');
    }
    if (view.lamports !== was.lamports && !view.isWritable) fail('ReadonlyLamportChange');
    if (view.lamports < was.lamports && !ownedBefore) fail('ExternalAccountLamportSpend');
    sumBefore += was.lamports;
    sumAfter += view.lamports;
  }
  if (sumBefore !== sumAfter)
    throw new InstructionFailure('UnbalancedInstruction', programId.toBase58());
}

function snap(v: AccountView): Snapshot {
  return { lamports: v.lamports, owner: v.owner, data: Buffer.from(v.data) };
}

function sameState(a: Snapshot, v: AccountView): boolean {
  return a.lamports === v.lamports && a.owner.equals(v.owner) && a.data.equals(v.data);
}

function snapAll(views: AccountView[]): Map<string, Snapshot> {
  return new Map(unique(views).map((v) => [v.pubkey.toBase58(), snap(v)]));
}

function unique(views: AccountView[]): AccountView[] {
  const seen = new Set<string>();
  return views.filter((v) => {
    const key = v.pubkey.toBase58();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The callee's view of a caller's account: same state, the CPI's own privileges. */
function withFlags(base: AccountView, isSigner: boolean, isWritable: boolean): AccountView {
  return {
    pubkey: base.pubkey,
    isSigner,
    isWritable,
    executable: base.executable,
    get lamports() {
      return base.lamports;
    },
    set lamports(v: number) {
      base.lamports = v;
    },
    get owner() {
      return base.owner;
    },
    set owner(v: PublicKey) {
      base.owner = v;
    },
    get data() {
      return base.data;
    },
    set data(v: Buffer) {
      base.data = v;
    },
  };
}
