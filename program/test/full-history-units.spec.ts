import { TransactionInstruction } from '@solana/web3.js';
import { ComputeUnitEstimator } from '../../src/chain/compute-units';
import { SvmHost } from './svm-host';
import { TapeWorld } from './tape-world';

/**
 * The compute units of each tape instruction on a tape whose history is as full as it gets
 * (keep 16, 8 aliases: 24 kept versions, 25 with the one a Publish adds), measured on
 * program/tape.so, against what the client requests (src/chain/compute-units.ts). The
 * differential test's starting states hold a few versions only; this is the heavy end.
 */
describe('compute units on a tape with a full history (svm host)', () => {
  it('stay within the client budgets for every instruction that reads the tape', () => {
    const world = TapeWorld.create(new SvmHost());
    const owner = world.newTape(1 << 20, 10);
    const estimator = new ComputeUnitEstimator(world.pdas.programId);
    const measured: Record<string, { units: number; budget: number }> = {};
    const run = (name: string, ix: TransactionInstruction) => {
      const units = world.expectOk(ix).computeUnits!;
      measured[name] = { units, budget: estimator.estimate(ix) };
    };
    let seq = 0;
    for (let i = 0; i < 8; i++)
      world.expectOk(world.publishIx(owner, seq++, 10, 10, { alias: `a${i}` }));
    world.expectOk(world.setKeepIx(owner, seq++, 16));
    for (let i = 0; i < 16; i++) world.expectOk(world.publishIx(owner, seq++, 10, 10));
    expect(world.tapeOf(owner.authority).history).toHaveLength(24);
    run('Publish (live)', world.publishIx(owner, seq++, 10, 10));
    run('Publish (alias moved)', world.publishIx(owner, seq++, 10, 10, { alias: 'a0' }));
    const { payer, tape } = owner;
    const paying = { payer, tape, mint: world.mint, treasury: world.treasury };
    run('ExtendTape', world.ix.extendTape({ ...paying, epochs: 1 }));
    run('ResizeTape', world.ix.resizeTape({ ...paying, addBytes: 1 }));
    run('SetDelegate', world.ix.setDelegate({ authority: owner.authority, delegate: null }));
    const oldest = world.tapeOf(owner.authority).history[0].version;
    run('SetCurrent', world.setCurrentIx(owner, seq++, oldest));
    run('RemoveAlias', world.removeAliasIx(owner, seq++, 'a1'));
    run('SetKeep (evicts 15)', world.setKeepIx(owner, seq++, 1));
    console.log(`compute units on a full history: ${JSON.stringify(measured)}`);
    for (const [name, { units, budget }] of Object.entries(measured)) {
      expect({ name, fits: units <= budget }).toEqual({ name, fits: true });
    }
  });
});
