import { GatewayProcess, startGateway } from './support/processes/gateway';
import { siteGet, slowReader } from './support/clients/site-http';
import { requestHead, signedRequest, trickleRequest } from './support/clients/s3-raw-http';
import { encodeKeyPath, signWithHeader } from './support/clients/s3-signing';
import {
  startTapeS3Lab,
  TapeS3Lab,
  tapeWithCredential,
  TapeWithCredential,
} from './support/labs/s3-tape-lab';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './support/processes/gateway';

/**
 * A request whose head is sent in two parts: `begin` opens the connection and writes all but the
 * blank line that ends the head; `end` writes it and resolves with everything read until the
 * server closes the connection. In between, the connection is busy (a request has begun), so the
 * server's close waits for it, and the request is dispatched only when `end` is called.
 */
async function splitRequest(
  port: number,
  head: string,
): Promise<{ end: () => Promise<{ status: number; head: string; body: string }> }> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.setEncoding('latin1');
  socket.setTimeout(20_000, () => socket.destroy(new Error('no answer in 20 s')));
  socket.on('data', (chunk: string) => (data += chunk));
  const closed = new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  await new Promise<void>((resolve) => socket.write(head, () => resolve()));
  return {
    end: async () => {
      socket.write('\r\n');
      await closed;
      const split = data.indexOf('\r\n\r\n');
      return {
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0),
        head: data.slice(0, Math.max(0, split)),
        body: split < 0 ? '' : data.slice(split + 4),
      };
    },
  };
}

describe('gateway process', () => {
  it('answers /healthz, gives the stable error body, and exits cleanly on SIGTERM', async () => {
    const gw = await startGateway();
    const health = await fetch(`${gw.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(((await health.json()) as { status: string }).status).toBe('ok');

    const missing = await fetch(`${gw.url}/no/such/route`);
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { error: { code: string } };
    expect(body.error.code).toBe('not_found');
    expect(gw.logs()).not.toContain('started without');
    expect(await gw.stop('SIGTERM')).toBe(0);
  });

  it('once shutdown has begun, answers every new request 503 itself, on a site host, its own and S3', async () => {
    const gw = await startGateway({ logLevel: 'info' });
    const hosts = [`abcd.localhost:${gw.port}`, `127.0.0.1:${gw.port}`];
    // The controls: a site host's /healthz is the site's (no such site: 404), not the gateway's.
    const before = await Promise.all(hosts.map((host) => siteGet(gw.url, '/healthz', { host })));
    expect(before.map((answer) => answer.status)).toEqual([404, 200]);
    // Begun before the signal: their connections keep the server open while it shuts down.
    const requests = await Promise.all(
      hosts.map((host) => splitRequest(gw.port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`)),
    );
    // The S3 listener's control: an anonymous request is refused by SigV4 (403 AccessDenied).
    const s3Port = Number(new URL(gw.s3Url).port);
    const s3Head = `GET /some-label/key HTTP/1.1\r\nHost: 127.0.0.1:${s3Port}\r\n`;
    const s3Before = await (await splitRequest(s3Port, `${s3Head}Connection: close\r\n`)).end();
    expect([s3Before.status, /<Code>(\w+)<\/Code>/.exec(s3Before.body)?.[1]]).toEqual([
      403,
      'AccessDenied',
    ]);
    const s3Request = await splitRequest(s3Port, s3Head);
    process.kill(gw.pid, 'SIGTERM');
    await gw.waitForLine(/"event":"shutdown"/, 10_000);
    const answers = await Promise.all(requests.map((request) => request.end()));
    // S3's own 503 (XML, retried by clients), not an operation run with its dependencies closed.
    const s3Answer = await s3Request.end();
    expect([s3Answer.status, /<Code>(\w+)<\/Code>/.exec(s3Answer.body)?.[1]]).toEqual([
      503,
      'ServiceUnavailable',
    ]);
    expect(s3Answer.head).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(s3Answer.head).toMatch(/\r\nconnection: close\r\n/i);
    for (const [i, answer] of answers.entries()) {
      // Not an edge's or a route's answer (a 500 with closed dependencies), nor Fastify's 503.
      expect([hosts[i], answer.status, answer.body]).toEqual([
        hosts[i],
        503,
        'the gateway is shutting down: retry shortly\n',
      ]);
      expect(answer.head).toMatch(/\r\nretry-after: 5\r\n/i);
      expect(answer.head).toMatch(/\r\nconnection: close$/im);
    }
    expect(await gw.stop('SIGTERM')).toBe(0);
  });

  it('warns when started without the Node flags `npm start` passes', async () => {
    const gw = await startGateway({ nodeFlags: [] });
    try {
      expect(gw.logs()).toContain('started without --no-memory-reducer');
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    } finally {
      await gw.stop('SIGTERM');
    }
  });

  it('refuses to start with one line naming a wrong config key', () => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], {
      env: { ...process.env, TAPE__GATEWAY__SITE__MAX_AGE_SECS: '-5' },
      encoding: 'utf8',
      timeout: 20000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'config error: gateway.site.max_age_secs: must not be less than 0',
    );
  });

  it('refuses a check across keys at load, before the local network or its data directory', () => {
    const parent = mkdtempSync(join(tmpdir(), 'tape-gw-shell-'));
    const dataDir = join(parent, 'data');
    try {
      const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], {
        env: { ...process.env, TAPE_DATA_DIR: dataDir, TAPE__STORAGE__TRACKS__STORE: 's3' },
        encoding: 'utf8',
        timeout: 20000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim()).toBe(
        'config error: storage.tracks.s3.endpoint is required when storage.tracks.store is s3',
      );
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

/** The head of a PutObject of `body` to `key`, signed with the tape's credential. */
async function putObjectHead(
  gw: GatewayProcess,
  tape: TapeWithCredential,
  key: string,
  body: Buffer,
): Promise<string> {
  const path = encodeKeyPath(tape.label, key);
  const signed = await signWithHeader({
    method: 'PUT',
    path,
    host: new URL(gw.s3Url).host,
    headers: {
      'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
      'content-length': String(body.length),
    },
    date: new Date(),
    accessKeyId: tape.accessKeyId,
    secret: tape.secret,
  });
  return requestHead('PUT', path, signed.rawHeaders);
}

/** The `shutdown_drain` log line of a gateway's output. */
function drainLine(gw: GatewayProcess): Record<string, unknown> | undefined {
  const line = gw
    .logs()
    .split('\n')
    .find((l) => l.includes('"event":"shutdown_drain"'));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

/** Whether a listener still takes connections. */
function accepts(url: string): Promise<boolean> {
  return fetch(url).then(
    () => true,
    () => false,
  );
}

describe('gateway process: shutdown drains the requests in flight', () => {
  // Its own data directory: the gateway is started again on it, as after a deploy's restart.
  const dataDir = mkdtempSync(join(tmpdir(), 'tape-gw-drain-'));
  let lab: TapeS3Lab;
  let tape: TapeWithCredential;
  let gw: GatewayProcess;

  beforeAll(async () => {
    lab = await startTapeS3Lab({ dataDir, logLevel: 'info' });
    tape = await tapeWithCredential(lab);
    gw = lab.gw;
  }, 180_000);

  /** Stops the gateway (when it runs) and starts it again on the same data directory. */
  async function restart(config?: Record<string, unknown>): Promise<void> {
    await gw.stop('SIGTERM');
    gw = await startGateway({ dataDir, logLevel: 'info', config });
  }

  /** An S3 PutObject of `body` sent in 12 chunks `intervalMs` apart, 300 ms under way. */
  async function putUnderWay(key: string, body: Buffer, intervalMs: number) {
    const head = await putObjectHead(gw, tape, key, body);
    const put = trickleRequest(Number(new URL(gw.s3Url).port), head, body, {
      chunks: 12,
      intervalMs,
    });
    await put.started;
    await new Promise((resolve) => setTimeout(resolve, 300));
    return put;
  }

  afterAll(async () => {
    lab?.users.forEach((user) => user.cleanup());
    await gw?.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an S3 PutObject whose body still arrives at SIGTERM is stored, answered, and the process exits 0', async () => {
    // 96 KiB sent over about 1.2 s; SIGTERM comes 300 ms in.
    const body = Buffer.from(randomBytes(48 * 1024).toString('hex'));
    const put = await putUnderWay('in-flight.txt', body, 100);
    process.kill(gw.pid, 'SIGTERM');
    await gw.waitForLine(/"event":"shutdown"/, 10_000);
    // Draining: neither listener takes a new connection.
    expect([await accepts(gw.s3Url), await accepts(`${gw.url}/healthz`)]).toEqual([false, false]);

    const answer = await put.answer;
    expect([answer.status, answer.body]).toEqual([200, '']);
    expect(answer.head).toMatch(/\r\nconnection: close$/im);
    const etag = /\r\netag: ("[^"]+")\r\n/i.exec(answer.head)?.[1];
    expect(etag).toBeDefined();
    expect(await gw.stop('SIGTERM')).toBe(0);
    expect(drainLine(gw)).toMatchObject({ drained: 1, cut: 0 });
    expect(gw.logs()).not.toContain('"event":"error_answer"');

    // Stored for real: a gateway started again on the same data directory serves it.
    await restart();
    const read = await signedRequest(Number(new URL(gw.s3Url).port), {
      method: 'GET',
      path: encodeKeyPath(tape.label, 'in-flight.txt'),
      accessKeyId: tape.accessKeyId,
      secret: tape.secret,
    });
    expect([read.status, read.headers.etag, read.body === body.toString()]).toEqual([
      200,
      etag,
      true,
    ]);
  });

  it('a site download read slowly across SIGTERM gets every byte, and the process exits 0', async () => {
    await restart();
    // Larger than what the kernel buffers on loopback (4 MiB to send here, tcp_wmem): most of
    // it is still in the gateway when SIGTERM comes.
    const body = randomBytes(16 * 1024 * 1024);
    const s3Port = Number(new URL(gw.s3Url).port);
    const put = await signedRequest(s3Port, {
      method: 'PUT',
      path: encodeKeyPath(tape.label, 'download.bin'),
      headers: {
        'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
        'content-length': String(body.length),
      },
      body,
      accessKeyId: tape.accessKeyId,
      secret: tape.secret,
    });
    expect(put.status).toBe(200);
    // Nothing read until SIGTERM; then one read of the socket every 5 ms (about a second).
    const download = slowReader(
      gw.port,
      `GET /site/${tape.tape}/download.bin HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`,
      5,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(gw.pid, 'SIGTERM');
    await gw.waitForLine(/"event":"shutdown"/, 10_000);

    const received = await download.read();
    const split = received.indexOf('\r\n\r\n');
    expect(received.subarray(0, 15).toString()).toBe('HTTP/1.1 200 OK');
    expect(received.length - split - 4).toBe(body.length);
    expect(received.subarray(split + 4).equals(body)).toBe(true);
    expect(await gw.stop('SIGTERM')).toBe(0);
    expect(drainLine(gw)).toMatchObject({ drained: 1, cut: 0 });
  });

  it('cuts a request still in flight when the drain budget runs out, and exits 0 within the grace period', async () => {
    // 1500 ms to drain, 1500 for the modules; this body takes 12 s.
    await restart({ gateway: { shutdown_grace_ms: 3000 } });
    const body = Buffer.from(randomBytes(16 * 1024).toString('hex'));
    const put = await putUnderWay('too-slow.txt', body, 1000);
    const signalled = Date.now();
    const code = await gw.stop('SIGTERM');
    const exitMs = Date.now() - signalled;

    expect(code).toBe(0);
    expect(exitMs).toBeGreaterThanOrEqual(1500);
    expect(exitMs).toBeLessThan(3000);
    // Cut: no answer at all, the connection closed.
    expect(await put.answer).toEqual({ status: 0, head: '', body: '' });
    expect(drainLine(gw)).toMatchObject({
      drained: 0,
      cut: 1,
      cut_by_listener: { s3: 1 },
      budget_ms: 1500,
    });
  });
});
