import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { commitmentOfFile } from '../src/tracks/commitment';
import { CliDesk } from './support/labs/cli-desk';
import { CLI_ENTRY, CliUser } from './support/clients/cli';
import { generateSite } from './support/fixtures/site-dir';
import { GatewayProcess, startGateway } from './support/processes/gateway';

interface ListedObject {
  name: string;
  commitment: string;
}

/** it.concurrent does not take the project's testTimeout; CI machines are shared. */
const TEST_TIMEOUT_MS = 300_000;
const FILE_BYTES = 70 * 1024;

/**
 * `tape deploy` against gateways that refuse part of what it sends (issue 17): a tiny limit of
 * uploads at once per client (429 with Retry-After 1), and a tiny per-client upload budget
 * (429 with Retry-After until the window ends). The deploy must finish, and every file must be
 * on the tape with the bytes of the directory. Also the progress output: a bar redrawn with
 * carriage returns under a pseudo-terminal, plain lines otherwise.
 */
describe('tape deploy on a busy gateway', () => {
  const gateways: GatewayProcess[] = [];
  const desk = new CliDesk();
  afterAll(async () => {
    desk.cleanup();
    await Promise.all(gateways.map((g) => g.stop()));
  });

  const gateway = async (env: Record<string, string>) => {
    const gw = await startGateway({ env });
    gateways.push(gw);
    return gw;
  };
  const userWithTape = async (gw: GatewayProcess) => (await desk.withTape(gw, '20m')).u;
  /**
   * Files of 70 KiB: over the 64 KiB a pack takes, so each is one upload of its own (a version
   * packs small files: 200 small files would be one pack and a root, and never meet a limit).
   */
  const site = (count: number, seed: string) => {
    const files = generateSite(count, count * FILE_BYTES, seed);
    return { root: desk.site(files), names: Object.keys(files) };
  };
  /** Every file of `root` is on the tape under its name, with the commitment of its bytes. */
  const expectIdentical = async (u: CliUser, root: string, names: string[]) => {
    const listed = new Map(
      (await u.json<ListedObject[]>(['object', 'ls'])).map((o) => [o.name, o.commitment]),
    );
    expect([...listed.keys()].sort()).toEqual([...names].sort());
    for (const name of names) {
      const { commitment } = await commitmentOfFile(join(root, name));
      expect([name, listed.get(name)]).toEqual([name, commitment.toString('hex')]);
    }
  };

  /**
   * A new user with a tape deploys a site of `count` generated files through `gw`, not on a
   * terminal (plain lines on stderr, the result alone on stdout): the deploy succeeds, says all
   * of them were uploaded, and every one is on the tape with its bytes. Returns the run.
   */
  const deployGenerated = async (gw: GatewayProcess, count: number, seed: string) => {
    const u = await userWithTape(gw);
    const { root, names } = site(count, seed);
    const r = await u.run(['deploy', join(root, 'index.html')], { timeoutMs: 280_000 });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^Deployed ${count} files \\(${count} uploaded, 0 unchanged\\)$`, 'm'),
    );
    await expectIdentical(u, root, names);
    return r;
  };

  it.concurrent(
    'finishes a 200-file deploy when the gateway takes 2 uploads at once per client',
    async () => {
      const gw = await gateway({ TAPE__STORAGE__UPLOADS__MAX_PER_CLIENT: '2' });
      await deployGenerated(gw, 200, 'slots');
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'paces a deploy of 1.7 budgets by Retry-After (170 files, 100 uploads per 60 s)',
    async () => {
      // The default budget is 6000 per 60 s: 10,000 files are 1.67 budgets. Scaled down with the
      // same window, 170 files cannot all go in the first one however slow the machine is.
      const gw = await gateway({
        TAPE__GATEWAY__METERING__UPLOAD__LIMIT: '100',
        TAPE__GATEWAY__METERING__UPLOAD__TTL_SECS: '60',
      });
      // Not a terminal: plain lines on stderr, the result alone on stdout.
      const r = await deployGenerated(gw, 170, 'budget');
      expect(r.stderr).toMatch(/^the gateway is busy \(429\): waiting \d/m);
      // 169 files of their own, index.html's pack and the version's root: 171 uploads, past the
      // budget of 100 requests (with the `missing` question and the publish).
      expect(r.stderr).toMatch(/^uploading 171 files \(/m);
      expect(r.stderr.match(/^uploaded \S+$/gm)).toHaveLength(171);
      expect(r.stderr).not.toContain('\r');
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'draws a progress bar redrawn in place on a terminal; --json keeps stdout a JSON document',
    async () => {
      const gw = await gateway({});
      const u = await userWithTape(gw);
      const { root } = site(40, 'tty');
      // util-linux `script` runs the CLI on a pseudo-terminal: stderr.isTTY is true there.
      const command = [process.execPath, CLI_ENTRY, 'deploy', join(root, 'index.html')]
        .map((a) => `'${a}'`)
        .join(' ');
      const env = {
        ...process.env,
        TAPE_CONFIG_DIR: u.configDir,
        TAPE_RPC_URL: gw.rpcUrl,
        TAPE_GATEWAY: gw.url,
      };
      const out = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
        const child = spawn('script', ['-qfec', command, '/dev/null'], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.stderr.on('data', (d: Buffer) => (text += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, text }));
      });
      expect(out.code).toBe(0);
      // 39 files of their own, index.html's pack, the root.
      expect(out.text).toMatch(/\r\[[#-]{24}\] +\d+% {2}\d+\/41 files {2}/);
      expect(out.text).toContain('\x1b[K');
      expect(out.text).toMatch(/uploaded 41 files \(/);
      expect(out.text).not.toMatch(/^uploaded section-/m);
      expect(out.text).toMatch(/Deployed 40 files \(40 uploaded, 0 unchanged\)/);

      // --json on the same tape: stdout is exactly one JSON document whatever stderr shows.
      const again = await u.run(['deploy', join(root, 'index.html'), '--json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ files: 40, uploaded: 0, unchanged: 40 });
    },
    TEST_TIMEOUT_MS,
  );
});
