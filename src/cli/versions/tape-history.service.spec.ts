import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { NO_VERSION, TapeRecord } from '../../chain/account-layouts';
import { VersionConflictError } from '../../chain/chain-error';
import { ComputeUnitEstimator } from '../../chain/compute-units';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { applyPublish, evictUnkept } from '../../chain/tape-history';
import { decodeInstructionData, Tag } from '../../chain/tape-instruction-data';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';
import { PaidSender } from '../funding/paid-sender';
import { CliChain } from '../session/cli-chain';
import { CliGateway } from '../session/cli-gateway';
import { CliSigners } from '../session/cli-signers';
import { TapeHistoryService } from './tape-history.service';

const address = Keypair.generate().publicKey;
const wallet = Keypair.generate();

/** A tape with versions 1..n published live, then the given changes. */
function tapeWith(n: number, over: Partial<TapeRecord> = {}): TapeRecord {
  let t: TapeRecord = {
    authority: wallet.publicKey,
    delegate: null,
    capacity: 1 << 20,
    activeEpoch: 0,
    expiryEpoch: 10,
    createdAt: 0,
    payer: wallet.publicKey,
    ...NO_VERSION,
  };
  for (let v = 1; v <= n; v++) {
    t = applyPublish(t, {
      root: Buffer.alloc(32, v),
      bytes: v * 100,
      keptBytes: 0,
      publishedAt: v,
    });
  }
  return { ...t, ...over };
}

/**
 * The service over an in-memory tape: sent instructions are applied as the program would (or
 * refused with a version conflict when `raceBefore` changes the tape first).
 */
function fakeSession(initial: TapeRecord) {
  let tape = initial;
  const sent: TransactionInstruction[] = [];
  const races: Array<(t: TapeRecord) => TapeRecord> = [];
  const apply = (ix: TransactionInstruction) => {
    const race = races.shift();
    if (race) tape = { ...race(tape), sequence: tape.sequence + 1 };
    const d = decodeInstructionData(ix.data);
    if (!('expectedSequence' in d) || d.expectedSequence !== tape.sequence) {
      throw new VersionConflictError(tape.sequence);
    }
    const next = { ...tape, sequence: tape.sequence + 1 };
    if (d.tag === Tag.SetCurrent) next.version = d.version;
    if (d.tag === Tag.RemoveAlias) next.aliases = tape.aliases.filter((a) => a.name !== d.name);
    if (d.tag === Tag.SetKeep) next.keep = d.keep;
    tape = { ...next, history: evictUnkept(next) };
  };
  const chain = {
    loadTape: async () => ({ address, record: tape }),
    guarded: <T>(p: Promise<T>) => p,
    ix: new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID),
    reader: { getBalances: async () => ({ lamports: 10 ** 9, tokens: 0n }) },
    writer: {
      packing: { computeUnits: new ComputeUnitEstimator(DEFAULT_TAPE_PROGRAM_ID) },
      send: async (ixs: TransactionInstruction[]) => {
        sent.push(...ixs);
        ixs.forEach(apply);
        return ['sig'];
      },
    },
  } as unknown as CliChain;
  const signers = { tapeSigner: () => wallet, wallet: () => wallet } as unknown as CliSigners;
  const gateway = { client: (): unknown => ({ close: () => undefined }) };
  const history = new TapeHistoryService(
    chain,
    signers,
    gateway as unknown as CliGateway,
    new PaidSender(chain, signers),
  );
  return { history, gateway, sent, races, tape: () => tape };
}

describe('TapeHistoryService', () => {
  it('rolls back to the newest kept version before the current one, or to --to', async () => {
    const { history, tape, sent } = fakeSession(tapeWith(3));
    expect(await history.rollback()).toMatchObject({ previous: 3, version: 2, changed: true });
    expect(await history.rollback()).toMatchObject({ previous: 2, version: 1 });
    expect(await history.rollback(3)).toMatchObject({ previous: 1, version: 3 });
    expect(tape()).toMatchObject({ version: 3, sequence: 6 });
    expect(sent.map((ix) => decodeInstructionData(ix.data))).toEqual([
      { tag: Tag.SetCurrent, expectedSequence: 3, version: 2 },
      { tag: Tag.SetCurrent, expectedSequence: 4, version: 1 },
      { tag: Tag.SetCurrent, expectedSequence: 5, version: 3 },
    ]);
  });

  it('refuses what the tape does not keep, in one line naming what it keeps', async () => {
    const { history, sent } = fakeSession(tapeWith(3, { version: 1 }));
    await expect(history.rollback()).rejects.toThrow(
      new CliError('no kept version before version 1 (kept: 1, 2, 3)'),
    );
    await expect(history.rollback(7)).rejects.toThrow(
      new CliError('version 7 is not kept (kept: 1, 2, 3)'),
    );
    await expect(fakeSession(tapeWith(0)).history.rollback()).rejects.toThrow(
      'the tape has no version yet',
    );
    expect(sent).toEqual([]);
  });

  it('sends nothing when the version is already current', async () => {
    const { history, sent } = fakeSession(tapeWith(2));
    expect(await history.rollback(2)).toMatchObject({ version: 2, changed: false });
    expect(sent).toEqual([]);
  });

  it('re-reads the tape after a lost compare-and-swap and plans again', async () => {
    const { history, races, sent } = fakeSession(tapeWith(3));
    // Another writer rolls back to 2 first: the default target is now 1.
    races.push((t) => ({ ...t, version: 2 }));
    expect(await history.rollback()).toMatchObject({ previous: 2, version: 1 });
    expect(sent.map((ix) => decodeInstructionData(ix.data))).toEqual([
      { tag: Tag.SetCurrent, expectedSequence: 3, version: 2 },
      { tag: Tag.SetCurrent, expectedSequence: 4, version: 1 },
    ]);
  });

  it('gives up after five lost races, in one line', async () => {
    const { history, races } = fakeSession(tapeWith(3));
    for (let i = 0; i < 5; i++) races.push((t) => t);
    await expect(history.rollback()).rejects.toThrow(/version conflict: the tape changed 5 times/);
  });

  it("promotes an alias's version and removes aliases", async () => {
    const t = tapeWith(3, { aliases: [{ name: 'pr-1', version: 2 }] });
    const { history, tape } = fakeSession(t);
    expect(await history.promote('pr-1')).toMatchObject({ previous: 3, version: 2 });
    await expect(history.promote('pr-2')).rejects.toThrow(
      'no alias pr-2 on this tape (aliases: pr-1)',
    );
    await history.removeAlias('pr-1');
    expect(tape().aliases).toEqual([]);
    await expect(history.removeAlias('pr-1')).rejects.toThrow(
      'no alias pr-1 on this tape (it has no aliases)',
    );
  });

  it('sets keep 1..16, and nothing when it is already that', async () => {
    const { history, tape, sent } = fakeSession(tapeWith(3));
    await history.setKeep(1);
    expect(tape()).toMatchObject({ keep: 1, history: [expect.objectContaining({ version: 3 })] });
    expect(await history.setKeep(1)).toMatchObject({ changed: false });
    await expect(history.setKeep(17)).rejects.toThrow('keep must be a whole number from 1 to 16');
    expect(sent).toHaveLength(1);
  });

  it('lists the kept versions newest first, with aliases, the current one, and FILES', async () => {
    const t = tapeWith(3, { version: 2, aliases: [{ name: 'staging', version: 3 }] });
    const { history, gateway } = fakeSession(t);
    // The gateway answers no version root: FILES unknown, with its reason.
    gateway.client = () => ({
      get: async () => ({
        status: 503,
        body: Buffer.from('{"error":{"code":"unavailable","message":"busy"}}'),
      }),
      close: () => undefined,
    });
    const listed = await history.list();
    expect(listed.rows).toEqual([
      { version: 3, publishedAt: 3, files: null, bytes: 300, aliases: ['staging'], current: false },
      { version: 2, publishedAt: 2, files: null, bytes: 200, aliases: [], current: true },
      { version: 1, publishedAt: 1, files: null, bytes: 100, aliases: [], current: false },
    ]);
    expect(listed.filesUnknown).toMatch(/reading version 3/);
  });
});
