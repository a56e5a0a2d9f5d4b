import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../processes/free-port';

const run = promisify(execFile);

/**
 * A real DNSSEC lab on loopback: BIND `named` authoritative for test zones (signed with
 * dnssec-keygen/dnssec-signzone, or left unsigned), and `unbound` validating them with the
 * signed zones' DS sets as trust anchors, each zone a stub to named. Everything lives in one
 * temporary directory; both daemons run in the foreground and are stopped by PID.
 */
export interface LabZone {
  /** e.g. `example.test` */
  origin: string;
  signed: boolean;
  /** Zone-file lines relative to the origin, e.g. `_tape.site 300 IN TXT "..."`. */
  records: string[];
  /** Text replaced in the signed file after every signing: data no longer matches its RRSIG. */
  tamper?: { from: string; to: string }[];
}

export class DnssecLab {
  private serial = 1;

  private constructor(
    readonly dir: string,
    private readonly zones: Map<string, LabZone>,
    readonly authorityPort: number,
    readonly resolverPort: number,
    private readonly controlPort: number,
    private readonly named: Daemon,
    private readonly unbound: Daemon,
  ) {}

  /** Where the validating resolver listens, as `gateway.site.dns_resolvers` takes it. */
  get resolverAddress(): string {
    return `127.0.0.1:${this.resolverPort}`;
  }

  static async start(zoneList: LabZone[]): Promise<DnssecLab> {
    const dir = mkdtempSync(join(tmpdir(), 'dnssec-lab-'));
    const zones = new Map(zoneList.map((zone) => [zone.origin, zone]));
    const authorityPort = await freePort();
    const resolverPort = await freePort();
    const controlPort = await freePort();
    let named: Daemon | undefined;
    let unbound: Daemon | undefined;
    try {
      for (const zone of zoneList) {
        if (zone.signed) await generateKeys(dir, zone.origin);
        await writeZone(dir, zone, 1);
      }
      writeFileSync(join(dir, 'named.conf'), namedConf(dir, authorityPort, zoneList));
      named = startDaemon('named', ['-g', '-c', join(dir, 'named.conf')]);
      for (const zone of zoneList) await waitForSerial(named, authorityPort, zone.origin, 1);

      writeFileSync(
        join(dir, 'unbound.conf'),
        unboundConf(dir, resolverPort, controlPort, authorityPort, zoneList),
      );
      unbound = startDaemon('unbound', ['-d', '-c', join(dir, 'unbound.conf')]);
      await waitForResolver(unbound, resolverPort, zoneList[0].origin);
      return new DnssecLab(dir, zones, authorityPort, resolverPort, controlPort, named, unbound);
    } catch (err) {
      await unbound?.stop();
      await named?.stop();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Replaces a zone's records: re-signs, makes named reload (SIGHUP), waits until the new serial
   * is served, then flushes unbound's cache of the zone, as if every cached TTL had run out.
   */
  async setRecords(origin: string, records: string[]): Promise<void> {
    const zone = this.zones.get(origin);
    if (!zone) throw new Error(`no zone ${origin} in the lab`);
    zone.records = records;
    this.serial += 1;
    await writeZone(this.dir, zone, this.serial);
    this.named.child.kill('SIGHUP');
    await waitForSerial(this.named, this.authorityPort, origin, this.serial);
    await this.flushResolver(origin);
  }

  async flushResolver(origin: string): Promise<void> {
    const conf = join(this.dir, 'unbound.conf');
    for (const args of [['flush_zone', origin], ['flush_negative'], ['flush_bogus']]) {
      await run('unbound-control', ['-c', conf, ...args]);
    }
  }

  /** `dig` against the validating resolver, for checks a test wants to see with its own eyes. */
  async dig(...args: string[]): Promise<string> {
    const { stdout } = await run('dig', [
      `@127.0.0.1`,
      '-p',
      String(this.resolverPort),
      '+time=2',
      '+tries=1',
      ...args,
    ]);
    return stdout;
  }

  logs(): string {
    return `--- named ---\n${this.named.output()}\n--- unbound ---\n${this.unbound.output()}`;
  }

  async stop(): Promise<void> {
    await this.unbound.stop();
    await this.named.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Daemon {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

function startDaemon(command: string, args: string[]): Daemon {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (err) => (output += `spawn failed: ${err.message}\n`));
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      process.kill(child.pid, 'SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}

async function generateKeys(dir: string, origin: string): Promise<void> {
  const common = ['-q', '-K', dir, '-a', 'ECDSAP256SHA256'];
  await run('dnssec-keygen', [...common, '-f', 'KSK', origin], { cwd: dir });
  await run('dnssec-keygen', [...common, origin], { cwd: dir });
}

async function writeZone(dir: string, zone: LabZone, serial: number): Promise<void> {
  const text = [
    '$TTL 300',
    `$ORIGIN ${zone.origin}.`,
    `@ IN SOA ns.${zone.origin}. hostmaster.${zone.origin}. ${serial} 3600 600 86400 30`,
    '@ IN NS ns',
    'ns IN A 127.0.0.1',
    ...zone.records,
    '',
  ].join('\n');
  const source = join(dir, `${zone.origin}.zone`);
  writeFileSync(source, text);
  if (!zone.signed) return;
  const signed = `${source}.signed`;
  // -S: smart signing with the keys in -K; the DS set (our trust anchor) lands in -d.
  await run(
    'dnssec-signzone',
    ['-S', '-K', dir, '-d', dir, '-o', zone.origin, '-f', signed, source],
    { cwd: dir },
  );
  if (zone.tamper?.length) {
    let content = readFileSync(signed, 'utf8');
    for (const edit of zone.tamper) {
      if (!content.includes(edit.from)) throw new Error(`tamper: "${edit.from}" not in ${signed}`);
      content = content.split(edit.from).join(edit.to);
    }
    writeFileSync(signed, content);
  }
}

function zoneFile(dir: string, zone: LabZone): string {
  return join(dir, zone.signed ? `${zone.origin}.zone.signed` : `${zone.origin}.zone`);
}

function namedConf(dir: string, port: number, zones: LabZone[]): string {
  return [
    'options {',
    `  directory "${dir}";`,
    `  pid-file "${join(dir, 'named.pid')}";`,
    `  session-keyfile "${join(dir, 'session.key')}";`,
    `  listen-on port ${port} { 127.0.0.1; };`,
    '  listen-on-v6 { none; };',
    '  recursion no;',
    '  dnssec-validation no;',
    '  notify no;',
    '  allow-transfer { none; };',
    '};',
    // No rndc channel: the lab reloads with SIGHUP.
    'controls { };',
    ...zones.map((z) => `zone "${z.origin}" { type primary; file "${zoneFile(dir, z)}"; };`),
    '',
  ].join('\n');
}

function unboundConf(
  dir: string,
  port: number,
  controlPort: number,
  authorityPort: number,
  zones: LabZone[],
): string {
  return [
    'server:',
    '  interface: 127.0.0.1',
    `  port: ${port}`,
    '  do-ip6: no',
    '  num-threads: 1',
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${join(dir, 'unbound.pid')}"`,
    '  use-syslog: no',
    '  logfile: ""',
    '  verbosity: 1',
    '  val-log-level: 2',
    '  do-not-query-localhost: no',
    '  local-zone: "test." nodefault',
    '  module-config: "validator iterator"',
    // Answers over 512 bytes come back truncated over UDP, so large RRsets exercise TCP.
    '  max-udp-size: 512',
    ...zones
      .filter((z) => z.signed)
      .map((z) => `  trust-anchor-file: "${join(dir, `dsset-${z.origin}.`)}"`),
    'remote-control:',
    '  control-enable: yes',
    '  control-interface: 127.0.0.1',
    `  control-port: ${controlPort}`,
    '  control-use-cert: no',
    ...zones.flatMap((z) => [
      'stub-zone:',
      `  name: "${z.origin}"`,
      `  stub-addr: 127.0.0.1@${authorityPort}`,
    ]),
    '',
  ].join('\n');
}

async function waitForSerial(daemon: Daemon, port: number, origin: string, serial: number) {
  await waitFor(daemon, `named serving ${origin} serial ${serial}`, async () => {
    const { stdout } = await run('dig', [
      '@127.0.0.1',
      '-p',
      String(port),
      '+norec',
      '+short',
      '+time=1',
      '+tries=1',
      'SOA',
      origin,
    ]);
    return stdout.split(/\s+/)[2] === String(serial);
  });
}

async function waitForResolver(daemon: Daemon, port: number, origin: string) {
  await waitFor(daemon, 'unbound answering', async () => {
    const { stdout } = await run('dig', [
      '@127.0.0.1',
      '-p',
      String(port),
      '+time=1',
      '+tries=1',
      'SOA',
      origin,
    ]);
    return stdout.includes('status: NOERROR');
  });
}

async function waitFor(daemon: Daemon, what: string, probe: () => Promise<boolean>) {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (daemon.child.exitCode !== null) {
      throw new Error(`exited while waiting for ${what}:\n${daemon.output()}`);
    }
    try {
      if (await probe()) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}:\n${daemon.output()}`);
}
