import { PublicKey } from '@solana/web3.js';
import { LayoutError } from '../../../src/chain/byte-codec';
import { TAPE_ERROR_MESSAGES, TapeProgramError } from '../../../src/chain/program-errors';
import { ASSOCIATED_TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';
import {
  decodeInstructionData,
  Tag,
  TapeInstructionData,
} from '../../../src/chain/tape-instruction-data';
import { InstructionFailure, InvokeContext, NativeProgram } from './native-program';
import { initConfig } from './init-config';
import { ProgramAddressCache } from './program-address-cache';
import { publish, removeAlias, setCurrent, setKeep } from './publish';
import { createTape, extendTape, resizeTape, setDelegate } from './tape-lifecycle';
import { TapeInvocation } from './tape-invocation';
import { TapeSeeds } from './tape-seeds';

/** Accounts each instruction needs at least (docs/program.md, "Instructions"). */
const REQUIRED_ACCOUNTS: Record<Tag, number> = {
  [Tag.InitConfig]: 5,
  [Tag.CreateTape]: 8,
  [Tag.ExtendTape]: 6,
  [Tag.ResizeTape]: 6,
  [Tag.SetDelegate]: 2,
  [Tag.Publish]: 4,
  [Tag.SetCurrent]: 3,
  [Tag.RemoveAlias]: 2,
  [Tag.SetKeep]: 2,
};

/**
 * The tape program (docs/program.md) in TypeScript: the model the SBF build (program/src,
 * program/tape.so) is tested against, instruction by instruction (the parity specs) and over
 * random sequences (differential.spec.ts). Production runs only the ELF. Every check comes
 * before any effect; a failure throws and the test runtime rolls the instruction back.
 */
export class TapeProgram implements NativeProgram {
  private readonly addresses: ProgramAddressCache;
  private readonly ataAddresses = new ProgramAddressCache(ASSOCIATED_TOKEN_PROGRAM_ID, 4_096);
  private readonly configAddress: PublicKey;

  constructor(readonly programId: PublicKey) {
    this.addresses = new ProgramAddressCache(programId);
    this.configAddress = this.addresses.find(TapeSeeds.config()).address;
  }

  process(ctx: InvokeContext): void {
    const data = decode(ctx);
    if (ctx.accounts.length < REQUIRED_ACCOUNTS[data.tag]) {
      reject(
        ctx,
        'NotEnoughAccountKeys',
        `${Tag[data.tag]} needs ${REQUIRED_ACCOUNTS[data.tag]} accounts`,
      );
    }
    ctx.log(`Instruction: ${Tag[data.tag]}`);
    const call = new TapeInvocation(ctx, this.addresses, this.ataAddresses, this.configAddress);
    try {
      run(call, data);
    } catch (e) {
      if (!(e instanceof TapeProgramError)) throw e;
      const message = TAPE_ERROR_MESSAGES[e.code];
      ctx.log(`Error: ${message}`);
      if (e.detail) ctx.log(`Detail: ${e.detail}`);
      throw new InstructionFailure({ Custom: e.code }, message);
    }
  }
}

function run(call: TapeInvocation, data: TapeInstructionData): void {
  switch (data.tag) {
    case Tag.InitConfig:
      return initConfig(call, data);
    case Tag.CreateTape:
      return createTape(call, data);
    case Tag.ExtendTape:
      return extendTape(call, data);
    case Tag.ResizeTape:
      return resizeTape(call, data);
    case Tag.SetDelegate:
      return setDelegate(call, data);
    case Tag.Publish:
      return publish(call, data);
    case Tag.SetCurrent:
      return setCurrent(call, data);
    case Tag.RemoveAlias:
      return removeAlias(call, data);
    case Tag.SetKeep:
      return setKeep(call, data);
  }
}

function decode(ctx: InvokeContext): TapeInstructionData {
  try {
    return decodeInstructionData(ctx.data);
  } catch (e) {
    if (e instanceof LayoutError) reject(ctx, 'InvalidInstructionData', e.message);
    throw e;
  }
}

/** Failures that are Solana's own errors rather than the program's (malformed input). */
function reject(ctx: InvokeContext, kind: string, detail: string): never {
  ctx.log(`Error: ${detail}`);
  throw new InstructionFailure(kind, detail);
}
