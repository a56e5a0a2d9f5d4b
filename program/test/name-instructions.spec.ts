import { Keypair, PublicKey } from '@solana/web3.js';
import { nameSize, TrackKind } from '../../src/chain/account-layouts';
import { TapeErrorCode } from '../../src/chain/program-errors';
import { alter } from './oracle/instruction-alter';
import { rentExempt } from './oracle/test-ledger';
import { commitmentOf, custom, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

describe.each(HOSTS)('%s host', (_host, newHost) => {
  const setup = () => {
    const world = TapeWorld.create(newHost());
    const owner = world.newTape(10_000, 10);
    return { world, owner, tape: owner.tape };
  };

  describe('TapeProgram: SetName', () => {
    it('creates the name, references the track and charges the rent to the payer', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, '<h1>hi</h1>');
      const before = world.lamports(owner.payer);
      world.setNow(world.now + 42);
      world.expectOk(world.setNameIx(owner, 'index.html', track, { contentType: 'text/html' }));

      expect(world.nameRecord(tape, 'index.html')).toEqual({
        tape,
        track,
        commitment: commitmentOf('<h1>hi</h1>'),
        size: 11,
        kind: TrackKind.Blob,
        updatedAt: world.now,
        contentType: 'text/html',
        name: 'index.html',
      });
      expect(world.track(tape, commitmentOf('<h1>hi</h1>')).refs).toBe(1);
      expect(world.tapeOf(owner.authority).nameCount).toBe(1);
      const rent = rentExempt(nameSize('index.html', 'text/html'));
      expect(world.lamports(owner.payer)).toBe(before - rent);
      expect(world.lamports(world.pdas.name(tape, 'index.html'))).toBe(rent);
    });

    it('counts every name pointing at a track', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'shared');
      world.expectOk(world.setNameIx(owner, 'a', track));
      world.expectOk(world.setNameIx(owner, 'b', track));
      // Setting a name again on the same track is no new reference.
      world.expectOk(world.setNameIx(owner, 'a', track));
      expect(world.track(tape, commitmentOf('shared')).refs).toBe(2);
      expect(world.tapeOf(owner.authority).nameCount).toBe(2);
    });

    it('repoints a name: the previous track loses a reference and closes at zero', () => {
      const { world, owner, tape } = setup();
      const v1 = world.certifiedTrack(owner, 'version 1');
      const v2 = world.certifiedTrack(owner, 'version 2');
      world.expectOk(world.setNameIx(owner, 'page', v1));
      expect(world.tapeOf(owner.authority)).toMatchObject({ used: 18, trackCount: 2 });
      const v1Rent = world.lamports(v1);
      const payerBefore = world.lamports(owner.payer);

      world.expectOk(world.setNameIx(owner, 'page', v2, { previousTrack: v1 }));
      expect(world.exists(v1)).toBe(false);
      expect(world.lamports(owner.payer)).toBe(payerBefore + v1Rent); // same name size: no realloc
      expect(world.tapeOf(owner.authority)).toMatchObject({ used: 9, trackCount: 1, nameCount: 1 });
      expect(world.track(tape, commitmentOf('version 2')).refs).toBe(1);
      expect(world.nameRecord(tape, 'page').track).toEqual(v2);
    });

    it('keeps a previous track that other names still use', () => {
      const { world, owner, tape } = setup();
      const v1 = world.certifiedTrack(owner, 'v1');
      const v2 = world.certifiedTrack(owner, 'v2');
      world.expectOk(world.setNameIx(owner, 'a', v1));
      world.expectOk(world.setNameIx(owner, 'b', v1));
      world.expectOk(world.setNameIx(owner, 'a', v2, { previousTrack: v1 }));
      expect(world.track(tape, commitmentOf('v1')).refs).toBe(1);
      expect(world.track(tape, commitmentOf('v2')).refs).toBe(1);
    });

    it('requires the previous track when the name points elsewhere', () => {
      const { world, owner } = setup();
      const v1 = world.certifiedTrack(owner, 'v1');
      const v2 = world.certifiedTrack(owner, 'v2');
      const v3 = world.certifiedTrack(owner, 'v3');
      world.expectOk(world.setNameIx(owner, 'page', v1));
      const mismatch = custom(TapeErrorCode.AccountMismatch);
      expect(world.failure(world.setNameIx(owner, 'page', v2))).toEqual(mismatch);
      expect(world.failure(world.setNameIx(owner, 'page', v2, { previousTrack: v3 }))).toEqual(
        mismatch,
      );
      const readOnly = alter(world.setNameIx(owner, 'page', v2, { previousTrack: v1 }), 7, {
        isWritable: false,
      });
      expect(world.failure(readOnly)).toEqual(mismatch);
    });

    it('reallocates the name for a longer or shorter content type, settling rent with the payer', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'doc');
      const address = world.pdas.name(tape, 'doc');
      world.expectOk(world.setNameIx(owner, 'doc', track, { contentType: 'a/b' }));
      const small = rentExempt(nameSize('doc', 'a/b'));
      expect(world.lamports(address)).toBe(small);

      const longType = 'application/vnd.example+json; charset=utf-8';
      let payer = world.lamports(owner.payer);
      world.expectOk(world.setNameIx(owner, 'doc', track, { contentType: longType }));
      const large = rentExempt(nameSize('doc', longType));
      expect(world.account(address)!.data.length).toBe(nameSize('doc', longType));
      expect(world.lamports(address)).toBe(large);
      expect(world.lamports(owner.payer)).toBe(payer - (large - small));

      payer = world.lamports(owner.payer);
      world.expectOk(world.setNameIx(owner, 'doc', track, { contentType: 'a/b' }));
      expect(world.lamports(address)).toBe(small);
      expect(world.lamports(owner.payer)).toBe(payer + (large - small));
      expect(world.nameRecord(tape, 'doc').contentType).toBe('a/b');
      expect(world.track(tape, commitmentOf('doc')).refs).toBe(1);
    });

    it('refuses an uncertified track, an expired tape and a stranger; accepts the delegate', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.writeTrackIx(owner, 'raw'));
      const raw = world.pdas.track(tape, commitmentOf('raw'));
      expect(world.failure(world.setNameIx(owner, 'n', raw))).toEqual(
        custom(TapeErrorCode.TrackNotCertified),
      );

      const track = world.certifiedTrack(owner, 'ok');
      const stranger = Keypair.generate().publicKey;
      expect(world.failure(world.setNameIx(owner, 'n', track, { signer: stranger }))).toEqual(
        custom(TapeErrorCode.UnauthorizedSigner),
      );
      expect(
        world.failure(alter(world.setNameIx(owner, 'n', track), 1, { isSigner: false })),
      ).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
      const delegate = Keypair.generate().publicKey;
      world.expectOk(world.ix.setDelegate({ authority: owner.authority, delegate }));
      world.expectOk(world.setNameIx(owner, 'n', track, { signer: delegate }));

      world.setEpoch(10);
      expect(world.failure(world.setNameIx(owner, 'm', track))).toEqual(
        custom(TapeErrorCode.TapeExpired),
      );
    });

    it('keeps opaque metadata of up to 1024 bytes after the name, and drops it when set again without', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const metadata = Buffer.from([0, 1, 2, 0xff, 0xfe, ...Buffer.from('cache-control')]);
      const payerBefore = world.lamports(owner.payer);
      world.expectOk(world.setNameIx(owner, 'a.html', track, { metadata }));
      expect(world.nameRecord(tape, 'a.html').metadata).toEqual(metadata);
      const size = nameSize('a.html', 'text/html', metadata);
      expect(size).toBe(nameSize('a.html', 'text/html') + 2 + metadata.length);
      expect(world.lamports(owner.payer)).toBe(payerBefore - rentExempt(size));

      // Rewritten without metadata: the tail goes, the account shrinks, the rent comes back.
      world.expectOk(world.setNameIx(owner, 'a.html', track));
      expect(world.nameRecord(tape, 'a.html').metadata).toBeUndefined();
      expect(world.lamports(owner.payer)).toBe(
        payerBefore - rentExempt(nameSize('a.html', 'text/html')),
      );

      const largest = Buffer.alloc(1024, 7);
      world.expectOk(world.setNameIx(owner, 'b', track, { metadata: largest }));
      expect(world.nameRecord(tape, 'b').metadata).toEqual(largest);
      expect(
        world.failure(world.setNameIx(owner, 'c', track, { metadata: Buffer.alloc(1025) })),
      ).toEqual(custom(TapeErrorCode.InvalidArgument));
      expect(world.lastLogs).toContain('Detail: metadata must be at most 1024 bytes, got 1025');
    });

    it('takes names of 1 to 1024 bytes of UTF-8', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const longest = 'é'.repeat(512); // 1024 bytes
      world.expectOk(world.setNameIx(owner, longest, track));
      expect(world.nameRecord(tape, longest).name).toBe(longest);
      const invalid = custom(TapeErrorCode.InvalidArgument);
      expect(world.failure(world.setNameIx(owner, `${longest}a`, track))).toEqual(invalid);
      expect(world.failure(world.setNameIx(owner, '', track))).toEqual(invalid);
    });

    it('refuses hidden names: any segment starting with "." (invalid name, nothing written)', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const hidden = [
        '.env',
        '.well-known/acme-challenge/x',
        'a/.git/config',
        'a/b/.htaccess',
        '.',
        '..',
        'a/../b',
        '/.x',
        'dir/.',
      ];
      for (const name of hidden) {
        expect(world.failure(world.rawSetNameIx(owner, name, track))).toEqual(
          custom(TapeErrorCode.InvalidName),
        );
        expect(world.exists(world.pdas.name(tape, name))).toBe(false);
      }
      // Dots elsewhere in a segment are ordinary names.
      for (const name of ['a.b', 'a./b', 'x/y.z/w', 'well-known/x', 'a..b', '%2eenv']) {
        world.expectOk(world.rawSetNameIx(owner, name, track));
        expect(world.nameRecord(tape, name).name).toBe(name);
      }
      expect(world.tapeOf(owner.authority).nameCount).toBe(6);
    });

    it("checks the name after the signer and before the tape's expiry", () => {
      const { world, owner } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const stranger = Keypair.generate().publicKey;
      const bySigner = alter(world.rawSetNameIx(owner, '.env', track), 1, { pubkey: stranger });
      expect(world.failure(bySigner)).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
      world.setEpoch(10);
      expect(world.failure(world.rawSetNameIx(owner, '.env', track))).toEqual(
        custom(TapeErrorCode.InvalidName),
      );
    });

    it('refuses a name account that is not the PDA of the name, and a track of another tape', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const wrongName = alter(world.setNameIx(owner, 'a', track), 3, {
        pubkey: world.pdas.name(tape, 'b'),
      });
      expect(world.failure(wrongName)).toEqual(custom(TapeErrorCode.AccountMismatch));

      const other = world.newTape();
      const theirs = world.certifiedTrack(other, 'theirs');
      expect(world.failure(world.setNameIx(owner, 'a', theirs))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
    });

    it('refuses a payer without the rent', () => {
      const { world, owner } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const payer = world.wallet(rentExempt(nameSize('a', 'text/html')) - 1);
      expect(world.failure(world.setNameIx({ ...owner, payer }, 'a', track))).toEqual(
        custom(TapeErrorCode.InsufficientFunds),
      );
    });
  });

  describe('TapeProgram: RemoveName', () => {
    const remove = (
      world: TapeWorld,
      owner: { authority: PublicKey; tape: PublicKey },
      name: string,
      track: PublicKey,
      receiver: PublicKey,
      signer = owner.authority,
    ) => world.ix.removeName({ receiver, signer, tape: owner.tape, name, track });

    it('closes the name and, with its last reference, the track: capacity and rent come back', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'content', 700);
      world.expectOk(world.setNameIx(owner, 'a', track));
      world.expectOk(world.setNameIx(owner, 'b', track));
      const receiver = world.wallet(SOL);
      const nameRent = world.lamports(world.pdas.name(tape, 'a'));
      const trackRent = world.lamports(track);

      world.expectOk(remove(world, owner, 'a', track, receiver));
      expect(world.exists(world.pdas.name(tape, 'a'))).toBe(false);
      expect(world.lamports(receiver)).toBe(SOL + nameRent);
      expect(world.track(tape, commitmentOf('content')).refs).toBe(1);
      expect(world.tapeOf(owner.authority)).toMatchObject({
        nameCount: 1,
        used: 700,
        trackCount: 1,
      });

      world.setEpoch(11); // allowed on an expired tape
      world.expectOk(remove(world, owner, 'b', track, receiver));
      expect(world.exists(track)).toBe(false);
      expect(world.lamports(receiver)).toBe(SOL + 2 * nameRent + trackRent);
      expect(world.tapeOf(owner.authority)).toMatchObject({ nameCount: 0, used: 0, trackCount: 0 });
    });

    it('refuses a missing name, the wrong track and a stranger', () => {
      const { world, owner } = setup();
      const track = world.certifiedTrack(owner, 'x');
      const other = world.certifiedTrack(owner, 'y');
      expect(world.failure(remove(world, owner, 'nope', track, owner.payer))).toEqual(
        custom(TapeErrorCode.AccountNotFound),
      );
      world.expectOk(world.setNameIx(owner, 'a', track));
      expect(world.failure(remove(world, owner, 'a', other, owner.payer))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
      const stranger = Keypair.generate().publicKey;
      expect(world.failure(remove(world, owner, 'a', track, owner.payer, stranger))).toEqual(
        custom(TapeErrorCode.UnauthorizedSigner),
      );
      expect(
        world.failure(alter(remove(world, owner, 'a', track, owner.payer), 0, { isSigner: false })),
      ).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
    });

    it('lets the name be set again after removal', () => {
      const { world, owner, tape } = setup();
      const track = world.certifiedTrack(owner, 'x');
      world.expectOk(world.setNameIx(owner, 'a', track));
      world.expectOk(remove(world, owner, 'a', track, owner.payer));
      const again = world.certifiedTrack(owner, 'x'); // the track closed with its last name
      world.expectOk(world.setNameIx(owner, 'a', again));
      expect(world.nameRecord(tape, 'a').track).toEqual(again);
    });
  });
});
