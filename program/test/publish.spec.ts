import { Keypair } from '@solana/web3.js';
import { encodeTape, NO_VERSION } from '../../src/chain/account-layouts';
import { TapeErrorCode } from '../../src/chain/program-errors';
import { Tag } from '../../src/chain/tape-instruction-data';
import { alter, truncateAccounts, withData } from './oracle/instruction-alter';
import { commitmentOf, custom, GENESIS, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

describe.each(HOSTS)('%s host', (_host, newHost) => {
  describe('TapeProgram: Publish', () => {
    const setup = (capacity = 10_000, epochs = 10) => {
      const world = TapeWorld.create(newHost());
      const owner = world.newTape(capacity, epochs);
      return { world, owner, tape: () => world.tapeOf(owner.authority) };
    };

    it('creates tapes with their payer recorded and no version', () => {
      const { owner, tape } = setup();
      expect(tape()).toMatchObject({ payer: owner.payer, ...NO_VERSION });
    });

    it('publishes a first version: the pointer, its bytes, the clock; nothing before it', () => {
      const { world, owner, tape } = setup();
      world.setNow(GENESIS + 100);
      const outcome = world.expectOk(world.publishIx(owner, 0, 600, 600));
      expect(outcome.logs).toEqual(['Instruction: Publish']);
      expect(tape()).toMatchObject({
        version: 1,
        root: commitmentOf('root of version 1'),
        versionBytes: 600,
        keptBytes: 600,
        publishedAt: GENESIS + 100,
        prevVersion: 0,
        prevRoot: NO_VERSION.prevRoot,
        prevVersionBytes: 0,
        capacity: 10_000,
      });
    });

    it('moves the current version to prev_* on each publish; kept bytes are both versions', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.publishIx(owner, 0, 600, 600));
      // Version 2 drops 100 bytes of version 1 and adds 300: 800 bytes, 900 kept.
      world.expectOk(world.publishIx(owner, 1, 800, 300));
      expect(tape()).toMatchObject({
        version: 2,
        root: commitmentOf('root of version 2'),
        versionBytes: 800,
        keptBytes: 900,
        prevVersion: 1,
        prevRoot: commitmentOf('root of version 1'),
        prevVersionBytes: 600,
      });
      // Version 3 adds nothing (a deletion): version 1's bytes are no longer kept.
      world.expectOk(world.publishIx(owner, 2, 500, 0));
      expect(tape()).toMatchObject({
        version: 3,
        versionBytes: 500,
        keptBytes: 800,
        prevVersion: 2,
        prevRoot: commitmentOf('root of version 2'),
        prevVersionBytes: 800,
      });
    });

    it('refuses a stale expected version (compare-and-swap) and names the current one', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.publishIx(owner, 0, 10, 10));
      expect(world.failure(world.publishIx(owner, 0, 10, 10))).toEqual(
        custom(TapeErrorCode.VersionConflict),
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: tape is at version 1, not 0');
      expect(world.failure(world.publishIx(owner, 2, 10, 10))).toEqual(
        custom(TapeErrorCode.VersionConflict),
      );
      expect(tape().version).toBe(1);
    });

    it('needs the storage authority of the config to sign, and the tape authority or delegate', () => {
      const { world, owner } = setup();
      const stranger = Keypair.generate().publicKey;
      const ix = world.publishIx(owner, 0, 10, 10);
      const unauthorized = custom(TapeErrorCode.UnauthorizedSigner);
      expect(
        world.failure(world.publishIx(owner, 0, 10, 10, { storageAuthority: stranger })),
      ).toEqual(unauthorized);
      expect(world.lastLogs.at(-1)).toBe('Detail: only the storage authority certifies versions');
      expect(world.failure(alter(ix, 1, { isSigner: false }))).toEqual(unauthorized);
      expect(world.lastLogs.at(-1)).toBe('Detail: storage authority must sign');
      expect(world.failure(alter(ix, 0, { isSigner: false }))).toEqual(unauthorized);
      expect(world.failure(world.publishIx(owner, 0, 10, 10, { signer: stranger }))).toEqual(
        unauthorized,
      );
      // The tape's own key as "storage authority": still not the config's.
      expect(
        world.failure(world.publishIx(owner, 0, 10, 10, { storageAuthority: owner.authority })),
      ).toEqual(unauthorized);
    });

    it('lets the delegate publish', () => {
      const { world, owner, tape } = setup();
      const delegate = Keypair.generate().publicKey;
      world.expectOk(world.ix.setDelegate({ authority: owner.authority, delegate }));
      world.expectOk(world.publishIx(owner, 0, 10, 10, { signer: delegate }));
      expect(tape().version).toBe(1);
    });

    it('refuses an expired tape', () => {
      const { world, owner } = setup(10_000, 2);
      world.setEpoch(2);
      expect(world.failure(world.publishIx(owner, 0, 10, 10))).toEqual(
        custom(TapeErrorCode.TapeExpired),
      );
    });

    it("keeps the kept versions' bytes within capacity, to the byte", () => {
      const { world, owner, tape } = setup(1_000);
      expect(world.failure(world.publishIx(owner, 0, 1_001, 1_001))).toEqual(
        custom(TapeErrorCode.InsufficientCapacity),
      );
      expect(world.lastLogs.at(-1)).toBe(
        'Detail: tape has 1000 bytes of capacity, kept versions need 1001',
      );
      world.expectOk(world.publishIx(owner, 0, 700, 700));
      // Kept: version 1's 700 and 301 new bytes.
      expect(world.failure(world.publishIx(owner, 1, 301, 301))).toEqual(
        custom(TapeErrorCode.InsufficientCapacity),
      );
      world.expectOk(world.publishIx(owner, 1, 300, 300));
      expect(tape().keptBytes).toBe(1_000);
    });

    it('refuses a zero root and byte counts the previous version cannot account for', () => {
      const { world, owner } = setup();
      const invalid = custom(TapeErrorCode.InvalidArgument);
      expect(world.failure(world.publishIx(owner, 0, 10, 10, { root: Buffer.alloc(32) }))).toEqual(
        invalid,
      );
      expect(world.failure(world.publishIx(owner, 0, 10, 11))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe('Detail: added_bytes exceeds version_bytes');
      // A first version holds only added bytes.
      expect(world.failure(world.publishIx(owner, 0, 11, 10))).toEqual(invalid);
      world.expectOk(world.publishIx(owner, 0, 100, 100));
      expect(world.failure(world.publishIx(owner, 1, 151, 50))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe(
        "Detail: version_bytes exceeds the previous version's bytes plus added_bytes",
      );
      world.expectOk(world.publishIx(owner, 1, 150, 50));
    });

    it('treats malformed data and missing accounts as Solana errors', () => {
      const { world, owner } = setup();
      const ix = world.publishIx(owner, 0, 10, 10);
      const big = Buffer.from(ix.data);
      big.writeBigUInt64LE(2n ** 53n, 1 + 8 + 32);
      expect(world.failure(withData(ix, big))).toBe('InvalidInstructionData');
      expect(world.lastLogs).toEqual(['Error: u64 out of range']);
      expect(world.failure(withData(ix, ix.data.subarray(0, 50)))).toBe('InvalidInstructionData');
      expect(world.failure(truncateAccounts(ix, 3))).toBe('NotEnoughAccountKeys');
      expect(world.lastLogs).toEqual(['Error: Publish needs 4 accounts']);
      expect(ix.data[0]).toBe(Tag.Publish);
    });

    it('checks the tape and config accounts like every instruction', () => {
      const { world, owner } = setup();
      const ix = world.publishIx(owner, 0, 10, 10);
      expect(world.failure(alter(ix, 2, { isWritable: false }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
      const other = world.newTape();
      // Another tape's authority may not publish this one.
      expect(world.failure(world.publishIx(owner, 0, 10, 10, { signer: other.authority }))).toEqual(
        custom(TapeErrorCode.UnauthorizedSigner),
      );
      expect(world.failure(alter(ix, 3, { pubkey: world.wallet(SOL) }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
    });

    it('refuses a version past 2^53 - 1', () => {
      const { world, owner, tape } = setup();
      const address = world.pdas.tape(owner.authority);
      world.setAccount(address, {
        ...world.account(address)!,
        data: encodeTape({ ...tape(), version: MAX_SAFE }),
      });
      expect(world.failure(world.publishIx(owner, MAX_SAFE, 10, 10))).toEqual(
        custom(TapeErrorCode.InvalidArgument),
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: version overflows');
    });
  });
});
