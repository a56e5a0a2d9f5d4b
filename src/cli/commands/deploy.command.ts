import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { parseDuration } from '../input/duration-parser';
import { printable } from '../input/size-parser';
import { DEFAULT_MAX_WAIT_MS } from '../deploy/upload-backoff';
import { SiteDeployer } from '../deploy/site-deployer';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

interface DeployCommandOptions extends GlobalOptions {
  prune?: boolean;
  concurrency?: number;
  maxWait?: number;
}

const DEFAULT_UPLOAD_CONCURRENCY = 128;

@Command({
  name: 'deploy',
  arguments: '<index_html>',
  argsDescription: { index_html: "path of the site's index.html; its directory is deployed" },
  description: 'upload a site directory to the tape (only changed files) and publish it',
})
export class DeployCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly deployer: SiteDeployer,
  ) {
    super(ctx);
  }

  @Option({
    flags: '--prune',
    description: 'after publishing, remove names the directory no longer has',
  })
  parsePrune(): boolean {
    return true;
  }

  @Option({
    flags: '--concurrency <n>',
    description: `uploads in flight at once (default ${DEFAULT_UPLOAD_CONCURRENCY})`,
  })
  parseConcurrency(value: string): number {
    return parseConcurrency(value);
  }

  @Option({
    flags: '--max-wait <time>',
    description:
      'longest one upload waits on a busy gateway (429, 503) before the deploy fails, e.g. 90s, 10m (default: TAPE_UPLOAD_MAX_WAIT or 2m)',
  })
  parseMaxWait(value: string): number {
    return parseDuration(value, 'max wait') * 1000;
  }

  async run([indexPath]: string[], options: DeployCommandOptions = {}): Promise<void> {
    const session = this.session(options);
    const fromEnv = this.ctx.env.uploadConcurrency;
    const concurrency =
      options.concurrency ?? (fromEnv ? parseConcurrency(fromEnv) : DEFAULT_UPLOAD_CONCURRENCY);
    const maxWaitFromEnv = this.ctx.env.uploadMaxWait;
    const maxWaitMs =
      options.maxWait ??
      (maxWaitFromEnv
        ? parseDuration(maxWaitFromEnv, 'max wait (TAPE_UPLOAD_MAX_WAIT)') * 1000
        : DEFAULT_MAX_WAIT_MS);
    const onInterrupt = () => {
      // Whatever was confirmed stays; nothing half-written is published (the entry goes last).
      process.stderr.write(
        '\ninterrupted: the site is unchanged or has only some files updated; run tape deploy again to finish\n',
      );
      process.exit(130);
    };
    process.once('SIGINT', onInterrupt);
    try {
      const result = await this.deployer.deploy(session, indexPath, {
        prune: options.prune === true,
        concurrency,
        maxWaitMs,
      });
      if (session.json) {
        this.printer.json({
          tape: result.tape,
          label: result.label,
          url: result.url,
          files: result.files,
          uploaded: result.uploaded,
          unchanged: result.unchanged,
          bytes_uploaded: result.bytesUploaded,
          pruned: result.pruned,
          released_tracks: result.released,
        });
        return;
      }
      this.printer.lines([
        `Deployed ${result.files} files (${result.uploaded} uploaded, ${result.unchanged} unchanged)`,
        `Tape: ${result.tape}`,
        `URL:  ${result.url}`,
      ]);
    } finally {
      process.removeListener('SIGINT', onInterrupt);
    }
  }
}

function parseConcurrency(value: string): number {
  const n = /^\d{1,4}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 1 && n <= 1024)) {
    throw new CliError(
      `bad concurrency '${printable(value)}': expected a whole number from 1 to 1024`,
    );
  }
  return n;
}
