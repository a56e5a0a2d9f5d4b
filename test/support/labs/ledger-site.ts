import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliUser, keyValues } from '../clients/cli';
import { removeSite, writeSite } from '../fixtures/site-dir';
import { startGateway } from '../processes/gateway';

/** A gateway data directory (its embedded ledger) that holds one published site. */
export interface LedgerSite {
  /** The data directory: start the suite's gateways on it; remove it with `remove()`. */
  dir: string;
  tape: string;
  label: string;
  remove(): void;
}

/**
 * Publishes a site the way a user does, on a fresh data directory (prefix `prefix`): a plain
 * gateway, a funded CLI user, `tape create --capacity 1m --epochs 5`, `tape deploy` of `files`;
 * then stops that gateway (SIGTERM), so a suite can start the gateways it tests on the ledger,
 * knowing the tape address and label in advance (for a TXT record, an operator domain).
 */
export async function publishOnFreshLedger(
  prefix: string,
  files: Record<string, string>,
): Promise<LedgerSite> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const plain = await startGateway({ dataDir: dir }).catch((err: unknown) => {
    remove();
    throw err;
  });
  const user = new CliUser(plain);
  let siteDir: string | undefined;
  try {
    await user.fundedWallet();
    const created = keyValues(await user.ok(['create', '--capacity', '1m', '--epochs', '5']));
    siteDir = writeSite(files);
    await user.ok(['deploy', `${siteDir}/index.html`]);
    await plain.stop('SIGTERM');
    return { dir, tape: created['tape address'], label: created.label, remove };
  } catch (err) {
    await plain.stop();
    remove();
    throw err;
  } finally {
    user.cleanup();
    if (siteDir) removeSite(siteDir);
  }
}
