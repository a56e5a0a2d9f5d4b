import { Keypair, PublicKey } from '@solana/web3.js';
import { NO_VERSION, TAPE_SIZE } from '../../src/chain/account-layouts';
import { TapeErrorCode } from '../../src/chain/program-errors';
import {
  DEFAULT_TAPE_PROGRAM_ID,
  MIB,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '../../src/chain/program-ids';
import { storageCost } from '../../src/chain/storage-pricing';
import { alter } from './oracle/instruction-alter';
import { rentExempt } from './oracle/test-ledger';
import { custom, GENESIS, EPOCH_SECS, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

describe.each(HOSTS)('%s host', (_host, newHost) => {
  const MAX_SAFE = Number.MAX_SAFE_INTEGER;

  describe('TapeProgram: CreateTape', () => {
    const setup = (price?: bigint) => {
      const world = TapeWorld.create(newHost(), price);
      const payer = world.wallet(10 * SOL, 1_000_000n);
      const authority = Keypair.generate().publicKey;
      const createIx = (capacity: number, epochs: number, over: { payer?: PublicKey } = {}) =>
        world.ix.createTape({
          payer: over.payer ?? payer,
          authority,
          mint: world.mint,
          treasury: world.treasury,
          capacity,
          epochs,
        });
      return { world, payer, authority, createIx, tape: world.pdas.tape(authority) };
    };

    it('creates the tape, charges ceil(capacity / MiB) x epochs x price tokens and the rent', () => {
      const { world, payer, authority, createIx, tape } = setup();
      world.setEpoch(7);
      const lamportsBefore = world.lamports(payer);
      world.expectOk(createIx(3 * MIB + 1, 5));

      // 4 started MiB x 5 epochs x 1000 units, exactly what storage-pricing estimates.
      expect(world.tokens(world.ata(payer))).toBe(1_000_000n - 20_000n);
      expect(world.tokens(world.treasury)).toBe(20_000n);
      expect(storageCost(3 * MIB + 1, 5, world.price)).toBe(20_000n);
      expect(world.lamports(payer)).toBe(lamportsBefore - rentExempt(TAPE_SIZE));
      expect(world.lamports(tape)).toBe(rentExempt(TAPE_SIZE));
      expect(world.account(tape)!.owner.equals(DEFAULT_TAPE_PROGRAM_ID)).toBe(true);
      expect(world.tapeOf(authority)).toEqual({
        authority,
        delegate: null,
        capacity: 3 * MIB + 1,
        activeEpoch: 7,
        expiryEpoch: 12,
        createdAt: GENESIS + 7 * EPOCH_SECS,
        // Rent goes back only to whoever paid it; no version yet.
        payer,
        ...NO_VERSION,
      });
    });

    it('takes exactly the cost: a payer holding cost - 1 is refused, one holding cost succeeds', () => {
      const { world, createIx } = setup();
      const poor = world.wallet(10 * SOL, 1_999n);
      const ix = (payer: PublicKey) => createIx(MIB, 2, { payer });
      expect(world.failure(ix(poor))).toEqual(custom(TapeErrorCode.InsufficientFunds));
      const exact = world.wallet(10 * SOL, 2_000n);
      world.expectOk(ix(exact));
      expect(world.tokens(world.ata(exact))).toBe(0n);
    });

    it('refuses a capacity or epochs of zero', () => {
      const { world, createIx } = setup();
      expect(world.failure(createIx(0, 1))).toEqual(custom(TapeErrorCode.InvalidArgument));
      expect(world.failure(createIx(1, 0))).toEqual(custom(TapeErrorCode.InvalidArgument));
    });

    it('refuses to create a tape twice', () => {
      const { world, createIx } = setup();
      world.expectOk(createIx(MIB, 1));
      expect(world.failure(createIx(MIB, 1))).toEqual(custom(TapeErrorCode.AlreadyExists));
    });

    it('needs the tape keypair and the payer to sign', () => {
      const { world, createIx } = setup();
      for (const account of [1, 0]) {
        expect(world.failure(alter(createIx(MIB, 1), account, { isSigner: false }))).toEqual(
          custom(TapeErrorCode.UnauthorizedSigner),
        );
      }
    });

    it('refuses a tape address that is not the PDA of the authority, and wrong program accounts', () => {
      const { world, createIx } = setup();
      const other = world.pdas.tape(Keypair.generate().publicKey);
      const wrong: [number, Parameters<typeof alter>[2]][] = [
        [2, { pubkey: other }],
        [2, { isWritable: false }],
        [5, { pubkey: Keypair.generate().publicKey }],
        [6, { pubkey: TOKEN_PROGRAM_ID }],
        [7, { pubkey: SYSTEM_PROGRAM_ID }],
      ];
      for (const [account, change] of wrong) {
        expect(world.failure(alter(createIx(MIB, 1), account, change))).toEqual(
          custom(TapeErrorCode.AccountMismatch),
        );
      }
    });

    it('pays only into the network treasury', () => {
      const { world, createIx } = setup();
      const elsewhere = Keypair.generate().publicKey;
      world.setTokenAccount(elsewhere, Keypair.generate().publicKey, 0n);
      expect(world.failure(alter(createIx(MIB, 1), 4, { pubkey: elsewhere }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
    });

    it("refuses a source that is not the payer's funded ATA of the storage mint", () => {
      const { world, payer, createIx } = setup();
      const insufficient = custom(TapeErrorCode.InsufficientFunds);
      // Someone else's ATA, even a rich one.
      const rich = world.wallet(SOL, 10n ** 9n);
      expect(world.failure(alter(createIx(MIB, 1), 3, { pubkey: world.ata(rich) }))).toEqual(
        insufficient,
      );
      // The right address, but a token account of another mint.
      world.setTokenAccount(world.ata(payer), payer, 10n ** 9n, Keypair.generate().publicKey);
      expect(world.failure(createIx(MIB, 1))).toEqual(insufficient);
      // The right address, but not a token account at all.
      world.setAccount(world.ata(payer), { lamports: SOL });
      expect(world.failure(createIx(MIB, 1))).toEqual(insufficient);
      // The payer's own token account of the right mint, but not at its ATA address.
      world.setAccount(world.ata(payer), { lamports: SOL });
      const side = Keypair.generate().publicKey;
      world.setTokenAccount(side, payer, 10n ** 9n);
      expect(world.failure(alter(createIx(MIB, 1), 3, { pubkey: side }))).toEqual(insufficient);
      // No account there.
      world.removeAccount(world.ata(payer));
      expect(world.failure(createIx(MIB, 1))).toEqual(insufficient);
    });

    it('refuses a payer without the lamports for the rent', () => {
      const { world, createIx } = setup();
      const payer = world.wallet(rentExempt(TAPE_SIZE) - 1, 10n ** 9n);
      expect(world.failure(createIx(MIB, 1, { payer }))).toEqual(
        custom(TapeErrorCode.InsufficientFunds),
      );
    });

    it('computes huge costs exactly instead of overflowing', () => {
      const { world, createIx } = setup();
      const whale = world.wallet(10 * SOL, 2n ** 64n - 1n);
      // 2^33 MiB x 2^52 epochs x price far exceeds u64: nobody can hold it.
      expect(world.failure(createIx(MAX_SAFE, 2 ** 52, { payer: whale }))).toEqual(
        custom(TapeErrorCode.InsufficientFunds),
      );
      // An expiry epoch past 2^53 - 1 could not be read back: refused as an argument.
      world.setEpoch(5);
      expect(world.failure(createIx(1, MAX_SAFE, { payer: whale }))).toEqual(
        custom(TapeErrorCode.InvalidArgument),
      );
    });

    it('needs no token account when storage is free', () => {
      const { world, authority, createIx } = setup(0n);
      world.expectOk(createIx(MIB, 3, { payer: world.wallet() }));
      expect(world.tapeOf(authority).capacity).toBe(MIB);
    });

    it('still creates a tape whose address someone sent lamports to beforehand', () => {
      const { world, tape, createIx, authority } = setup();
      world.setAccount(tape, { lamports: 1_000 });
      world.expectOk(createIx(MIB, 1));
      expect(world.lamports(tape)).toBe(rentExempt(TAPE_SIZE));
      expect(world.tapeOf(authority).capacity).toBe(MIB);
    });
  });
});
