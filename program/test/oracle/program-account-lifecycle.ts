import { PublicKey } from '@solana/web3.js';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID } from '../../../src/chain/program-ids';
import { AccountView, CpiAccount } from './native-program';
import { fail, TapeInvocation } from './tape-invocation';

/** System program instructions (bincode: u32 LE index, then fields). */
export const SystemInstructionData = {
  createAccount(lamports: number, space: number, owner: PublicKey): Buffer {
    const b = Buffer.alloc(52);
    b.writeUInt32LE(0, 0);
    b.writeBigUInt64LE(BigInt(lamports), 4);
    b.writeBigUInt64LE(BigInt(space), 12);
    owner.toBuffer().copy(b, 20);
    return b;
  },
  assign(owner: PublicKey): Buffer {
    const b = Buffer.alloc(36);
    b.writeUInt32LE(1, 0);
    owner.toBuffer().copy(b, 4);
    return b;
  },
  transfer(lamports: number): Buffer {
    const b = Buffer.alloc(12);
    b.writeUInt32LE(2, 0);
    b.writeBigUInt64LE(BigInt(lamports), 4);
    return b;
  },
  allocate(space: number): Buffer {
    const b = Buffer.alloc(12);
    b.writeUInt32LE(8, 0);
    b.writeBigUInt64LE(BigInt(space), 4);
    return b;
  },
};

/** Lamports the payer must add so an account of `space` bytes holding `held` is rent-exempt. */
export function rentShortfall(call: TapeInvocation, space: number, held: number): number {
  return Math.max(0, call.ctx.minimumBalance(space) - held);
}

export function expectPayerHolds(payer: AccountView, lamports: number, what: string): void {
  if (payer.lamports < lamports) {
    fail(
      TapeErrorCode.InsufficientFunds,
      `payer holds ${payer.lamports} lamports, ${what} needs ${lamports}`,
    );
  }
}

/**
 * Creates a rent-exempt account of this program at a PDA, paid by `payer`, through the System
 * program (the only way to take ownership of a fresh address).
 */
export function createProgramAccount(
  call: TapeInvocation,
  payer: AccountView,
  target: AccountView,
  space: number,
  seeds: Buffer[],
  bump: number,
): void {
  const signerSeeds = [[...seeds, Buffer.from([bump])]];
  const rent = call.ctx.minimumBalance(space);
  const payerMeta = { pubkey: payer.pubkey, isSigner: true, isWritable: true };
  const targetMeta = { pubkey: target.pubkey, isSigner: true, isWritable: true };
  if (target.lamports === 0) {
    const data = SystemInstructionData.createAccount(rent, space, call.programId);
    call.ctx.invokeSigned(SYSTEM_PROGRAM_ID, [payerMeta, targetMeta], data, signerSeeds);
  } else {
    fundAllocateAssign(call, payerMeta, targetMeta, rent - target.lamports, space, signerSeeds);
  }
  call.addresses.confirm(seeds, target.pubkey, bump);
}

function fundAllocateAssign(
  call: TapeInvocation,
  payerMeta: CpiAccount,
  targetMeta: CpiAccount,
  topUp: number,
  space: number,
  signerSeeds: Uint8Array[][],
): void {
  // Anyone can send lamports to a PDA before it exists, and CreateAccount refuses an address
  // that holds lamports: top it up, allocate and assign instead, so such a gift cannot block
  // a tape, track or name from ever being created.
  if (topUp > 0) {
    const to = { pubkey: targetMeta.pubkey, isSigner: false, isWritable: true };
    call.ctx.invoke(SYSTEM_PROGRAM_ID, [payerMeta, to], SystemInstructionData.transfer(topUp));
  }
  call.ctx.invokeSigned(
    SYSTEM_PROGRAM_ID,
    [targetMeta],
    SystemInstructionData.allocate(space),
    signerSeeds,
  );
  call.ctx.invokeSigned(
    SYSTEM_PROGRAM_ID,
    [targetMeta],
    SystemInstructionData.assign(call.programId),
    signerSeeds,
  );
}

/**
 * Replaces an owned account's data with `data` of another length and settles rent with the
 * payer: a growing account is topped up from the payer (System transfer, the payer signs), a
 * shrinking one returns its excess to the payer.
 */
export function rewriteResized(
  call: TapeInvocation,
  payer: AccountView,
  target: AccountView,
  data: Buffer,
): void {
  const rent = call.ctx.minimumBalance(data.length);
  if (rent > target.lamports) {
    call.ctx.invoke(
      SYSTEM_PROGRAM_ID,
      [
        { pubkey: payer.pubkey, isSigner: true, isWritable: true },
        { pubkey: target.pubkey, isSigner: false, isWritable: true },
      ],
      SystemInstructionData.transfer(rent - target.lamports),
    );
  } else if (rent < target.lamports) {
    const excess = target.lamports - rent;
    target.lamports -= excess;
    payer.lamports += excess;
  }
  target.data = data;
}

/** Closes an owned account as Solana programs do: lamports to `receiver`, no data, System-owned. */
export function closeProgramAccount(target: AccountView, receiver: AccountView): void {
  // Debit first, then credit, as the C program does (a receiver that is the account itself keeps its lamports).
  const lamports = target.lamports;
  target.lamports = 0;
  receiver.lamports += lamports;
  target.data = Buffer.alloc(0);
  target.owner = SYSTEM_PROGRAM_ID;
}
