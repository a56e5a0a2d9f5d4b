import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliResult } from '../clients/cli';
import { writeSite } from '../fixtures/site-dir';
import { SiteGateway } from '../processes/site-gateway';

/**
 * A site published the way a user publishes one: `tape keygen`, `tape airdrop`, `tape create`,
 * then `tape deploy <dir>/index.html`, each a real CLI process against the gateway's chain.
 */
export interface PublishedSite {
  tape: string;
  label: string;
  configDir: string;
  siteDir: string;
  /** Rewrites the site directory with these files and runs `tape deploy` again. */
  redeploy(files: SiteFiles, extraArgs?: string[]): Promise<CliResult>;
  remove(): void;
}

export type SiteFiles = Record<string, string | Buffer>;

export async function publishSite(
  gw: SiteGateway,
  files: SiteFiles,
  options: { epochs?: number; capacity?: string } = {},
): Promise<PublishedSite> {
  const configDir = mkdtempSync(join(tmpdir(), 'tape-cli-'));
  const siteDir = mkdtempSync(join(tmpdir(), 'tape-site-'));
  const run = async (args: string[]) => {
    const result = await gw.tape(args, configDir);
    if (result.code !== 0) {
      throw new Error(
        `tape ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
      );
    }
    return result;
  };
  await run(['keygen']);
  await run(['airdrop']);
  const created = await run([
    'create',
    '--capacity',
    options.capacity ?? '20m',
    '--epochs',
    String(options.epochs ?? 24),
  ]);
  const tape = /tape address\s*:?\s*(\S+)/i.exec(created.stdout)?.[1];
  const label = /label\s*:?\s*([a-z2-7]{52})/i.exec(created.stdout)?.[1];
  if (!tape || !label) throw new Error(`cannot read the tape address from:\n${created.stdout}`);
  writeSite(files, siteDir);
  await run(['deploy', join(siteDir, 'index.html')]);
  return {
    tape,
    label,
    configDir,
    siteDir,
    redeploy: async (next, extraArgs = []) => {
      rmSync(siteDir, { recursive: true, force: true });
      mkdirSync(siteDir);
      writeSite(next, siteDir);
      return run(['deploy', join(siteDir, 'index.html'), ...extraArgs]);
    },
    remove: () => {
      rmSync(configDir, { recursive: true, force: true });
      rmSync(siteDir, { recursive: true, force: true });
    },
  };
}
