import { Keypair } from '@solana/web3.js';
import { TapeErrorCode } from '../../src/chain/program-errors';
import { truncateAccounts } from './oracle/instruction-alter';
import { custom, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

describe.each(HOSTS)('%s host', (_host, newHost) => {
  describe('TapeProgram: SetCurrent, RemoveAlias, SetKeep', () => {
    /** A tape with versions 1..3 published live (sequence 3). */
    const setup = (epochs = 10) => {
      const world = TapeWorld.create(newHost());
      const owner = world.newTape(10_000, epochs);
      for (let s = 0; s < 3; s++) world.expectOk(world.publishIx(owner, s, 100, 100 * (s + 1)));
      return { world, owner, tape: () => world.tapeOf(owner.authority) };
    };
    const invalid = custom(TapeErrorCode.InvalidArgument);

    it('rolls back to a kept version in one instruction; the later ones stay kept', () => {
      const { world, owner, tape } = setup();
      const outcome = world.expectOk(world.setCurrentIx(owner, 3, 1));
      expect(outcome.logs).toEqual(['Instruction: SetCurrent']);
      expect(tape()).toMatchObject({ version: 1, latestVersion: 3, sequence: 4, keptBytes: 300 });
      expect(tape().history.map((v) => v.version)).toEqual([1, 2, 3]);
      // The next Publish is version 4, live.
      world.expectOk(world.publishIx(owner, 4, 100, 400));
      expect(tape()).toMatchObject({ version: 4, latestVersion: 4 });
    });

    it('refuses a version the tape does not keep, a stale sequence, an expired tape', () => {
      const { world, owner, tape } = setup(2);
      expect(world.failure(world.setCurrentIx(owner, 3, 7))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe('Detail: version 7 is not kept');
      expect(world.failure(world.setCurrentIx(owner, 3, 0))).toEqual(invalid);
      expect(world.failure(world.setCurrentIx(owner, 2, 1))).toEqual(
        custom(TapeErrorCode.VersionConflict),
      );
      expect(world.lastLogs.at(-1)).toBe('Detail: tape is at sequence 3, not 2');
      const stranger = Keypair.generate().publicKey;
      expect(world.failure(world.setCurrentIx(owner, 3, 1, stranger))).toEqual(
        custom(TapeErrorCode.UnauthorizedSigner),
      );
      world.setEpoch(2);
      expect(world.failure(world.setCurrentIx(owner, 3, 1))).toEqual(
        custom(TapeErrorCode.TapeExpired),
      );
      expect(tape().version).toBe(3);
      expect(world.failure(truncateAccounts(world.setCurrentIx(owner, 3, 1), 2))).toBe(
        'NotEnoughAccountKeys',
      );
      expect(world.lastLogs).toEqual(['Error: SetCurrent needs 3 accounts']);
    });

    it('promotes an alias, and removes one: its version goes once nothing keeps it', () => {
      const { world, owner, tape } = setup();
      world.expectOk(world.setKeepIx(owner, 3, 1));
      // Keep 1: only the current version 3 is left.
      expect(tape().history.map((v) => v.version)).toEqual([3]);
      world.expectOk(world.publishIx(owner, 4, 100, 200, { alias: 'staging' }));
      expect(tape().history.map((v) => v.version)).toEqual([3, 4]);
      world.expectOk(world.setCurrentIx(owner, 5, 4));
      expect(tape()).toMatchObject({ version: 4, aliases: [{ name: 'staging', version: 4 }] });
      // Version 3 left the kept set with the promote.
      expect(tape().history.map((v) => v.version)).toEqual([4]);
      world.expectOk(world.publishIx(owner, 6, 100, 200, { alias: 'pr-1' }));
      world.expectOk(world.setCurrentIx(owner, 7, 4));
      expect(tape().history.map((v) => v.version)).toEqual([4, 5]);
      const removed = world.expectOk(world.removeAliasIx(owner, 8, 'pr-1'));
      expect(removed.logs).toEqual(['Instruction: RemoveAlias']);
      // Version 5 is the newest: keep 1 still keeps it.
      expect(tape()).toMatchObject({ sequence: 9, aliases: [{ name: 'staging', version: 4 }] });
      world.expectOk(world.removeAliasIx(owner, 9, 'staging'));
      expect(tape().aliases).toEqual([]);
      expect(tape().history.map((v) => v.version)).toEqual([4, 5]);
    });

    it('refuses to remove an unknown or invalid alias', () => {
      const { world, owner, tape } = setup();
      expect(world.failure(world.removeAliasIx(owner, 3, 'nope'))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe('Detail: no alias nope');
      expect(world.failure(world.removeAliasIx(owner, 3, 'v2'))).toEqual(invalid);
      expect(world.lastLogs.at(-1)).toBe('Detail: invalid alias name');
      expect(world.failure(world.removeAliasIx(owner, 2, 'nope'))).toEqual(
        custom(TapeErrorCode.VersionConflict),
      );
      expect(tape().sequence).toBe(3);
    });

    it('sets keep to 1..16 and evicts at once what falls out', () => {
      const { world, owner, tape } = setup();
      for (const keep of [0, 17]) {
        expect(world.failure(world.setKeepIx(owner, 3, keep))).toEqual(invalid);
        expect(world.lastLogs.at(-1)).toBe('Detail: keep must be 1..16');
      }
      world.expectOk(world.setCurrentIx(owner, 3, 1));
      const outcome = world.expectOk(world.setKeepIx(owner, 4, 1));
      expect(outcome.logs).toEqual(['Instruction: SetKeep']);
      // Current 1 and the newest, 3.
      expect(tape()).toMatchObject({ keep: 1, sequence: 5 });
      expect(tape().history.map((v) => v.version)).toEqual([1, 3]);
      world.expectOk(world.setKeepIx(owner, 5, 16));
      expect(tape().history.map((v) => v.version)).toEqual([1, 3]);
    });
  });
});
