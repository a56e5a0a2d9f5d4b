import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { TAPE_ERROR_MESSAGES, TapeErrorCode } from '../../src/chain/program-errors';
import { alter, truncateAccounts, withData } from './oracle/instruction-alter';
import { InstructionErrorKind } from './program-host';
import { commitmentOf, custom, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

interface Case {
  kind: InstructionErrorKind;
  build: (w: ReturnType<typeof setup>) => TransactionInstruction;
  logs: string[];
}

const setup = (world: TapeWorld) => {
  const owner = world.newTape(1000, 10);
  const track = world.certifiedTrack(owner, 'x');
  world.expectOk(world.writeTrackIx(owner, 'raw'));
  const raw = world.pdas.track(owner.tape, commitmentOf('raw'));
  world.expectOk(world.setNameIx(owner, 'n', track));
  const paying = (payer = owner.payer) => ({
    payer,
    tape: owner.tape,
    mint: world.mint,
    treasury: world.treasury,
  });
  return { world, owner, track, raw, paying };
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
    build: ({ world, owner }) => world.writeTrackIx(owner, 'big', { size: 2000 }),
    logs: programError(6000, 'WriteTrack', 'tape has 996 bytes free, track needs 2000'),
  },
  TapeExpired: {
    kind: custom(TapeErrorCode.TapeExpired),
    build: ({ world, owner }) => {
      world.setEpoch(10);
      return world.writeTrackIx(owner, 'late');
    },
    logs: programError(6001, 'WriteTrack', 'tape expired at epoch 10'),
  },
  UnauthorizedSigner: {
    kind: custom(TapeErrorCode.UnauthorizedSigner),
    build: ({ world, owner }) =>
      world.writeTrackIx(owner, 'y', { signer: Keypair.generate().publicKey }),
    logs: programError(6002, 'WriteTrack', 'signer is neither the tape authority nor its delegate'),
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
  TrackNotCertified: {
    kind: custom(TapeErrorCode.TrackNotCertified),
    build: ({ world, owner, raw }) => world.setNameIx(owner, 'm', raw),
    logs: programError(6005, 'SetName', 'track is not certified'),
  },
  TrackInUse: {
    kind: custom(TapeErrorCode.TrackInUse),
    build: ({ world, owner, track }) =>
      world.ix.releaseTrack({
        receiver: owner.payer,
        signer: owner.authority,
        tape: owner.tape,
        track,
      }),
    logs: programError(6006, 'ReleaseTrack', '1 name(s) point at the track'),
  },
  AccountMismatch: {
    kind: custom(TapeErrorCode.AccountMismatch),
    build: ({ world, owner }) =>
      alter(world.writeTrackIx(owner, 'z'), 4, { pubkey: Keypair.generate().publicKey }),
    logs: programError(6007, 'WriteTrack', 'wrong config account'),
  },
  AlreadyExists: {
    kind: custom(TapeErrorCode.AlreadyExists),
    build: ({ world }) => world.initConfigIx(),
    logs: programError(6008, 'InitConfig', 'config already initialized'),
  },
  AccountNotFound: {
    kind: custom(TapeErrorCode.AccountNotFound),
    build: ({ world, owner }) =>
      world.ix.certifyTrack({
        storageAuthority: world.storageAuthority,
        track: world.pdas.track(owner.tape, commitmentOf('none')),
      }),
    logs: programError(6009, 'CertifyTrack', 'track does not exist'),
  },
  InvalidAccountData: {
    kind: custom(TapeErrorCode.InvalidAccountData),
    build: ({ world, owner }) =>
      world.ix.certifyTrack({ storageAuthority: world.storageAuthority, track: owner.tape }),
    logs: programError(6010, 'CertifyTrack', 'track: not a Track account'),
  },
  InvalidName: {
    kind: custom(TapeErrorCode.InvalidName),
    build: ({ world, owner, track }) =>
      world.rawSetNameIx(owner, '.well-known/acme-challenge/x', track),
    logs: programError(
      6011,
      'SetName',
      'a name segment starts with "." (hidden files and .well-known/ are never published)',
    ),
  },
  VersionConflict: {
    kind: custom(TapeErrorCode.VersionConflict),
    build: ({ world, owner }) => world.publishIx(owner, 3, 10, 10),
    logs: programError(6012, 'Publish', 'tape is at version 0, not 3'),
  },
  'InvalidInstructionData (unknown tag)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner }) => withData(world.writeTrackIx(owner, 'z'), Buffer.from([42])),
    logs: ['Error: unknown instruction tag 42'],
  },
  'InvalidInstructionData (truncated)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner }) => withData(world.writeTrackIx(owner, 'z'), Buffer.from([5, 1])),
    logs: ['Error: unexpected end of data'],
  },
  'InvalidInstructionData (trailing bytes)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner }) => withData(world.writeTrackIx(owner, 'z'), Buffer.from([7, 0, 0])),
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
  'InvalidInstructionData (invalid UTF-8)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner, track }) =>
      withData(world.setNameIx(owner, 'a', track), Buffer.from([6, 2, 0, 0xff, 0xfe, 0])),
    logs: ['Error: invalid UTF-8'],
  },
  'InvalidInstructionData (SetName metadata shorter than its length)': {
    kind: 'InvalidInstructionData',
    build: ({ world, owner, track }) =>
      withData(world.setNameIx(owner, 'a', track), Buffer.from([6, 1, 0, 0x61, 0, 5, 0, 1])),
    logs: ['Error: unexpected end of data'],
  },
  NotEnoughAccountKeys: {
    kind: 'NotEnoughAccountKeys',
    build: ({ world, owner, track }) => truncateAccounts(world.setNameIx(owner, 'a', track), 6),
    logs: ['Error: SetName needs 7 accounts'],
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
