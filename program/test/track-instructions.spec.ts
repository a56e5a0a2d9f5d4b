import { Keypair } from '@solana/web3.js';
import { trackSize, TrackKind } from '../../src/chain/account-layouts';
import { TapeErrorCode } from '../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { bareContext } from './oracle/bare-context';
import { alter } from './oracle/instruction-alter';
import { rentExempt } from './oracle/test-ledger';
import { commitmentOf, custom, SOL, TapeWorld } from './tape-world';
import { NativeHost } from './native-host';
import { HOSTS } from './test-hosts';

describe.each(HOSTS)('%s host', (_host, newHost) => {
  const setup = (capacity = 1000) => {
    const world = TapeWorld.create(newHost());
    const owner = world.newTape(capacity, 10);
    return { world, owner, tape: owner.tape };
  };

  describe('TapeProgram: WriteTrack', () => {
    it('creates an uncertified track, counts its bytes and charges the rent to the payer', () => {
      const { world, owner, tape } = setup();
      const before = world.lamports(owner.payer);
      world.expectOk(world.writeTrackIx(owner, 'hello', { contentType: 'text/plain' }));
      expect(world.track(tape, commitmentOf('hello'))).toEqual({
        tape,
        commitment: commitmentOf('hello'),
        size: 5,
        kind: TrackKind.Blob,
        certified: false,
        refs: 0,
        createdAt: world.now,
        contentType: 'text/plain',
      });
      expect(world.tapeOf(owner.authority)).toMatchObject({ used: 5, trackCount: 1 });
      const rent = rentExempt(trackSize('text/plain'));
      expect(world.lamports(owner.payer)).toBe(before - rent);
      expect(world.lamports(world.pdas.track(tape, commitmentOf('hello')))).toBe(rent);
    });

    it('is idempotent: writing the same commitment again changes nothing and costs nothing', () => {
      const { world, owner } = setup();
      world.expectOk(world.writeTrackIx(owner, 'same'));
      const before = world.dump();
      world.expectOk(world.writeTrackIx(owner, 'same', { contentType: 'application/other' }));
      expect(world.dump()).toBe(before);
    });

    it('fills capacity exactly and refuses one byte more', () => {
      const { world, owner } = setup(1000);
      world.expectOk(world.writeTrackIx(owner, 'a', { size: 600 }));
      expect(world.failure(world.writeTrackIx(owner, 'b', { size: 401 }))).toEqual(
        custom(TapeErrorCode.InsufficientCapacity),
      );
      world.expectOk(world.writeTrackIx(owner, 'b', { size: 400 }));
      expect(world.tapeOf(owner.authority).used).toBe(1000);
    });

    it('refuses sizes near 2^53 whose sum with used would pass any capacity', () => {
      const { world, owner } = setup(2 ** 52);
      world.expectOk(world.writeTrackIx(owner, 'a', { size: 1 }));
      expect(
        world.failure(world.writeTrackIx(owner, 'b', { size: Number.MAX_SAFE_INTEGER })),
      ).toEqual(custom(TapeErrorCode.InsufficientCapacity));
    });

    it('accepts the delegate, and refuses it after undelegation, other keys and missing signatures', () => {
      const { world, owner } = setup();
      const delegate = Keypair.generate().publicKey;
      world.expectOk(world.ix.setDelegate({ authority: owner.authority, delegate }));
      world.expectOk(world.writeTrackIx(owner, 'by delegate', { signer: delegate }));
      const unauthorized = custom(TapeErrorCode.UnauthorizedSigner);
      const other = Keypair.generate().publicKey;
      expect(world.failure(world.writeTrackIx(owner, 'x', { signer: other }))).toEqual(
        unauthorized,
      );
      world.expectOk(world.ix.setDelegate({ authority: owner.authority, delegate: null }));

      expect(world.failure(world.writeTrackIx(owner, 'x', { signer: delegate }))).toEqual(
        unauthorized,
      );
      const stranger = Keypair.generate().publicKey;
      expect(world.failure(world.writeTrackIx(owner, 'x', { signer: stranger }))).toEqual(
        unauthorized,
      );
      expect(world.failure(alter(world.writeTrackIx(owner, 'x'), 1, { isSigner: false }))).toEqual(
        unauthorized,
      );
      expect(world.failure(alter(world.writeTrackIx(owner, 'x'), 0, { isSigner: false }))).toEqual(
        unauthorized,
      );
    });

    it('refuses an expired tape, even for a track that already exists', () => {
      const { world, owner } = setup();
      world.expectOk(world.writeTrackIx(owner, 'kept'));
      world.setEpoch(10);
      const expired = custom(TapeErrorCode.TapeExpired);
      expect(world.failure(world.writeTrackIx(owner, 'new'))).toEqual(expired);
      expect(world.failure(world.writeTrackIx(owner, 'kept'))).toEqual(expired);
    });

    it('refuses a track address that is not the PDA of the tape and commitment', () => {
      const { world, owner, tape } = setup();
      const wrong = world.pdas.track(tape, commitmentOf('other'));
      expect(world.failure(alter(world.writeTrackIx(owner, 'x'), 3, { pubkey: wrong }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
      expect(
        world.failure(alter(world.writeTrackIx(owner, 'x'), 3, { isWritable: false })),
      ).toEqual(custom(TapeErrorCode.AccountMismatch));
    });

    it('refuses foreign data sitting at the track address', () => {
      const { world, owner, tape } = setup();
      const address = world.pdas.track(tape, commitmentOf('x'));
      world.setAccount(address, {
        lamports: SOL,
        owner: TOKEN_PROGRAM_ID,
        data: Buffer.alloc(165),
      });
      expect(world.failure(world.writeTrackIx(owner, 'x'))).toEqual(
        custom(TapeErrorCode.InvalidAccountData),
      );
    });

    it('refuses a payer without the rent', () => {
      const { world, owner } = setup();
      const payer = world.wallet(rentExempt(trackSize('text/plain')) - 1);
      expect(world.failure(world.writeTrackIx({ ...owner, payer }, 'x'))).toEqual(
        custom(TapeErrorCode.InsufficientFunds),
      );
    });
  });

  describe('TapeProgram: CertifyTrack', () => {
    it('lets only the storage authority certify, idempotently', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.writeTrackIx(owner, 'x'));
      const track = world.pdas.track(tape, commitmentOf('x'));
      const byOwner = world.ix.certifyTrack({ storageAuthority: owner.authority, track });
      expect(world.failure(byOwner)).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
      const unsigned = alter(
        world.ix.certifyTrack({ storageAuthority: world.storageAuthority, track }),
        0,
        {
          isSigner: false,
        },
      );
      expect(world.failure(unsigned)).toEqual(custom(TapeErrorCode.UnauthorizedSigner));

      world.expectOk(world.ix.certifyTrack({ storageAuthority: world.storageAuthority, track }));
      expect(world.track(tape, commitmentOf('x')).certified).toBe(true);
      const before = world.dump();
      world.expectOk(world.ix.certifyTrack({ storageAuthority: world.storageAuthority, track }));
      expect(world.dump()).toBe(before);
    });

    it('refuses a missing track, a forged one and a wrong config', () => {
      const { world, owner, tape } = setup();
      const certify = (track = world.pdas.track(tape, commitmentOf('x'))) =>
        world.ix.certifyTrack({ storageAuthority: world.storageAuthority, track });
      expect(world.failure(certify())).toEqual(custom(TapeErrorCode.AccountNotFound));

      world.expectOk(world.writeTrackIx(owner, 'x'));
      const forged = Keypair.generate().publicKey;
      world.setAccount(forged, { ...world.account(world.pdas.track(tape, commitmentOf('x')))! });
      expect(world.failure(certify(forged))).toEqual(custom(TapeErrorCode.AccountMismatch));
      expect(world.failure(alter(certify(), 1, { pubkey: owner.tape }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
      // The tape passed where a track belongs: the program's, wrong tag.
      expect(world.failure(certify(owner.tape))).toEqual(custom(TapeErrorCode.InvalidAccountData));
    });
  });

  describe('TapeProgram: ReleaseTrack', () => {
    it('leaves a closed track empty, System-owned and without lamports, so it cannot be revived', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.writeTrackIx(owner, 'gone'));
      const track = world.pdas.track(tape, commitmentOf('gone'));
      const ix = world.ix.releaseTrack({
        receiver: owner.payer,
        signer: owner.authority,
        tape,
        track,
      });
      if (world.host instanceof NativeHost) {
        // What the program itself leaves, before the runtime drops the empty account.
        const ctx = bareContext(world.host, ix);
        world.host.program.process(ctx);
        const closed = ctx.accounts[3];
        expect(closed.pubkey).toEqual(track);
        expect([
          closed.lamports,
          closed.data.length,
          closed.owner.equals(SYSTEM_PROGRAM_ID),
        ]).toEqual([0, 0, true]);
      }
      world.expectOk(ix);
      expect(world.account(track)).toBeUndefined();
    });

    it('closes an unnamed track: capacity back to the tape, rent to the receiver', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.writeTrackIx(owner, 'orphan', { size: 300 }));
      const track = world.pdas.track(tape, commitmentOf('orphan'));
      const rent = world.lamports(track);
      const receiver = world.wallet(SOL);
      world.setEpoch(12); // allowed on an expired tape
      world.expectOk(world.ix.releaseTrack({ receiver, signer: owner.authority, tape, track }));
      expect(world.exists(track)).toBe(false);
      expect(world.lamports(receiver)).toBe(SOL + rent);
      expect(world.tapeOf(owner.authority)).toMatchObject({ used: 0, trackCount: 0 });
    });

    it('refuses a named track, a track of another tape and a stranger', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'named');
      world.expectOk(world.setNameIx(owner, 'index.html', track));
      const release = (over: { signer?: typeof tape; track?: typeof tape } = {}) =>
        world.ix.releaseTrack({
          receiver: owner.payer,
          signer: over.signer ?? owner.authority,
          tape,
          track: over.track ?? track,
        });
      expect(world.failure(release())).toEqual(custom(TapeErrorCode.TrackInUse));

      const other = world.newTape();
      world.expectOk(world.writeTrackIx(other, 'theirs'));
      const theirs = world.pdas.track(other.tape, commitmentOf('theirs'));
      expect(world.failure(release({ track: theirs }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
      world.expectOk(world.writeTrackIx(owner, 'mine'));
      const mine = world.pdas.track(tape, commitmentOf('mine'));
      expect(world.failure(release({ track: mine, signer: other.authority }))).toEqual(
        custom(TapeErrorCode.UnauthorizedSigner),
      );
    });
  });
});
