import { CliUser, keyValues } from '../clients/cli';
import { removeSite, writeSite } from '../fixtures/site-dir';

/** A CLI user with a funded wallet and an active tape, as `CliDesk.withTape` made them. */
export interface UserWithTape {
  u: CliUser;
  tape: string;
  label: string;
  /** The wallet's address. */
  wallet: string;
}

/**
 * The CLI users and site directories a suite makes, removed together after it
 * (`cleanup()` in `afterAll`).
 */
export class CliDesk {
  readonly users: CliUser[] = [];
  private readonly sites: string[] = [];

  /** A user of `gateway` (with `env` over the CLI environment), removed by `cleanup()`. */
  user(gateway: { url: string; rpcUrl: string }, env: Record<string, string> = {}): CliUser {
    const u = new CliUser(gateway, env);
    this.users.push(u);
    return u;
  }

  /** A site directory of `files`, removed by `cleanup()`. */
  site(files: Record<string, string | Buffer>): string {
    const root = writeSite(files);
    this.sites.push(root);
    return root;
  }

  /**
   * A user of `gateway` (with `env` over the CLI environment) with a funded wallet and an
   * active tape of `capacity` for one day.
   */
  async withTape(
    gateway: { url: string; rpcUrl: string },
    capacity = '10m',
    env: Record<string, string> = {},
  ): Promise<UserWithTape> {
    const u = this.user(gateway, env);
    const wallet = await u.fundedWallet();
    const created = keyValues(await u.ok(['create', '--capacity', capacity, '--duration', '1d']));
    return { u, tape: created['tape address'], label: created.label, wallet };
  }

  /** A directory the suite made (a data directory, say), removed by `cleanup()`. */
  removeLater(dir: string): void {
    this.sites.push(dir);
  }

  cleanup(): void {
    this.users.forEach((u) => u.cleanup());
    this.sites.forEach(removeSite);
  }
}
