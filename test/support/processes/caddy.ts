import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { REPO_ROOT } from './gateway';

export interface CaddyOptions {
  /** The gateway's main listener, `127.0.0.1:<port>`. */
  gateway: string;
  /** The gateway's admin listener (the on-demand TLS ask endpoint). */
  admin: string;
  /** The gateway's `gateway.site.subdomain_suffix`, without a port. */
  siteSuffix: string;
  /** A port chosen beforehand (when the gateway's config must name it); default a free one. */
  httpsPort?: number;
}

export interface CaddyProcess {
  httpsPort: number;
  /** Caddy's local CA root (PEM), for clients to verify the certificates it issues. */
  rootCa(): string;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * The real Caddy (Debian's `caddy`) running deploy/Caddyfile unchanged, on free loopback ports:
 * the test's global options (its internal CA instead of ACME, ports, storage, no admin API) go
 * in through TAPE_CADDY_OPTIONS, which that Caddyfile reads. Stopped by PID.
 */
export async function startCaddy(options: CaddyOptions): Promise<CaddyProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'tape-caddy-'));
  const httpPort = await freePort();
  const httpsPort = options.httpsPort ?? (await freePort());
  const globals = [
    'local_certs',
    'skip_install_trust',
    'admin off',
    'default_bind 127.0.0.1',
    `http_port ${httpPort}`,
    `https_port ${httpsPort}`,
    `storage file_system ${join(dir, 'data')}`,
  ].join('\n\t');
  const child: ChildProcess = spawn(
    'caddy',
    ['run', '--config', join(REPO_ROOT, 'deploy', 'Caddyfile'), '--adapter', 'caddyfile'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        XDG_DATA_HOME: join(dir, 'xdg-data'),
        XDG_CONFIG_HOME: join(dir, 'xdg-config'),
        TAPE_CADDY_OPTIONS: globals,
        TAPE_GATEWAY: options.gateway,
        TAPE_ADMIN: options.admin,
        TAPE_SITE_SUFFIX: options.siteSuffix,
      },
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const rootPath = join(dir, 'data', 'pki', 'authorities', 'local', 'root.crt');
  try {
    const deadline = Date.now() + 20_000;
    while (!(existsSync(rootPath) && (await accepts(httpsPort)))) {
      if (child.exitCode !== null) throw new Error(`caddy exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`caddy did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { httpsPort, rootCa: () => readFileSync(rootPath, 'utf8'), logs: () => output, stop };
}

/** Caddy in front of a gateway started by `startGateway`: its main and admin listeners. */
export function startCaddyFor(
  gw: { port: number; adminPort: number },
  options: Omit<CaddyOptions, 'gateway' | 'admin'>,
): Promise<CaddyProcess> {
  return startCaddy({
    ...options,
    gateway: `127.0.0.1:${gw.port}`,
    admin: `127.0.0.1:${gw.adminPort}`,
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * What a handshake for a name Caddy holds no certificate for fails with: Caddy aborts it with
 * an internal-error alert once the gateway's ask refuses the name (a refused connection or an
 * untrusted certificate would be another failure, and not this one).
 */
export const NO_CERTIFICATE = /tlsv1 alert internal error/;

export interface TlsAnswer {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
  /** The certificate Caddy presented for `host`. */
  cert: PeerCertificate;
}

/**
 * HTTPS through Caddy for `host` (SNI and Host), verifying against Caddy's root CA, from a chosen
 * loopback address. Rejects when the handshake fails: Caddy has no certificate for the name.
 */
export function getTls(
  caddy: CaddyProcess,
  host: string,
  localAddress = '127.0.0.1',
  path = '/',
): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: caddy.httpsPort,
        servername: host,
        path,
        localAddress,
        agent: false,
        ca: caddy.rootCa(),
        headers: { host },
      },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate();
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers, cert }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
