import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { TAPE_ERROR_MESSAGES, TapeErrorCode } from '../../src/chain/program-errors';
import { alter, truncateAccounts, withData } from './oracle/instruction-alter';
import { InstructionErrorKind } from './program-host';
import { custom, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

interface Case {
  kind: InstructionErrorKind;
  build: (w: ReturnType<typeof setup>) => TransactionInstruction;
  logs: string[];
}

const setup = (world: TapeWorld) => {
  const owner = world.newTape(1000, 10);
  const paying = (payer = owner.payer) => ({
    payer,
    tape: owner.tape,
    mint: world.mint,
    treasury: world.treasury,
  });
  return { world, owner, paying };
};

const programError = (code: TapeErrorCode, instruction: string, detail: string) => [
  `Instruction: ${instruction}`,
  `Error: ${TAPE_ERROR_MESSAGES[code]}`,
  `Detail: ${detail}`,
];

/** Every error the program reports, with the exact lines it logs (docs/program.md, "Errors"). */
const CASES: Record<string, Case> = {
  InsufficientCapacity: {
    kind: custom(TapeErrorCode.InsufficientCapacity),
    build: ({ world, owner }) => world.publishIx(owner, 0, 2000, 2000),
    logs: programError(6000, 'Publish', 'tape has 1000 bytes of capacity, kept versions need 2000'),
  },
  TapeExpired: {
    kind: custom(TapeErrorCode.TapeExpired),
    build: ({ world, owner }) => {
      world.setEpoch(10);
      return world.publishIx(owner, 0, 10, 10);
    },
    logs: programError(6001, 'Publish', 'tape expired at epoch 10'),
  },
  UnauthorizedSigner: {
    kind: custom(TapeErrorCode.UnauthorizedSigner),
    build: ({ world, owner }) =>
      world.publishIx(owner, 0, 10, 10, { signer: Keypair.generate().publicKey }),
    logs: programError(6002, 'Publish', 'signer is neither the tape authority nor its delegate'),
  },
  InsufficientFunds: {
    kind: custom(TapeErrorCode.InsufficientFunds),
    build: ({ world, paying }) =>
      world.ix.extendTape({ ...paying(world.wallet(SOL, 1n)), epochs: 1 }),
    logs: programError(6003, 'ExtendTape', 'payer holds 1 storage-token units, needs 1000'),
  },
  InvalidArgument: {
    kind: custom(TapeErrorCode.InvalidArgument),
    build: ({ world, paying }) => world.ix.extendTape({ ...paying(), epochs: 0 }),
    logs: programError(6004, 'ExtendTape', 'epochs must be >= 1'),
  },
  AccountMismatch: {
    kind: custom(TapeErrorCode.AccountMismatch),
    build: ({ world, owner }) =>
      alter(world.publishIx(owner, 0, 10, 10), 3, { pubkey: Keypair.generate().publicKey }),
    logs: programError(6007, 'Publish', 'wrong config account'),
  },
  AlreadyExists: {
    kind: custom(TapeErrorCode.AlreadyExists),
    build: ({ world }) => world.initConfigIx(),
    logs: programError(6008, 'InitConfig', 'config already initialized'),
  },
  AccountNotFound: {
    kind: custom(TapeErrorCode.AccountNotFound),
    build: ({ world, owner }) =>
      alter(world.publishIx(owner, 0, 10, 10), 2, {
        pubkey: world.pdas.tape(Keypair.generate().publicKey),
      }),
    logs: programError(6009, 'Publish', 'tape does not exist'),
  },
  InvalidAccountData: {
    kind: custom(TapeErrorCode.InvalidAccountData),
    build: ({ world, owner }) =>
      alter(world.publishIx(owner, 0, 10, 10), 2, { pubkey: world.pdas.config() }),
    logs: programError(6010, 'Publish', 'tape: not a Tape account'),
  },
  VersionConflict: {
    kind: custom(TapeErrorCode.VersionConflict),
    build: ({ world, owner }) => world.publishIx(owner, 3, 10, 10),
    logs: programError(6012, 'Publish', 'tape is at sequence 0, not 3'),
  },
  'InvalidInstructionData (unknown tag)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner }) => withData(world.publishIx(owner, 0, 10, 10), Buffer.from([42])),
    logs: ['Error: unknown instruction tag 42'],
  },
  // The per-file instructions' tags (WriteTrack, SetName, CertifyTrack, RemoveName,
  // ReleaseTrack), with data as they had it: unknown since 1.2.0.
  ...Object.fromEntries(
    [5, 6, 7, 8, 9].map((tag) => [
      `InvalidInstructionData (retired tag ${tag})`,
      {
        kind: 'InvalidInstructionData',
        build: ({ world, owner }) =>
          withData(world.publishIx(owner, 0, 10, 10), Buffer.from([tag, 1, 0, 0x61, 0])),
        logs: [`Error: unknown instruction tag ${tag}`],
      } satisfies Case,
    ]),
  ),
  'InvalidInstructionData (truncated)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner }) => withData(world.publishIx(owner, 0, 10, 10), Buffer.from([10, 1])),
    logs: ['Error: unexpected end of data'],
  },
  'InvalidInstructionData (trailing bytes)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner }) =>
      withData(
        world.ix.setDelegate({ authority: owner.authority, delegate: null }),
        Buffer.alloc(36, 0).fill(4, 0, 1),
      ),
    logs: ['Error: 2 trailing bytes'],
  },
  'InvalidInstructionData (u64 past 2^53 - 1)': {
    kind: 'InvalidInstructionData',
    build: ({ world, paying }) => {
      const data = Buffer.alloc(9);
      data[0] = 2;
      data.writeBigUInt64LE(2n ** 53n, 1);
      return withData(world.ix.extendTape({ ...paying(), epochs: 1 }), data);
    },
    logs: ['Error: u64 out of range'],
  },
  NotEnoughAccountKeys: {
    kind: 'NotEnoughAccountKeys',
    build: ({ world, owner }) => truncateAccounts(world.publishIx(owner, 0, 10, 10), 3),
    logs: ['Error: Publish needs 4 accounts'],
  },
};

describe.each(HOSTS)('%s host', (_host, newHost) => {
  describe('TapeProgram: error log lines', () => {
    it.each(Object.entries(CASES))('%s', (_name, c) => {
      const state = setup(TapeWorld.create(newHost()));
      const ix = c.build(state);
      expect(state.world.failure(ix)).toEqual(c.kind);
      expect(state.world.lastLogs).toEqual(c.logs);
    });
  });
});
