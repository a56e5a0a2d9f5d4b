import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { parseDuration } from '../input/duration-parser';
import { printable } from '../input/size-parser';
import { DEFAULT_MAX_WAIT_MS } from '../deploy/upload-backoff';
import { SiteDeployer } from '../deploy/site-deployer';
import { DeployDryRun } from '../deploy/deploy-dry-run';
import { dryRunJson, dryRunLines } from '../deploy/dry-run-lines';
import { RemovalConfirmation } from '../prompt/removal-confirmation';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { parseAliasName } from './alias-name';
import { TapeCommand } from './tape-command';

interface DeployCommandOptions extends GlobalOptions {
  prune?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  concurrency?: number;
  maxWait?: number;
  alias?: string;
}

const DEFAULT_UPLOAD_CONCURRENCY = 128;

@Command({
  name: 'deploy',
  arguments: '<site>',
  argsDescription: {
    site: "the site's directory (with an index.html at its top), or the path of that index.html",
  },
  description:
    'publish a site directory as the next version of the tape (only bytes the gateway lacks are uploaded)',
})
export class DeployCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly deployer: SiteDeployer,
    private readonly dryRun: DeployDryRun,
    private readonly removals: RemovalConfirmation,
  ) {
    super(ctx);
  }

  @Option({
    flags: '--dry-run',
    description:
      'print what the deploy would upload, remove and spend, and stop: nothing is signed, sent or uploaded',
  })
  parseDryRun(): boolean {
    return true;
  }

  @Option({
    flags: '-y, --yes',
    description: 'remove the names --prune drops without asking (needed without a terminal)',
  })
  parseYes(): boolean {
    return true;
  }

  @Option({
    flags: '--prune',
    description:
      "publish only the directory's files (without it, the current version's other names stay)",
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

  @Option({
    flags: '--alias <name>',
    description:
      'publish as a preview under this alias, leaving the live version as it is (tape promote <name> makes it live)',
  })
  parseAlias(value: string): string {
    return parseAliasName(value);
  }

  async run([sitePath]: string[], options: DeployCommandOptions = {}): Promise<void> {
    const target = this.start(options);
    if (options.dryRun === true) {
      const report = await this.dryRun.plan(sitePath, { prune: options.prune === true });
      if (target.json) this.printer.json(dryRunJson(report));
      else this.printer.lines(dryRunLines(report));
      return;
    }
    const fromEnv = this.ctx.env.uploadConcurrency;
    const concurrency =
      options.concurrency ?? (fromEnv ? parseConcurrency(fromEnv) : DEFAULT_UPLOAD_CONCURRENCY);
    const maxWaitFromEnv = this.ctx.env.uploadMaxWait;
    const maxWaitMs =
      options.maxWait ??
      (maxWaitFromEnv
        ? parseDuration(maxWaitFromEnv, 'max wait (TAPE_UPLOAD_MAX_WAIT)') * 1000
        : DEFAULT_MAX_WAIT_MS);
    const prune = options.prune === true;
    const result = await this.deployer.deploy(sitePath, {
      prune,
      concurrency,
      maxWaitMs,
      confirmRemoval: prune
        ? (names, tape) =>
            this.removals.confirm({
              command: 'tape deploy --prune',
              names,
              tape,
              yes: options.yes === true,
            })
        : undefined,
      alias: options.alias,
    });
    if (target.json) {
      this.printer.json({
        tape: result.tape,
        label: result.label,
        url: result.url,
        host_url: result.hostUrl,
        path_url: result.pathUrl,
        files: result.files,
        uploaded: result.uploaded,
        unchanged: result.unchanged,
        bytes_uploaded: result.bytesUploaded,
        pruned: result.pruned,
        version: result.version,
        root: result.root,
        published: result.published,
        added_bytes: result.addedBytes,
        signature: result.signature ?? null,
        ...(result.alias ? { alias: result.alias, path_url: result.pathUrl } : {}),
      });
      return;
    }
    // The spec's three lines on stdout (and the gateway's path URL when URL is a host URL); which version is live, on stderr beside the progress.
    this.printer.note(
      result.published
        ? `published version ${result.version}${result.alias ? ` as ${result.alias} (the live version is unchanged)` : ''} (root ${result.root.slice(0, 16)}…, ${result.addedBytes} bytes added)`
        : `nothing changed: version ${result.version} stays live, nothing was published`,
    );
    this.printer.lines([
      `Deployed ${result.files} files (${result.uploaded} uploaded, ${result.unchanged} unchanged)`,
      `Tape: ${result.tape}`,
      `URL:  ${result.url}`,
      ...(result.hostUrl !== null ? [`Path: ${result.pathUrl}`] : []),
    ]);
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
