import { AccountMeta, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { associatedTokenAddress, TapePdas } from './pdas';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './program-ids';
import { encodeInstructionData, Tag, TapeInstructionData } from './tape-instruction-data';

const w = (pubkey: PublicKey, isSigner = false): AccountMeta => ({
  pubkey,
  isSigner,
  isWritable: true,
});
const ro = (pubkey: PublicKey, isSigner = false): AccountMeta => ({
  pubkey,
  isSigner,
  isWritable: false,
});

/** Builds the tape program's instructions with their accounts in the documented order. */
export class TapeInstructions {
  readonly pdas: TapePdas;

  constructor(readonly programId: PublicKey) {
    this.pdas = new TapePdas(programId);
  }

  initConfig(a: {
    admin: PublicKey;
    mint: PublicKey;
    treasury: PublicKey;
    storageAuthority: PublicKey;
    epochDurationSecs: number;
    genesisTime: number;
    pricePerMibEpoch: bigint;
  }): TransactionInstruction {
    return this.ix(
      [w(a.admin, true), w(this.pdas.config()), ro(a.mint), ro(a.treasury), ro(SYSTEM_PROGRAM_ID)],
      { tag: Tag.InitConfig, ...a },
    );
  }

  createTape(a: {
    payer: PublicKey;
    authority: PublicKey;
    mint: PublicKey;
    treasury: PublicKey;
    capacity: number;
    epochs: number;
  }): TransactionInstruction {
    return this.ix(
      [
        w(a.payer, true),
        ro(a.authority, true),
        w(this.pdas.tape(a.authority)),
        w(associatedTokenAddress(a.payer, a.mint)),
        w(a.treasury),
        ro(this.pdas.config()),
        ro(SYSTEM_PROGRAM_ID),
        ro(TOKEN_PROGRAM_ID),
      ],
      { tag: Tag.CreateTape, capacity: a.capacity, epochs: a.epochs },
    );
  }

  extendTape(a: {
    payer: PublicKey;
    tape: PublicKey;
    mint: PublicKey;
    treasury: PublicKey;
    epochs: number;
  }): TransactionInstruction {
    return this.ix(this.paymentAccounts(a), { tag: Tag.ExtendTape, epochs: a.epochs });
  }

  resizeTape(a: {
    payer: PublicKey;
    tape: PublicKey;
    mint: PublicKey;
    treasury: PublicKey;
    addBytes: number;
  }): TransactionInstruction {
    return this.ix(this.paymentAccounts(a), { tag: Tag.ResizeTape, addBytes: a.addBytes });
  }

  setDelegate(a: { authority: PublicKey; delegate: PublicKey | null }): TransactionInstruction {
    return this.ix([ro(a.authority, true), w(this.pdas.tape(a.authority))], {
      tag: Tag.SetDelegate,
      delegate: a.delegate,
    });
  }

  /**
   * Publishes a new version if the tape is still at `expectedSequence` (else the program
   * answers 6012, `VersionConflictError`). Without `alias` it becomes the current version;
   * with one, the alias points at it and the current version stays. `storageAuthority` signs:
   * its signature certifies that the gateway holds every byte the version references and
   * that `keptBytes` are the unique bytes of the versions kept afterwards. `signer` is the
   * tape's authority or its delegate.
   */
  publish(a: {
    signer: PublicKey;
    storageAuthority: PublicKey;
    tape: PublicKey;
    expectedSequence: number;
    root: Buffer;
    versionBytes: number;
    keptBytes: number;
    alias?: string;
  }): TransactionInstruction {
    return this.ix(
      [ro(a.signer, true), ro(a.storageAuthority, true), w(a.tape), ro(this.pdas.config())],
      {
        tag: Tag.Publish,
        expectedSequence: a.expectedSequence,
        root: a.root,
        versionBytes: a.versionBytes,
        keptBytes: a.keptBytes,
        alias: a.alias ?? '',
      },
    );
  }

  /**
   * Makes a kept version current (rollback, promote): no upload, no certification. The config
   * gives the program the epoch (an expired tape is not rolled back).
   */
  setCurrent(a: {
    signer: PublicKey;
    tape: PublicKey;
    expectedSequence: number;
    version: number;
  }): TransactionInstruction {
    return this.ix([ro(a.signer, true), w(a.tape), ro(this.pdas.config())], {
      tag: Tag.SetCurrent,
      expectedSequence: a.expectedSequence,
      version: a.version,
    });
  }

  /** Removes an alias; its version goes when nothing else keeps it. */
  removeAlias(a: {
    signer: PublicKey;
    tape: PublicKey;
    expectedSequence: number;
    name: string;
  }): TransactionInstruction {
    return this.ix([ro(a.signer, true), w(a.tape)], {
      tag: Tag.RemoveAlias,
      expectedSequence: a.expectedSequence,
      name: a.name,
    });
  }

  /** Sets how many of the newest versions the tape keeps (1..16). */
  setKeep(a: {
    signer: PublicKey;
    tape: PublicKey;
    expectedSequence: number;
    keep: number;
  }): TransactionInstruction {
    return this.ix([ro(a.signer, true), w(a.tape)], {
      tag: Tag.SetKeep,
      expectedSequence: a.expectedSequence,
      keep: a.keep,
    });
  }

  private paymentAccounts(a: {
    payer: PublicKey;
    tape: PublicKey;
    mint: PublicKey;
    treasury: PublicKey;
  }): AccountMeta[] {
    return [
      w(a.payer, true),
      w(a.tape),
      w(associatedTokenAddress(a.payer, a.mint)),
      w(a.treasury),
      ro(this.pdas.config()),
      ro(TOKEN_PROGRAM_ID),
    ];
  }

  private ix(keys: AccountMeta[], data: TapeInstructionData): TransactionInstruction {
    return new TransactionInstruction({
      programId: this.programId,
      keys,
      data: encodeInstructionData(data),
    });
  }
}
