import { Option, SubCommand } from 'nest-commander';
import { PublicKey } from '@solana/web3.js';
import { CliError } from '../cli-error';
import { assertCanPay, assertTapeActive } from '../deploy/deploy-preflight';
import { printable } from '../input/size-parser';
import { RemovalConfirmation } from '../prompt/removal-confirmation';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/tape-session';
import { ChangePublisher } from '../versions/change-publisher';
import { VersionPublisher } from '../versions/version-publisher';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'rm',
  arguments: '<names...>',
  argsDescription: { names: 'object names, e.g. docs/index.html (all removed in one version)' },
  description: 'remove object names: publishes one version of the site without them',
})
export class ObjectRmCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly removals: RemovalConfirmation,
  ) {
    super(ctx);
  }

  @Option({
    flags: '-y, --yes',
    description: 'remove several names without asking (needed without a terminal)',
  })
  parseYes(): boolean {
    return true;
  }

  async run(names: string[], options: GlobalOptions & { yes?: boolean } = {}): Promise<void> {
    const session = this.session(options);
    const tape = await session.loadTape();
    const { reader } = session.chain;
    assertTapeActive(tape.record, await reader.currentEpoch(), {
      address: tape.address,
      clock: await reader.networkConfig(),
      nowUnix: await reader.chainTime(),
    });
    const unique = [...new Set(names)];
    const signer = session.tapeSigner(tape);
    const payer = session.wallet();
    const gateway = session.gateway();
    try {
      const config = await gateway.uploadConfig();
      const storageAuthority = new PublicKey(config.storageAuthority);
      const publisher = new VersionPublisher(gateway, session.chain.rpc, session.chain.ix, {
        concurrency: 8,
        segmentBytes: config.segmentBytes,
        storageAuthority,
      });
      const changes = new ChangePublisher(session.chain, gateway, publisher);
      const outcome = await session.guarded(
        changes.publish({
          tape: tape.address,
          tapeSigner: signer,
          wallet: payer,
          change: (base) => {
            const held = new Set(base.entries.map((e) => e.name));
            const absent = unique.filter((n) => !held.has(n));
            if (absent.length > 0) {
              throw new CliError(
                `no object named '${printable(absent[0])}' on tape ${tape.address.toBase58()}` +
                  (base.version > 0 ? ` (version ${base.version})` : '') +
                  '; nothing was removed',
              );
            }
            return { put: [], remove: unique };
          },
          readSmall: () => Promise.reject(new Error('removing names reads no file')),
          pathOf: () => {
            throw new Error('removing names uploads no file');
          },
          check: async (_planned, attempt) => {
            // One name is what was typed; several are listed and confirmed (once: a rebase
            // removes the same names).
            if (attempt === 1 && unique.length > 1) {
              await this.removals.confirm({
                command: 'tape object rm',
                names: unique,
                tape: tape.address.toBase58(),
                yes: options.yes === true,
              });
            }
            const { lamports } = await reader.getBalances(payer.publicKey);
            assertCanPay(
              payer.publicKey,
              lamports,
              changes.publishFee(signer, payer, storageAuthority),
              'removing the objects',
            );
          },
        }),
      );
      const version = outcome.published?.version ?? outcome.base.version;
      if (session.json) {
        this.printer.json({ removed: unique, tape: tape.address.toBase58(), version });
        return;
      }
      this.printer.note(`published version ${version}`);
      this.printer.lines(unique.map((n) => `removed ${n}`));
    } finally {
      gateway.close();
    }
  }
}
