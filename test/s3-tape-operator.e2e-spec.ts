import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { labelFromAddress } from '../src/chain/tape-label';
import { CliUser, keyValues } from './support/clients/cli';
import { failure, sdkClient } from './support/clients/s3-sdk-client';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { tapeWithCredential } from './support/labs/s3-tape-lab';

/**
 * The operator commands (`tape gateway key`, `tape gateway credentials issue|list|revoke`) run
 * as the built CLI against the data directory of a running gateway process.
 */
jest.setTimeout(120_000);

// At log level "info" the gateway prints its key at start-up, to compare with the command's.
const fx = useS3TapeFixture({ env: { TAPE_LOG_LEVEL: 'info' }, tapes: 0 });
const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

describe('tape gateway key', () => {
  it('prints the key the running gateway announced (and signs with)', async () => {
    const logged = /"gateway_key":"([1-9A-HJ-NP-Za-km-z]+)"/.exec(fx.lab.gw.logs())?.[1];
    expect(fx.lab.gatewayKey).toBe(logged);
    const json = await fx.lab.operator.json<{ gateway_key: string; keypair_file: string }>([
      'gateway',
      'key',
    ]);
    expect(json).toEqual({
      gateway_key: fx.lab.gatewayKey,
      keypair_file: join(fx.lab.gw.dataDir, 'gateway-key.json'),
    });
  });
});

describe('tape gateway credentials', () => {
  it('issue prints the access key id and secret lines; the secret is stored encrypted', async () => {
    const out = await fx.lab.operator.ok(['gateway', 'credentials', 'issue', '--tape', TAPE]);
    const kv = keyValues(out);
    expect(kv['access key id']).toMatch(/^TK[A-Z2-7]{18}$/);
    expect(kv['secret access key']).toMatch(/^[A-Za-z0-9+/]{40}$/);
    expect(kv['tape address']).toBe(TAPE);
    expect(kv.bucket).toBe(labelFromAddress(TAPE));
    const db = readFileSync(join(fx.lab.gw.dataDir, 's3-credentials.sqlite'));
    expect(db.includes(Buffer.from(kv['secret access key']))).toBe(false);
    expect(statSync(join(fx.lab.gw.dataDir, 's3-credentials.key')).mode & 0o777).toBe(0o600);
  });

  it('issue takes the tape by label too, and the credential works at once', async () => {
    const t = await tapeWithCredential(fx.lab);
    const issued = await fx.lab.operator.json<{
      access_key_id: string;
      secret_access_key: string;
      tape: string;
    }>(['gateway', 'credentials', 'issue', '--tape', t.label]);
    expect(issued.tape).toBe(t.tape);
    const s3 = sdkClient(fx.lab.gw.s3Url, issued.access_key_id, issued.secret_access_key);
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: t.label }));
    expect(listing.KeyCount).toBe(0);
  });

  it('list shows id, tape, created and revoked, never a secret; revoke is idempotent', async () => {
    const issued = keyValues(
      await fx.lab.operator.ok(['gateway', 'credentials', 'issue', '--tape', TAPE]),
    );
    const id = issued['access key id'];
    expect((await fx.lab.operator.ok(['gateway', 'credentials', 'revoke', id])).trim()).toBe(
      `revoked ${id}`,
    );
    expect((await fx.lab.operator.ok(['gateway', 'credentials', 'revoke', id])).trim()).toBe(
      `${id} was already revoked`,
    );
    const table = (await fx.lab.operator.ok(['gateway', 'credentials', 'list']))
      .trimEnd()
      .split('\n');
    expect(table[0]).toMatch(/^ACCESS KEY ID\s+TAPE\s+CREATED\s+REVOKED$/);
    const row = table.find((l) => l.startsWith(id))!;
    expect(row).toMatch(
      new RegExp(
        `^${id}\\s+${TAPE}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+\\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expect(table.join('\n')).not.toContain(issued['secret access key']);
    const json = await fx.lab.operator.json<Record<string, unknown>[]>([
      'gateway',
      'credentials',
      'list',
    ]);
    expect(Object.keys(json[0]).sort()).toEqual([
      'access_key_id',
      'created_at',
      'revoked_at',
      'tape',
    ]);
  });

  it('a revoked credential no longer authenticates', async () => {
    const t = await tapeWithCredential(fx.lab);
    await fx.lab.operator.ok(['gateway', 'credentials', 'revoke', t.accessKeyId]);
    const e = await failure(fx.client(t).send(new ListObjectsV2Command({ Bucket: t.label })));
    expect(e.name).toBe('InvalidAccessKeyId');
  });

  it.each([
    ['no --tape', ['issue'], 'credentials issue: --tape <address> is required'],
    [
      'a tape that is no address or label',
      ['issue', '--tape', 'not-a-tape'],
      "bad tape 'not-a-tape': expected a tape address (base58) or its label",
    ],
    [
      'a 5,000-character tape (echoed shortened)',
      ['issue', '--tape', 'x'.repeat(5000)],
      `bad tape '${'x'.repeat(61)}...': expected a tape address (base58) or its label`,
    ],
    [
      'an id never issued',
      ['revoke', 'TKAAAAAAAAAAAAAAAAAA'],
      'no credential TKAAAAAAAAAAAAAAAAAA was issued here',
    ],
    [
      'an id that is not one',
      ['revoke', "x' OR 1=1"],
      "bad access key id 'x' OR 1=1': expected TK followed by 18 characters A-Z, 2-7",
    ],
  ])('refuses %s with one clear line', async (_label, args, message) => {
    expect(await fx.lab.operator.fails(['gateway', 'credentials', ...args])).toBe(message);
  });

  it('a data directory the system cannot create is one clear line, at once (not a hang)', async () => {
    const elsewhere = new CliUser(fx.lab.gw, { TAPE_DATA_DIR: '/proc/tape-no-such-dir/data' });
    const started = Date.now();
    const line = await elsewhere.fails(['gateway', 'credentials', 'list']);
    expect(line).toMatch(/cannot create directory \/proc\/tape-no-such-dir: E[A-Z]+/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('the groups alone print their help and exit non-zero', async () => {
    for (const args of [['gateway'], ['gateway', 'credentials']]) {
      const r = await fx.lab.operator.run(args);
      expect(r.code).not.toBe(0);
      expect(r.stderr + r.stdout).toMatch(/Usage: tape gateway/);
    }
  });
});
