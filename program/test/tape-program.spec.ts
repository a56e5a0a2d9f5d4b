import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { CONFIG_SIZE, decodeConfig } from '../../src/chain/account-layouts';
import { TAPE_ERROR_MESSAGES, TapeErrorCode } from '../../src/chain/program-errors';
import { DEFAULT_TAPE_PROGRAM_ID, MIB } from '../../src/chain/program-ids';
import { alter, truncateAccounts, withData } from './oracle/instruction-alter';
import { rentExempt } from './oracle/test-ledger';
import { custom, EPOCH_SECS, GENESIS, SOL, TapeWorld } from './tape-world';
import { HOSTS } from './test-hosts';

describe.each(HOSTS)('%s host', (_host, newHost) => {
  describe('TapeProgram: InitConfig', () => {
    it('creates the config at its PDA, paid by the admin', () => {
      const world = new TapeWorld(newHost(), 777n);
      world.expectOk(world.initConfigIx());
      const account = world.account(world.pdas.config())!;
      expect(account.owner.equals(DEFAULT_TAPE_PROGRAM_ID)).toBe(true);
      expect(account.lamports).toBe(rentExempt(CONFIG_SIZE));
      expect(world.lamports(world.admin)).toBe(10 * SOL - rentExempt(CONFIG_SIZE));
      expect(decodeConfig(account.data)).toEqual({
        epochDurationSecs: EPOCH_SECS,
        genesisTime: GENESIS,
        pricePerMibEpoch: 777n,
        mint: world.mint,
        treasury: world.treasury,
        storageAuthority: world.storageAuthority,
        admin: world.admin,
      });
    });

    it('runs once', () => {
      const world = TapeWorld.create(newHost());
      expect(world.failure(world.initConfigIx())).toEqual(custom(TapeErrorCode.AlreadyExists));
    });

    it('refuses an epoch of zero seconds, a wrong config address and an unsigned admin', () => {
      const world = new TapeWorld(newHost());
      expect(world.failure(world.initConfigIx({ epochDurationSecs: 0 }))).toEqual(
        custom(TapeErrorCode.InvalidArgument),
      );
      const notPda = alter(world.initConfigIx(), 1, { pubkey: Keypair.generate().publicKey });
      expect(world.failure(notPda)).toEqual(custom(TapeErrorCode.AccountMismatch));
      const unsigned = alter(world.initConfigIx(), 0, { isSigner: false });
      expect(world.failure(unsigned)).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
    });

    it('needs a real mint and a treasury token account of that mint', () => {
      const world = new TapeWorld(newHost());
      const notMint = world.wallet();
      expect(world.failure(world.initConfigIx({ mint: notMint }))).toEqual(
        custom(TapeErrorCode.InvalidAccountData),
      );
      const otherMintAccount = Keypair.generate().publicKey;
      world.setTokenAccount(otherMintAccount, world.admin, 0n, Keypair.generate().publicKey);
      expect(world.failure(world.initConfigIx({ treasury: otherMintAccount }))).toEqual(
        custom(TapeErrorCode.InvalidAccountData),
      );
    });

    it('refuses an admin without the rent', () => {
      const world = new TapeWorld(newHost());
      world.setAccount(world.admin, { lamports: rentExempt(CONFIG_SIZE) - 1 });
      expect(world.failure(world.initConfigIx())).toEqual(custom(TapeErrorCode.InsufficientFunds));
    });
  });

  describe('TapeProgram: errors and hostile input', () => {
    const setup = () => {
      const world = TapeWorld.create(newHost());
      const owner = world.newTape(MIB, 10);
      return { world, owner };
    };

    it('logs "Error: <message>" and fails with the Custom code', () => {
      const { world, owner } = setup();
      world.setEpoch(10);
      expect(world.failure(world.publishIx(owner, 0, 10, 10))).toEqual({ Custom: 6001 });
      expect(world.lastLogs).toContain(`Error: ${TAPE_ERROR_MESSAGES[TapeErrorCode.TapeExpired]}`);
    });

    it('answers InvalidInstructionData for empty, truncated, unknown or padded data', () => {
      const { world, owner } = setup();
      const ix = world.publishIx(owner, 0, 10, 10);
      const valid = ix.data;
      const cases: Buffer[] = [
        Buffer.alloc(0),
        Buffer.from([10]),
        Buffer.from([255, 0, 0]),
        valid.subarray(0, valid.length - 1),
        Buffer.concat([valid, Buffer.from([0])]),
        Buffer.from([1, 1, 2, 3]), // CreateTape cut inside its u64
      ];
      for (const data of cases) {
        expect(world.failure(withData(ix, data))).toBe('InvalidInstructionData');
        expect(world.lastLogs.some((l) => l.startsWith('Error: '))).toBe(true);
      }
    });

    it('refuses the retired per-file tags 5-9 as unknown, whatever follows, and changes nothing', () => {
      const { world, owner } = setup();
      const before = world.dump();
      for (const tag of [5, 6, 7, 8, 9]) {
        // A WriteTrack-, SetName- or bare-shaped body, as the old instructions had them.
        for (const body of [Buffer.alloc(0), Buffer.alloc(41 + 11), Buffer.from([1, 0, 0x61, 0])]) {
          const ix = withData(
            world.publishIx(owner, 0, 10, 10),
            Buffer.concat([Buffer.from([tag]), body]),
          );
          expect(world.failure(ix)).toBe('InvalidInstructionData');
          expect(world.lastLogs).toEqual([`Error: unknown instruction tag ${tag}`]);
        }
      }
      expect(world.dump()).toBe(before);
    });

    it('answers InvalidInstructionData for u64 values past 2^53 - 1, up to 2^64 - 1', () => {
      const { world, owner } = setup();
      for (const value of [2n ** 53n, 2n ** 63n, 2n ** 64n - 1n]) {
        const data = Buffer.alloc(9);
        data[0] = 3; // ResizeTape
        data.writeBigUInt64LE(value, 1);
        const resize = world.ix.resizeTape({
          payer: owner.payer,
          tape: owner.tape,
          mint: world.mint,
          treasury: world.treasury,
          addBytes: 1,
        });
        expect(world.failure(withData(resize, data))).toBe('InvalidInstructionData');
        const publish = world.publishIx(owner, 0, 10, 10);
        const publishData = Buffer.from(publish.data);
        publishData.writeBigUInt64LE(value, 1);
        expect(world.failure(withData(publish, publishData))).toBe('InvalidInstructionData');
      }
    });

    it('answers NotEnoughAccountKeys when accounts are missing', () => {
      const { world, owner } = setup();
      const ix = world.publishIx(owner, 0, 10, 10);
      expect(world.failure(truncateAccounts(ix, 3))).toBe('NotEnoughAccountKeys');
      expect(
        world.failure(
          new TransactionInstruction({ programId: ix.programId, keys: [], data: ix.data }),
        ),
      ).toBe('NotEnoughAccountKeys');
    });

    it('records the instruction it runs in the logs', () => {
      const { world, owner } = setup();
      const outcome = world.expectOk(world.publishIx(owner, 0, 10, 10));
      expect(outcome.logs[0]).toBe('Instruction: Publish');
    });
  });
});
