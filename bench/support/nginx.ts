import { ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/support/processes/free-port';

export interface NginxOptions {
  /** The directory served (unless `proxyTo`). */
  root: string;
  /** Its config, pid file, error log and temporary files; default a fresh temporary directory. */
  workDir?: string;
  /** `worker_processes`; default `auto`. */
  workers?: 'auto' | number;
  /** A reverse proxy to this origin instead of a file server. */
  proxyTo?: string;
  /** Headers added to every answer (`add_header … always`). */
  headers?: Record<string, string>;
  /** Further `http {}` directives (types, charset, open-file cache…). */
  http?: string[];
}

export interface Nginx {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The work directory (`workDir`, or the temporary one made for it). */
  dir: string;
  /** SIGQUIT (graceful) and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * nginx in the foreground with a config of its own on a free loopback port, set up as a static
 * file server is usually set up (sendfile, keep-alive, no access log); with `proxyTo`, a
 * reverse proxy to that origin instead, as one is usually set up (keep-alive upstream
 * connections, HTTP/1.1, buffering on). The benchmarks' one nginx.
 */
export async function startNginx(options: NginxOptions): Promise<Nginx> {
  const dir = options.workDir ?? mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  chmodSync(dir, 0o755); // nginx workers run as an unprivileged user unless `user root`
  const port = await freePort();
  const proxyTo = options.proxyTo ? new URL(options.proxyTo).host : undefined;
  const upstream = proxyTo ? `\n  upstream origin { server ${proxyTo}; keepalive 16; }` : '';
  const addHeaders = Object.entries(options.headers ?? {}).map(
    ([name, value]) => `      add_header ${name} "${value.replace(/"/g, '\\"')}" always;`,
  );
  const proxy = proxyTo
    ? [
        '      proxy_pass http://origin;',
        '      proxy_http_version 1.1;',
        '      proxy_set_header Connection "";',
        `      proxy_set_header Host ${proxyTo};`,
      ]
    : [];
  const temp = (name: string) => `${name}_temp_path ${join(dir, 'tmp', name)};`;
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes ${options.workers ?? 'auto'};
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  default_type application/octet-stream;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}${upstream}
  ${(options.http ?? []).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    root ${options.root};
    location / {
${[...addHeaders, ...proxy].join('\n')}
    }
  }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const log = () =>
    stderr +
    (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) {
      const message = `nginx exited (${child.exitCode}): ${log()}`;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(message);
    }
    try {
      await (await fetch(url)).arrayBuffer();
      break;
    } catch {
      if (i > 200) {
        const message = `nginx not serving after 10 s: ${log()}`;
        child.kill('SIGQUIT');
        await exited;
        rmSync(dir, { recursive: true, force: true });
        throw new Error(message);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    port,
    pid: child.pid!,
    child,
    dir,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGQUIT');
      await exited;
    },
  };
}
