import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliUser } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { awsCli, rclone } from './support/clients/s3-cli';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';

/**
 * Issue 36: the sync commands `tape gateway credentials issue` prints (and docs/s3.md gives)
 * catch an edit that keeps a file's size, which `--size-only` silently skips. The printed lines
 * are run as printed (the directory aside) against the gateway, with the real aws-cli 2 and rclone.
 */
describe('S3 sync advice', () => {
  const fx = useS3TapeFixture({ tape: { capacity: '1m' }, startTimeout: 120_000 });
  let printed: string[];
  let dir: string;
  let aws: ReturnType<typeof awsCli>;

  /** A printed command's arguments, the site directory put in and the endpoint checked. */
  const argsOf = (line: string, tool: string, endpointFlag: string): string[] => {
    const words = line.trim().split(/\s+/);
    expect(words[0]).toBe(tool);
    const at = words.indexOf(endpointFlag);
    expect(words[at + 1]).toBe(fx.lab.gw.s3Url);
    return words.slice(1).map((w) => (w === './site' ? dir : w));
  };
  /** Sets a file's modification time `secs` from now. */
  const touch = (name: string, secs: number) => {
    const t = Date.now() / 1000 + secs;
    utimesSync(join(dir, name), t, t);
  };
  const served = async (key: string) =>
    (await aws('s3', 'cp', `s3://${fx.site.label}/${key}`, '-')).stdout;

  beforeAll(async () => {
    aws = awsCli(fx.lab.gw.s3Url, fx.site.accessKeyId, fx.site.secret);
    // The operator's environment names the gateway's S3 port, as on the gateway's machine.
    const operator = new CliUser(fx.lab.gw, {
      TAPE_DATA_DIR: fx.lab.gw.dataDir,
      TAPE_S3_PORT: new URL(fx.lab.gw.s3Url).port,
    });
    fx.lab.users.push(operator);
    const issued = await operator.run(['gateway', 'credentials', 'issue', '--tape', fx.site.tape]);
    expect(issued.code).toBe(0);
    printed = issued.stderr.trimEnd().split('\n');
    dir = writeSite({ 'index.html': '<h1>v1</h1>', 'style.css': 'h1{color:red}' });
    // Written long before the first sync, as a build's output usually is.
    touch('index.html', -600);
    touch('style.css', -600);
  }, 120_000);

  afterAll(async () => {
    if (dir) removeSite(dir);
  });

  it('prints the plain aws s3 sync and rclone --update --use-server-modtime, and says what --size-only skips', () => {
    const endpoint = fx.lab.gw.s3Url;
    expect(printed.slice(1)).toEqual([
      'sync a site (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the two values above):',
      `  aws s3 sync ./site s3://${fx.site.label} --delete --endpoint-url ${endpoint}`,
      `  rclone sync ./site :s3:${fx.site.label} --update --use-server-modtime --s3-provider Other --s3-env-auth --s3-endpoint ${endpoint}`,
      'both upload every file changed since its last upload (newer than the object, or of another size); --size-only would skip a file edited to the same size',
    ]);
  });

  it('the printed aws s3 sync uploads a same-size edit that --size-only skips; rclone as printed too', async () => {
    const awsArgs = argsOf(printed[2], 'aws', '--endpoint-url').filter(
      (w, i, all) => w !== '--endpoint-url' && all[i - 1] !== '--endpoint-url',
    );
    const first = await aws(...awsArgs);
    expect(first.code).toBe(0);
    expect(first.stdout.match(/^upload:/gm)).toHaveLength(2);
    const again = await aws(...awsArgs);
    expect([again.code, again.stdout]).toEqual([0, '']); // nothing changed, nothing sent

    // Edited after the sync, same size: --size-only sees nothing to do and the old page stays.
    writeFileSync(join(dir, 'index.html'), '<h1>v2</h1>');
    touch('index.html', 0);
    const sizeOnly = await aws('s3', 'sync', dir, `s3://${fx.site.label}`, '--size-only');
    expect([sizeOnly.code, sizeOnly.stdout]).toEqual([0, '']);
    expect(await served('index.html')).toBe('<h1>v1</h1>');

    // The printed command uploads exactly the edited file.
    const plain = await aws(...awsArgs);
    expect(plain.code).toBe(0);
    expect(plain.stdout.match(/^upload: .*$/gm)).toEqual([
      expect.stringMatching(/index\.html to s3:\/\/.*\/index\.html$/),
    ]);
    expect(await served('index.html')).toBe('<h1>v2</h1>');

    // rclone as printed: the listing's LastModified against the file's time, no HEAD per file.
    writeFileSync(join(dir, 'index.html'), '<h1>v3</h1>');
    touch('index.html', 0);
    const r = rclone(fx.lab.gw.s3Url, fx.site.accessKeyId, fx.site.secret);
    const synced = await r(...argsOf(printed[3], 'rclone', '--s3-endpoint'), '-v');
    expect(synced.code).toBe(0);
    expect(synced.stderr.match(/INFO {2}: \S+: Copied/g)).toEqual(['INFO  : index.html: Copied']);
    expect(await served('index.html')).toBe('<h1>v3</h1>');
    expect(await served('style.css')).toBe('h1{color:red}');
  });
});
