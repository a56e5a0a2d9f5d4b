import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import * as ed25519Point from './ed25519-point';
import { bareContext } from './bare-context.spec-support';
import { NativeHost } from '../../../program/test/native-host';
import { TapeWorld } from '../../../program/test/tape-world';

/**
 * The local network must confirm >= 2,000 SetName instructions a second on a 2-core machine,
 * signature checks and persistence included, so the program's own share must be small.
 */
describe('TapeProgram: SetName throughput', () => {
  const setup = (count: number) => {
    const world = TapeWorld.create(new NativeHost());
    const owner = world.newTape(10_000_000, 10);
    const track = world.certifiedTrack(owner, 'shared body');
    const ixs = Array.from({ length: count }, (_, i) =>
      world.setNameIx(owner, `site/page-${i}.html`, track),
    );
    return { world, ixs };
  };

  afterEach(() => jest.restoreAllMocks());

  it('tests about one curve point per new name, and none for a name already on chain', () => {
    const { world, ixs } = setup(300);
    const onCurve = jest.spyOn(ed25519Point, 'isEd25519Point');
    for (const ix of ixs) world.expectOk(ix);
    // A full PDA derivation tests two candidates on average; checking a given address, one.
    expect(onCurve.mock.calls.length).toBeLessThan(1.5 * ixs.length);
    onCurve.mockClear();
    for (const ix of ixs) world.expectOk(ix); // a re-deploy sets the same names again
    expect(onCurve).not.toHaveBeenCalled();
  });

  it('runs 2,000 SetName instructions creating names in well under a second', () => {
    const { world, ixs } = setup(2_000);
    const contexts = ixs.map((ix) => bareContext(world.host, ix));
    const started = process.hrtime.bigint();
    for (const ctx of contexts) world.host.program.process(ctx);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(contexts.every((c) => c.accounts[3].owner.equals(DEFAULT_TAPE_PROGRAM_ID))).toBe(true);
    expect(ms).toBeLessThan(1_000);
  });
});
