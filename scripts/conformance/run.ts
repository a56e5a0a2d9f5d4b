/**
 * `npm run conformance`: Ceph's s3-tests (a pinned revision) against a gateway started here,
 * with each bucket the suite asks for mapped onto a new tape (adapter: tape_adapter.py).
 * Prints pass/fail per area and writes the per-test results to conformance-results.txt.
 *
 * Inputs (environment):
 *   S3TESTS_DIR   where to get ceph/s3-tests: a git directory or URL holding the pinned commit
 *                 (this machine has no internet: a local mirror). Required.
 *   S3TESTS_ONLY  optional substrings, comma-separated: run only the selected tests whose id
 *                 contains one of them.
 *   S3TESTS_SLICE optional `start:end` (0-based, end excluded): run that part of the selection.
 *   S3TESTS_OUT   where to write the per-test results (default: ./conformance-results.txt).
 *   S3TESTS_BUCKETS  `fresh` (default): each bucket the suite asks for is a new tape.
 *                 `shared`: every test runs on the same tape (a second bucket in one test on a
 *                 second shared tape), emptied through S3 after each test, so later tests write
 *                 keys earlier ones wrote and deleted moments before.
 *   BOTOCORE_DIR, BOTO3_DIR, S3TRANSFER_DIR
 *                 git directories (or URLs) of boto/botocore, boto/boto3 and boto/s3transfer
 *                 holding the pinned commits below (the client of the suite's era; Debian's
 *                 python3-boto3 1.26 is three years older and fails ~15 tests inside the client).
 *                 Each is extracted like the suite and put first on PYTHONPATH. Unset: the
 *                 interpreter's own boto3 is used, and the run says so.
 *   PYTHON        the interpreter (default /usr/bin/python3, Debian's, which has the packages:
 *                 python3-pytest python3-munch python3-isodate python3-lxml python3-dateutil
 *                 python3-tz python3-requests python3-yaml python3-jmespath python3-urllib3, and
 *                 python3-boto3 when the directories above are not given).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../test/support/processes/gateway';
import {
  startTapeS3Lab,
  TapeS3Lab,
  tapeWithCredential,
  TapeWithCredential,
} from '../../test/support/labs/s3-tape-lab';

/** ceph/s3-tests revision the selection was made against (main, 2026-11). */
export const S3TESTS_COMMIT = '8f0ae7b404a3a2fcf7038bf1e6bf29544fe9b6a3';

/**
 * The Python client of the suite's era (pure Python; botocore works without awscrt): the
 * releases of the suite's week, botocore and boto3 1.43.6 (2026-05-07), and s3transfer's main of
 * 2026-04-28 (0.16.1 and later; boto3 1.43.6 asks for 0.17, which uses nothing the suite needs).
 */
export const PYTHON_CLIENT = [
  {
    env: 'BOTOCORE_DIR',
    repo: 'boto/botocore',
    commit: '4fa215485bd16e0be795e1a77cd41c42bfe14f84',
    dir: 'botocore',
  },
  {
    env: 'BOTO3_DIR',
    repo: 'boto/boto3',
    commit: 'f2ccf9f3738028afa9d5a6545e52f8520a31afe1',
    dir: 'boto3',
  },
  {
    env: 'S3TRANSFER_DIR',
    repo: 'boto/s3transfer',
    commit: 'bf4262882ba285aea84daee2adbbd1359c23eec6',
    dir: 's3transfer',
  },
] as const;

const HERE = join(REPO_ROOT, 'scripts', 'conformance');

/** Tapes made ahead of the suite's requests for new buckets (fresh mode). */
const POOL = 6;
const PROVISION_CONCURRENCY = 3;

export type BucketMode = 'fresh' | 'shared';

export function bucketModeOf(value: string | undefined): BucketMode {
  if (value === undefined || value === '' || value === 'fresh') return 'fresh';
  if (value === 'shared') return 'shared';
  throw new Error(`S3TESTS_BUCKETS must be fresh or shared, not ${JSON.stringify(value)}`);
}

async function main(): Promise<void> {
  const source = process.env.S3TESTS_DIR;
  if (!source) {
    throw new Error(
      'set S3TESTS_DIR to a git directory or URL holding ceph/s3-tests ' + S3TESTS_COMMIT,
    );
  }
  const buckets = bucketModeOf(process.env.S3TESTS_BUCKETS);
  const work = mkdtempSync(join(tmpdir(), 'tape-conformance-'));
  const suite = join(work, 's3-tests');
  checkout(source, S3TESTS_COMMIT, suite);
  const pythonLib = pythonClient(join(work, 'python'));
  const only = (process.env.S3TESTS_ONLY ?? '').split(',').filter((p) => p !== '');
  const selection = readFileSync(join(HERE, 'selection.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .filter((l) => only.length === 0 || only.some((part) => l.includes(part)))
    .slice(...sliceOf(process.env.S3TESTS_SLICE));

  const lab = await startTapeS3Lab({
    config: {
      localnet: { slot_ms: 100 },
      gateway: { s3: { max_uploads_per_tape: 1000 } },
    },
  });
  // Shared mode needs a tape or two in all: made when first asked for, none ahead.
  const provisioner = await startProvisioner(lab, buckets === 'shared' ? 0 : POOL);
  const started = Date.now();
  try {
    const port = (provisioner.server.address() as AddressInfo).port;
    const conf = join(work, 's3tests.conf');
    writeFileSync(conf, s3TestsConf(new URL(lab.gw.s3Url)));
    const out = process.env.S3TESTS_OUT ?? 'conformance-results.txt';
    const junit = `${out}.xml`;
    const code = await runPytest(
      suite,
      selection,
      {
        S3TEST_CONF: conf,
        TAPE_CONFORMANCE_PROVISION: `http://127.0.0.1:${port}/tape`,
        TAPE_CONFORMANCE_BUCKETS: buckets,
        PYTHONPATH: [...pythonLib, HERE, suite].join(':'),
        // Debian's python3-awscrt (a 2021 build) is importable from /usr/bin/python3, and botocore
        // then signs through it: its signer fails presigned URLs with X-Amz-Expires=0, header
        // lists and blank Authorization headers before any request is sent. botocore's own
        // signer (pure Python) is what the suite is written against.
        BOTO_DISABLE_CRT: 'true',
      },
      junit,
    );
    const results = parseJunit(readFileSync(junit, 'utf8'));
    console.log(
      `\nbuckets: ${buckets}; suite run ${((Date.now() - started) / 60000).toFixed(1)} min`,
    );
    report(results, selection, out);
    process.exitCode = code === 0 ? 0 : 1;
  } finally {
    await provisioner.stop();
    await lab.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function sliceOf(spec: string | undefined): [number, number?] {
  if (!spec) return [0];
  const [start, end] = spec.split(':');
  return [Number(start) || 0, end ? Number(end) : undefined];
}

/** The pinned client libraries, when given: the directories to put first on PYTHONPATH. */
function pythonClient(into: string): string[] {
  const given = PYTHON_CLIENT.filter((lib) => process.env[lib.env]);
  if (given.length === 0) {
    console.warn(
      "BOTOCORE_DIR, BOTO3_DIR, S3TRANSFER_DIR unset: using the interpreter's own boto3 " +
        '(Debian 12: 1.26, older than the suite; about 15 tests fail inside the client)',
    );
    return [];
  }
  const missing = PYTHON_CLIENT.filter((lib) => !process.env[lib.env]).map((lib) => lib.env);
  if (missing.length > 0)
    throw new Error(`set all three of them or none: ${missing.join(', ')} unset`);
  for (const lib of PYTHON_CLIENT) {
    checkout(process.env[lib.env] ?? '', lib.commit, join(into, lib.dir), lib.dir);
  }
  return PYTHON_CLIENT.map((lib) => join(into, lib.dir));
}

/** A pinned revision's files (or one folder of them), from a git directory (a mirror) or a URL. */
function checkout(source: string, commit: string, into: string, folder?: string): void {
  execFileSync('mkdir', ['-p', into]);
  let gitDir = source;
  if (/^[a-z]+:\/\//.test(source) || source.endsWith('.git')) {
    gitDir = `${into}.git`;
    execFileSync('git', ['clone', '--bare', '--quiet', source, gitDir], { stdio: 'inherit' });
  }
  const archive = execFileSync(
    'git',
    ['--git-dir', resolveGitDir(gitDir), 'archive', commit, ...(folder ? [folder] : [])],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  execFileSync('tar', ['-x', '-C', into], { input: archive });
}

function resolveGitDir(path: string): string {
  try {
    return execFileSync('git', ['-C', path, 'rev-parse', '--git-dir'], { encoding: 'utf8' })
      .trim()
      .replace(/^(?!\/)/, `${path}/`);
  } catch {
    return path;
  }
}

/** POST /tape: a new delegated tape with a credential, from a pool filled in the background. */
async function startProvisioner(
  lab: TapeS3Lab,
  pool: number,
): Promise<{ server: Server; stop: () => Promise<void> }> {
  const ready: TapeWithCredential[] = [];
  const waiting: ((t: TapeWithCredential) => void)[] = [];
  let making = 0;
  let stopped = false;
  const fill = () => {
    while (
      !stopped &&
      making < PROVISION_CONCURRENCY &&
      ready.length + making < pool + waiting.length
    ) {
      making++;
      void tapeWithCredential(lab, { capacity: '200m' })
        .then((tape) => {
          const next = waiting.shift();
          if (next) next(tape);
          else ready.push(tape);
        })
        .catch((error: unknown) => console.error('provisioning failed:', error))
        .finally(() => {
          making--;
          fill();
        });
    }
  };
  const take = () =>
    new Promise<TapeWithCredential>((done) => {
      const tape = ready.shift();
      if (tape) done(tape);
      else waiting.push(done);
      fill();
    });
  fill();
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/tape') {
      res.writeHead(404).end();
      return;
    }
    void take().then((tape) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          label: tape.label,
          accessKeyId: tape.accessKeyId,
          secret: tape.secret,
          tape: tape.tape,
        }),
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const stop = async () => {
    stopped = true;
    server.close();
    while (making > 0) await new Promise((r) => setTimeout(r, 100));
  };
  return { server, stop };
}

function s3TestsConf(endpoint: URL): string {
  const user = (name: string) =>
    [
      `[${name}]`,
      'display_name = tape-conformance',
      'user_id = tape-conformance',
      'email = conformance@tape.invalid',
      // The adapter signs each request with the credential of the bucket's tape instead.
      'access_key = TAPECONFORMANCEMAIN',
      'secret_key = not-a-secret-the-adapter-swaps-it',
      'tenant = none',
      '',
    ].join('\n');
  return [
    '[DEFAULT]',
    `host = ${endpoint.hostname}`,
    `port = ${endpoint.port}`,
    'is_secure = False',
    'ssl_verify = False',
    '',
    '[fixtures]',
    'bucket prefix = tape-{random}-',
    '',
    user('s3 main'),
    user('s3 alt').replace('TAPECONFORMANCEMAIN', 'TAPECONFORMANCEALT'),
    user('s3 tenant').replace('TAPECONFORMANCEMAIN', 'TAPECONFORMANCETENANT'),
    user('iam'),
    user('iam root'),
    user('iam alt root'),
  ].join('\n');
}

function runPytest(
  suite: string,
  tests: string[],
  env: Record<string, string>,
  junit: string,
): Promise<number | null> {
  const args = [
    '-m',
    'pytest',
    '-p',
    'tape_adapter',
    '-v',
    '-rN',
    '--tb=line',
    '-o',
    'cache_dir=' + join(suite, '.pytest_cache'),
    '--junitxml',
    junit,
    ...tests,
  ];
  const child = spawn(process.env.PYTHON ?? '/usr/bin/python3', args, {
    cwd: suite,
    env: { ...process.env, ...env },
    stdio: 'inherit',
  });
  return new Promise((done) => child.on('exit', (code) => done(code)));
}

interface TestResult {
  id: string;
  outcome: 'passed' | 'failed' | 'error' | 'skipped';
  message: string;
}

/** The junit XML pytest writes: one <testcase> per test, with <failure>/<error>/<skipped>. */
function parseJunit(xml: string): TestResult[] {
  const results: TestResult[] = [];
  const cases = xml.matchAll(/<testcase ([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g);
  for (const [, attrs, , inner = ''] of cases) {
    const name = /(?:^|\s)name="([^"]*)"/.exec(attrs)?.[1] ?? '?';
    const file = /classname="([^"]*)"/.exec(attrs)?.[1] ?? '';
    const id = `${file.replace(/\./g, '/')}.py::${name}`;
    const kind = /<(failure|error|skipped)\b([^>]*)>/.exec(inner);
    const message = kind ? (/message="([^"]*)"/.exec(kind[2])?.[1] ?? '') : '';
    const outcome = kind
      ? kind[1] === 'failure'
        ? 'failed'
        : (kind[1] as 'error' | 'skipped')
      : 'passed';
    results.push({ id, outcome, message: unescapeXml(message).split('\n')[0].slice(0, 160) });
  }
  return results;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#10;/g, '\n')
    .replace(/&amp;/g, '&');
}

/** The area a test belongs to, from its name (for the summary). */
export function areaOf(id: string): string {
  const name = id.split('::')[1] ?? id;
  if (id.includes('test_headers.py')) return 'headers and auth';
  const areas: [RegExp, string][] = [
    [/multipart|_part_|upload_part/, 'multipart'],
    [/copy/, 'copy'],
    [/if(none)?match|ifnonmatch|conditional|atomic|_if_/, 'conditional'],
    [/list|prefix|delimiter|marker|maxkeys|fetchowner|encoding|key_count/, 'listing'],
    [/checksum|md5/, 'checksums'],
    [/metadata|header|content_|cache|expires_header/, 'headers and metadata'],
    [/raw|presign|auth|expires/, 'auth and presigned'],
    [/range/, 'ranges'],
    [/delete/, 'delete'],
  ];
  return areas.find(([re]) => re.test(name))?.[1] ?? 'objects';
}

function report(results: TestResult[], selection: string[], out: string): void {
  const byId = new Map(results.map((r) => [r.id, r]));
  const rows = selection.map(
    (id) => byId.get(id) ?? { id, outcome: 'error' as const, message: 'not run' },
  );
  const areas = new Map<string, { pass: number; fail: number }>();
  for (const row of rows) {
    const area = areas.get(areaOf(row.id)) ?? { pass: 0, fail: 0 };
    if (row.outcome === 'passed') area.pass++;
    else area.fail++;
    areas.set(areaOf(row.id), area);
  }
  console.log('\ns3-tests ' + S3TESTS_COMMIT.slice(0, 12) + ' against the tape gateway');
  for (const [area, { pass, fail }] of [...areas].sort()) {
    console.log(
      `  ${area.padEnd(22)} ${String(pass).padStart(4)} pass ${String(fail).padStart(4)} fail`,
    );
  }
  const passed = rows.filter((r) => r.outcome === 'passed').length;
  console.log(`  ${'total'.padEnd(22)} ${String(passed).padStart(4)} of ${rows.length}`);
  writeFileSync(
    out,
    rows
      .map(
        (r) => `${r.outcome.toUpperCase().padEnd(7)} ${r.id}${r.message ? '  ' + r.message : ''}`,
      )
      .join('\n') + '\n',
  );
  console.log(`per-test results: ${out}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
