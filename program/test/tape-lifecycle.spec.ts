import { Keypair } from '@solana/web3.js';
import { encodeTape } from '../../src/chain/account-layouts';
import { TapeErrorCode } from '../../src/chain/program-errors';
import { MIB, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { resizeCost } from '../../src/chain/storage-pricing';
import { alter } from './oracle/instruction-alter';
import { custom, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

describe.each(HOSTS)('%s host', (_host, newHost) => {
  const MAX_SAFE = Number.MAX_SAFE_INTEGER;

  describe('TapeProgram: ExtendTape and ResizeTape', () => {
    const setup = () => {
      const world = TapeWorld.create(newHost());
      const owner = world.newTape(MIB, 10);
      const payer = world.wallet(10 * SOL, 10n ** 9n);
      const extendIx = (epochs: number, p = payer) =>
        world.ix.extendTape({
          payer: p,
          tape: owner.tape,
          mint: world.mint,
          treasury: world.treasury,
          epochs,
        });
      const resizeIx = (addBytes: number, p = payer) =>
        world.ix.resizeTape({
          payer: p,
          tape: owner.tape,
          mint: world.mint,
          treasury: world.treasury,
          addBytes,
        });
      return { world, owner, payer, extendIx, resizeIx };
    };

    it('extends by epochs for ceil(capacity / MiB) x epochs x price, paid by anyone', () => {
      const { world, owner, payer, extendIx } = setup();
      world.setEpoch(4);
      const treasury = world.tokens(world.treasury);
      world.expectOk(extendIx(6));
      expect(world.tapeOf(owner.authority).expiryEpoch).toBe(16);
      expect(world.tokens(world.treasury) - treasury).toBe(6_000n);
      expect(world.tokens(world.ata(payer))).toBe(10n ** 9n - 6_000n);
    });

    it('refuses zero epochs, an expired tape and an expiry past 2^53 - 1', () => {
      const { world, extendIx } = setup();
      expect(world.failure(extendIx(0))).toEqual(custom(TapeErrorCode.InvalidArgument));
      expect(world.failure(extendIx(MAX_SAFE - 5))).toEqual(custom(TapeErrorCode.InvalidArgument));
      world.setEpoch(10);
      expect(world.failure(extendIx(1))).toEqual(custom(TapeErrorCode.TapeExpired));
    });

    it('resizes for the added MiB over the epochs left', () => {
      const { world, owner, resizeIx } = setup();
      world.setEpoch(3);
      const treasury = world.tokens(world.treasury);
      world.expectOk(resizeIx(MIB + MIB / 2));
      // ceil(2.5 MiB) - ceil(1 MiB) = 2 MiB, 10 - 3 = 7 epochs left, 1000 per MiB-epoch.
      expect(world.tokens(world.treasury) - treasury).toBe(14_000n);
      expect(resizeCost(MIB, MIB + MIB / 2, 7, world.price)).toBe(14_000n);
      expect(world.tapeOf(owner.authority).capacity).toBe(2 * MIB + MIB / 2);
    });

    it('resizes within a started MiB for nothing', () => {
      const { world, owner, resizeIx } = setup();
      world.expectOk(resizeIx(MIB + 1));
      const treasury = world.tokens(world.treasury);
      world.expectOk(resizeIx(100));
      expect(world.tokens(world.treasury)).toBe(treasury);
      expect(world.tapeOf(owner.authority).capacity).toBe(2 * MIB + 101);
    });

    it('refuses add_bytes of zero, an expired tape, a capacity past 2^53 - 1 and a short payer', () => {
      const { world, resizeIx } = setup();
      expect(world.failure(resizeIx(0))).toEqual(custom(TapeErrorCode.InvalidArgument));
      expect(world.failure(resizeIx(MAX_SAFE))).toEqual(custom(TapeErrorCode.InvalidArgument));
      const poor = world.wallet(SOL, 8_999n); // one MiB for 9 epochs costs 9000
      world.setEpoch(1);
      expect(world.failure(resizeIx(MIB, poor))).toEqual(custom(TapeErrorCode.InsufficientFunds));
      world.setEpoch(10);
      expect(world.failure(resizeIx(1))).toEqual(custom(TapeErrorCode.TapeExpired));
    });

    it('refuses accounts that are not a real tape', () => {
      const { world, owner, extendIx } = setup();
      const ix = extendIx(1);
      // No tape there.
      const missing = world.pdas.tape(Keypair.generate().publicKey);
      expect(world.failure(alter(ix, 1, { pubkey: missing }))).toEqual(
        custom(TapeErrorCode.AccountNotFound),
      );
      // A token account passed as the tape: not the program's.
      expect(world.failure(alter(ix, 1, { pubkey: world.treasury }))).toEqual(
        custom(TapeErrorCode.InvalidAccountData),
      );
      // The program's config passed as the tape: wrong tag.
      expect(world.failure(alter(ix, 1, { pubkey: world.pdas.config() }))).toEqual(
        custom(TapeErrorCode.InvalidAccountData),
      );
      // The tape's own bytes at its own address, but owned by another program.
      const real = world.account(owner.tape)!;
      world.setAccount(owner.tape, { ...real, owner: TOKEN_PROGRAM_ID });
      expect(world.failure(ix)).toEqual(custom(TapeErrorCode.InvalidAccountData));
      world.setAccount(owner.tape, real);
      // A forged copy of the tape at an address that is not its PDA.
      const forged = Keypair.generate().publicKey;
      world.setAccount(forged, { ...world.account(owner.tape)! });
      expect(world.failure(alter(ix, 1, { pubkey: forged }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
      // A read-only tape.
      expect(world.failure(alter(ix, 1, { isWritable: false }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
    });
  });

  describe('TapeProgram: SetDelegate', () => {
    it('sets and clears the delegate; only the authority may', () => {
      const world = TapeWorld.create(newHost());
      const { authority, tape } = world.newTape();
      const delegate = Keypair.generate().publicKey;
      world.expectOk(world.ix.setDelegate({ authority, delegate }));
      expect(world.tapeOf(authority).delegate).toEqual(delegate);

      // The delegate signing as "authority" of the tape is refused.
      const byDelegate = alter(world.ix.setDelegate({ authority, delegate: null }), 0, {
        pubkey: delegate,
      });
      expect(world.failure(byDelegate)).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
      const unsigned = alter(world.ix.setDelegate({ authority, delegate: null }), 0, {
        isSigner: false,
      });
      expect(world.failure(unsigned)).toEqual(custom(TapeErrorCode.UnauthorizedSigner));

      world.expectOk(world.ix.setDelegate({ authority, delegate: null }));
      expect(world.tapeOf(authority).delegate).toBeNull();
      expect(world.account(tape)!.data).toEqual(encodeTape(world.tapeOf(authority)));
    });
  });
});
