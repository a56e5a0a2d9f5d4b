import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialCipher } from './credential-cipher';
import {
  CREDENTIALS_FILE,
  SqliteCredentialRegistry,
  OPERATOR_KEY_FILE,
} from './sqlite-credential-registry';
import { ACCESS_KEY_ID_PATTERN } from './credential-registry';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';
const newDir = () => mkdtempSync(join(tmpdir(), 'tape-creds-'));

describe('SqliteCredentialRegistry', () => {
  it('issues AWS-shaped credentials that a second connection (the gateway) finds', async () => {
    const dir = newDir();
    const operator = SqliteCredentialRegistry.open(dir);
    const issued = await operator.issue(TAPE);
    expect(issued.accessKeyId).toMatch(ACCESS_KEY_ID_PATTERN);
    expect(issued.secretAccessKey).toMatch(/^[A-Za-z0-9+/]{40}$/);
    const gateway = SqliteCredentialRegistry.open(dir);
    expect(await gateway.find(issued.accessKeyId)).toEqual({
      accessKeyId: issued.accessKeyId,
      secretAccessKey: issued.secretAccessKey,
      tapeAddress: TAPE,
      revoked: false,
    });
    expect((await operator.issue(TAPE)).accessKeyId).not.toBe(issued.accessKeyId);
    await operator.close();
    await gateway.close();
  });

  it('keeps secrets encrypted at rest, files readable by the owner only', async () => {
    const dir = newDir();
    const db = SqliteCredentialRegistry.open(dir);
    const { secretAccessKey } = await db.issue(TAPE);
    await db.close();
    const bytes = readFileSync(join(dir, CREDENTIALS_FILE));
    expect(bytes.includes(Buffer.from(secretAccessKey))).toBe(false);
    expect(statSync(join(dir, OPERATOR_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
  });

  it('a revoke is seen by another open connection at its next lookup', async () => {
    const dir = newDir();
    const operator = SqliteCredentialRegistry.open(dir);
    const gateway = SqliteCredentialRegistry.open(dir);
    const { accessKeyId } = await operator.issue(TAPE);
    expect((await gateway.find(accessKeyId))?.revoked).toBe(false);
    expect(await operator.revoke(accessKeyId)).toBe('revoked');
    expect((await gateway.find(accessKeyId))?.revoked).toBe(true);
    expect(await operator.revoke(accessKeyId)).toBe('already revoked');
    expect(await operator.revoke('TKAAAAAAAAAAAAAAAAAA')).toBe('unknown');
    const [listed] = await operator.list();
    expect(listed.revokedAt).toBeInstanceOf(Date);
    expect(Object.keys(listed)).not.toContain('secretAccessKey');
  });

  it('answers null for ids never issued or not shaped like one (no query with hostile text)', async () => {
    const db = SqliteCredentialRegistry.open(newDir());
    expect(await db.find('TKAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(await db.find("x' OR 1=1 --")).toBeNull();
    expect(await db.find('')).toBeNull();
  });

  it('refuses an operator key file readable by others, or one that is not a key', async () => {
    const dir = newDir();
    writeFileSync(join(dir, OPERATOR_KEY_FILE), 'a'.repeat(64));
    chmodSync(join(dir, OPERATOR_KEY_FILE), 0o644);
    expect(() => SqliteCredentialRegistry.open(dir)).toThrow(/readable by other users/);
    chmodSync(join(dir, OPERATOR_KEY_FILE), 0o600);
    writeFileSync(join(dir, OPERATOR_KEY_FILE), 'not a key');
    expect(() => SqliteCredentialRegistry.open(dir)).toThrow(/not an operator key/);
  });

  it('a secret sealed under another key, or moved to another id, does not open', async () => {
    const one = CredentialCipher.fromKey(Buffer.alloc(32, 1));
    const two = CredentialCipher.fromKey(Buffer.alloc(32, 2));
    const sealed = one.seal('secret', 'TKAAAAAAAAAAAAAAAAAA');
    expect(one.open(sealed, 'TKAAAAAAAAAAAAAAAAAA')).toBe('secret');
    // AES-GCM refuses both: another key, and the same key for another access key id (the AAD).
    expect(() => two.open(sealed, 'TKAAAAAAAAAAAAAAAAAA')).toThrow(/unable to authenticate data/);
    expect(() => one.open(sealed, 'TKBBBBBBBBBBBBBBBBBB')).toThrow(/unable to authenticate data/);
  });
});
