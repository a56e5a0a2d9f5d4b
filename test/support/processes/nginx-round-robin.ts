import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/** nginx (nginx-light) balancing round-robin over gateways, as docs/operator.md describes. */
export interface RoundRobin {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Upstreams are base URLs (`http://127.0.0.1:PORT`); the conf lives in a temp directory.
 * `keepalive`: idle upstream connections kept per worker (default 16); below the number of
 * concurrent requests, nginx opens and closes a connection to a gateway for the excess ones.
 */
export async function startRoundRobin(
  upstreams: string[],
  options: { keepalive?: number } = {},
): Promise<RoundRobin> {
  const dir = mkdtempSync(join(tmpdir(), 'tape-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const servers = upstreams
    .map((u) => `    server ${new URL(u).host} max_fails=1 fail_timeout=2s;`)
    .join('\n');
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  # S3 bodies (multipart parts of 8 MiB and more) pass through unbuffered and unbounded: the
  # gateways enforce their own limits.
  client_max_body_size 0;
  proxy_request_buffering off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream readers {
${servers}
    keepalive ${options.keepalive ?? 16};
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://readers;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_next_upstream error timeout;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const up = await fetch(`${url}/healthz`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (i > 100) throw new Error(`nginx did not listen on ${url}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGQUIT');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
