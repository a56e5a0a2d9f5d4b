import { request } from 'node:http';
import { CliUser, keyValues } from '../clients/cli';
import { GatewayOptions, GatewayProcess, startGateway } from '../processes/gateway';

/**
 * A gateway process (local network embedded) with its S3 listener, an operator who runs
 * `tape gateway …` against the gateway's data directory, and helpers to make tape owners with a
 * delegated tape and an S3 credential for it. Site name caches are 1 s here, so a change made
 * through S3 shows on the site within a couple of seconds.
 */
export interface TapeS3Lab {
  gw: GatewayProcess;
  /** Runs operator commands (`tape gateway …`) with TAPE_DATA_DIR = the gateway's. */
  operator: CliUser;
  gatewayKey: string;
  users: CliUser[];
  /**
   * Stops the gateway and starts it again on the same data directory (new ports; the chain's
   * ledger, the key, credentials and spools persist). Needs `dataDir` in the start options.
   * Tape owners made before keep the old URLs: make new CliUsers to use the CLI afterwards.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface TapeWithCredential {
  owner: CliUser;
  tape: string;
  label: string;
  accessKeyId: string;
  secret: string;
}

export async function startTapeS3Lab(options: GatewayOptions = {}): Promise<TapeS3Lab> {
  const gatewayOptions: GatewayOptions = {
    ...options,
    config: {
      ...options.config,
      gateway: { site: { name_cache_secs: 1 }, ...(options.config?.gateway as object) },
    },
  };
  const gw = await startGateway(gatewayOptions);
  const operator = new CliUser(gw, { TAPE_DATA_DIR: gw.dataDir });
  const gatewayKey = (await operator.ok(['gateway', 'key'])).trim();
  const lab: TapeS3Lab = {
    gw,
    operator,
    gatewayKey,
    users: [operator],
    async restart() {
      if (!options.dataDir) throw new Error("restart needs a dataDir of the test's own");
      await lab.gw.stop();
      lab.gw = await startGateway(gatewayOptions);
      lab.operator = new CliUser(lab.gw, { TAPE_DATA_DIR: lab.gw.dataDir });
      lab.users.push(lab.operator);
    },
    async stop() {
      lab.users.forEach((u) => u.cleanup());
      await lab.gw.stop();
    },
  };
  return lab;
}

/**
 * A funded owner with a new tape, delegated to the gateway (unless `delegate: false`), and a
 * credential the operator issued for it.
 */
export async function tapeWithCredential(
  lab: TapeS3Lab,
  options: { capacity?: string; reservation?: string[]; delegate?: boolean } = {},
): Promise<TapeWithCredential> {
  const owner = new CliUser(lab.gw);
  lab.users.push(owner);
  await owner.fundedWallet();
  const created = keyValues(
    await owner.ok([
      'create',
      '--capacity',
      options.capacity ?? '50m',
      ...(options.reservation ?? ['--duration', '1d']),
    ]),
  );
  const tape = created['tape address'];
  if (options.delegate ?? true) await owner.ok(['delegate', lab.gatewayKey]);
  const issued = keyValues(
    await lab.operator.ok(['gateway', 'credentials', 'issue', '--tape', tape]),
  );
  return {
    owner,
    tape,
    label: created.label,
    accessKeyId: issued['access key id'],
    secret: issued['secret access key'],
  };
}

export interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET from the gateway's HTTP port with an explicit Host (hostname-served sites). */
export function gatewayGet(gw: GatewayProcess, path: string, host?: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: gw.port, path, headers: host ? { host } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A path of a site URL: every segment percent-encoded (spaces, `+`, non-ASCII). */
export function sitePath(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}
