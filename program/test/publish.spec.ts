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

    it('creates tapes with their payer recorded, no version, keep 10', () => {
      const { owner, tape } = setup();
      expect(tape()).toMatchObject({ payer: owner.payer, ...NO_VERSION, keep: 10 });
    });

    it('publishes a first version: current, latest, sequence, its history entry with the clock', () => {
      const { world, owner, tape } = setup();
      world.setNow(GENESIS + 100);
      const outcome = world.expectOk(world.publishIx(owner, 0, 600, 600));
      expect(outcome.logs).toEqual(['Instruction: Publish']);
      expect(tape()).toMatchObject({
        version: 1,
        latestVersion: 1,
        sequence: 1,
        keptBytes: 600,
        history: [
          {
            version: 1,
            root: commitmentOf('root of version 1'),
            bytes: 600,
            publishedAt: GENESIS + 100,
          },
        ],
        aliases: [],
        capacity: 10_000,
      });
    });

    it('keeps the newest `keep` versions and evicts the older ones', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.setKeepIx(owner, 0, 2));
      world.expectOk(world.publishIx(owner, 1, 600, 600));
      world.expectOk(world.publishIx(owner, 2, 800, 900));
      expect(tape().history.map((v) => v.version)).toEqual([1, 2]);
      world.expectOk(world.publishIx(owner, 3, 500, 800));
      expect(tape()).toMatchObject({ version: 3, latestVersion: 3, sequence: 4, keptBytes: 800 });
      expect(tape().history.map((v) => [v.version, v.bytes])).toEqual([
        [2, 800],
        [3, 500],
      ]);
    });

    it('publishes under an alias without touching the current version; the alias keeps it', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.publishIx(owner, 0, 100, 100));
      world.expectOk(world.publishIx(owner, 1, 100, 200, { alias: 'pr-42' }));
      expect(tape()).toMatchObject({
        version: 1,
        latestVersion: 2,
        sequence: 2,
        aliases: [{ name: 'pr-42', version: 2 }],
      });
      // Re-publishing the alias moves it; keep 1 then evicts version 2 (no longer aliased).
      world.expectOk(world.setKeepIx(owner, 2, 1));
      expect(tape().history.map((v) => v.version)).toEqual([1, 2]);
      world.expectOk(world.publishIx(owner, 3, 100, 200, { alias: 'pr-42' }));
      expect(tape().aliases).toEqual([{ name: 'pr-42', version: 3 }]);
      expect(tape().history.map((v) => v.version)).toEqual([1, 3]);
    });

    it('refuses invalid alias names and a ninth alias', () => {
      const { world, owner, tape } = setup(1_000_000);
      const invalid = custom(TapeErrorCode.InvalidArgument);
      for (const alias of ['v7', 'a--b', '-a', 'a-', 'Caps', 'a_b', 'é']) {
        expect(world.failure(world.publishIx(owner, 0, 10, 10, { alias }))).toEqual(invalid);
        expect(world.lastLogs.at(-1)).toBe('Detail: invalid alias name');
      }
      for (let i = 0; i < 8; i++) {
        world.expectOk(world.publishIx(owner, i, 10, 10, { alias: `a${i}` }));
      }
      expect(world.failure(world.publishIx(owner, 8, 10, 10, { alias: 'a8' }))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe('Detail: a tape has at most 8 aliases');
      // An existing one may still move, and a live Publish needs no alias slot.
      world.expectOk(world.publishIx(owner, 8, 10, 10, { alias: 'a0' }));
      world.expectOk(world.publishIx(owner, 9, 10, 10));
      expect(tape().aliases).toHaveLength(8);
      // 8 aliased, current, and 10 newest: 8 aliased versions are all among the 10 newest.
      expect(tape().history.length).toBeLessThanOrEqual(10);
    });

    it('refuses a stale expected sequence (compare-and-swap) and names the current one', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.publishIx(owner, 0, 10, 10));
      expect(world.failure(world.publishIx(owner, 0, 10, 10))).toEqual(
        custom(TapeErrorCode.VersionConflict),
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: tape is at sequence 1, not 0');
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

    it('keeps the certified kept bytes within capacity, to the byte', () => {
      const { world, owner, tape } = setup(1_000);
      expect(world.failure(world.publishIx(owner, 0, 1_001, 1_001))).toEqual(
        custom(TapeErrorCode.InsufficientCapacity),
      );
      expect(world.lastLogs.at(-1)).toBe(
        'Detail: tape has 1000 bytes of capacity, kept versions need 1001',
      );
      world.expectOk(world.publishIx(owner, 0, 700, 700));
      expect(world.failure(world.publishIx(owner, 1, 301, 1_001))).toEqual(
        custom(TapeErrorCode.InsufficientCapacity),
      );
      world.expectOk(world.publishIx(owner, 1, 300, 1_000));
      expect(tape().keptBytes).toBe(1_000);
    });

    it('refuses a zero root and version bytes past the kept bytes', () => {
      const { world, owner } = setup();
      const invalid = custom(TapeErrorCode.InvalidArgument);
      expect(world.failure(world.publishIx(owner, 0, 10, 10, { root: Buffer.alloc(32) }))).toEqual(
        invalid,
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: root must not be zero');
      expect(world.failure(world.publishIx(owner, 0, 11, 10))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe('Detail: version_bytes exceeds kept_bytes');
      world.expectOk(world.publishIx(owner, 0, 10, 10));
    });

    it('treats malformed data and missing accounts as Solana errors', () => {
      const { world, owner } = setup();
      const ix = world.publishIx(owner, 0, 10, 10);
      const big = Buffer.from(ix.data);
      big.writeBigUInt64LE(2n ** 53n, 1 + 8 + 32);
      expect(world.failure(withData(ix, big))).toBe('InvalidInstructionData');
      expect(world.lastLogs).toEqual(['Error: u64 out of range']);
      const longAlias = Buffer.from(ix.data);
      longAlias[57] = 25;
      expect(world.failure(withData(ix, longAlias))).toBe('InvalidInstructionData');
      expect(world.lastLogs).toEqual(['Error: alias length 25 exceeds 24']);
      expect(world.failure(withData(ix, ix.data.subarray(0, 60)))).toBe('InvalidInstructionData');
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
      expect(world.failure(world.publishIx(owner, 0, 10, 10, { signer: other.authority }))).toEqual(
        custom(TapeErrorCode.UnauthorizedSigner),
      );
      expect(world.failure(alter(ix, 3, { pubkey: world.wallet(SOL) }))).toEqual(
        custom(TapeErrorCode.AccountMismatch),
      );
    });

    it('refuses a version or a sequence past 2^53 - 1', () => {
      const { world, owner, tape } = setup();
      const address = world.pdas.tape(owner.authority);
      world.setAccount(address, {
        ...world.account(address)!,
        data: encodeTape({ ...tape(), latestVersion: MAX_SAFE }),
      });
      expect(world.failure(world.publishIx(owner, 0, 10, 10))).toEqual(
        custom(TapeErrorCode.InvalidArgument),
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: version overflows');
      world.setAccount(address, {
        ...world.account(address)!,
        data: encodeTape({ ...tape(), latestVersion: 0, sequence: MAX_SAFE }),
      });
      expect(world.failure(world.publishIx(owner, MAX_SAFE, 10, 10))).toEqual(
        custom(TapeErrorCode.InvalidArgument),
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: sequence overflows');
    });
  });
});
