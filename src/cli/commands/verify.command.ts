import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeVerifierService } from '../verify/tape-verifier.service';
import { VerifyReport } from '../verify/verify-report';
import { parseVerifyTarget } from '../verify/verify-target';
import { TapeCommand } from './tape-command';

interface VerifyOptions extends GlobalOptions {
  all?: boolean;
  gateway?: string;
}

@Command({
  name: 'verify',
  arguments: '<url>',
  description:
    'check an answer of any gateway against the chain: a site URL, a site path, an /object URL, or a whole site with --all',
})
export class VerifyCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly verifier: TapeVerifierService,
  ) {
    super(ctx);
  }

  @Option({ flags: '--all', description: 'every file of the site’s current version' })
  parseAll(): boolean {
    return true;
  }

  @Option({
    flags: '--gateway <url>',
    description: 'where proofs are asked for; default: the URL’s own gateway',
  })
  parseGateway(value: string): string {
    return value;
  }

  async run([url]: string[], options: VerifyOptions = {}): Promise<void> {
    const cli = this.start(options);
    const target = parseVerifyTarget(url, {
      gateway: cli.gatewayUrl,
      gatewayOption: options.gateway,
      tape: () => cli.tapeAddress().toBase58(),
    });
    const started = performance.now();
    const report = options.all
      ? await this.verifier.verifyAll(target, cli.rpcUrl)
      : await this.verifier.verifyOne(target, cli.rpcUrl);
    const seconds = (performance.now() - started) / 1000;
    if (cli.json) this.printer.json({ ...report, seconds: Number(seconds.toFixed(3)) });
    else if (report.ok) this.printer.lines([okLine(report, seconds)]);
    if (!report.ok) throw new CliError(failureLine(report), 1);
  }
}

function okLine(report: VerifyReport, seconds: number): string {
  const files = report.files === 1 ? '1 file' : `${report.files} files`;
  return `verified ${files} (${report.bytes} bytes) of tape ${report.tape} version ${report.version} against the chain at slot ${report.slot} in ${seconds.toFixed(2)} s`;
}

/** `<file>: bytes <a>-<b>: <reason>: <message>` — the first thing that failed. */
export function failureLine(report: VerifyReport): string {
  const f = report.failure!;
  const bytes = f.range ? ` bytes ${f.range[0]}-${f.range[1]}:` : '';
  return `verification failed: ${f.file}:${bytes} ${f.reason}: ${f.message} (${f.url})`;
}
