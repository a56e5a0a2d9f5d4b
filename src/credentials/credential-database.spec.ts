import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialCipher } from './credential-cipher';
import { CREDENTIALS_FILE, CredentialDatabase, OPERATOR_KEY_FILE } from './credential-database';
import { ACCESS_KEY_ID_PATTERN } from './credential-registry';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';
const newDir = () => mkdtempSync(join(tmpdir(), 'tape-creds-'));

describe('CredentialDatabase', () => {
  it('issues AWS-shaped credentials that a second connection (the gateway) finds', () => {
    const dir = newDir();
    const operator = CredentialDatabase.open(dir);
    const issued = operator.issue(TAPE);
    expect(issued.accessKeyId).toMatch(ACCESS_KEY_ID_PATTERN);
    expect(issued.secretAccessKey).toMatch(/^[A-Za-z0-9+/]{40}$/);
    const gateway = CredentialDatabase.open(dir);
    expect(gateway.find(issued.accessKeyId)).toEqual({
      accessKeyId: issued.accessKeyId,
      secretAccessKey: issued.secretAccessKey,
      tapeAddress: TAPE,
      revoked: false,
    });
    expect(operator.issue(TAPE).accessKeyId).not.toBe(issued.accessKeyId);
    operator.close();
    gateway.close();
  });

  it('keeps secrets encrypted at rest, files readable by the owner only', () => {
    const dir = newDir();
    const db = CredentialDatabase.open(dir);
    const { secretAccessKey } = db.issue(TAPE);
    db.close();
    const bytes = readFileSync(join(dir, CREDENTIALS_FILE));
    expect(bytes.includes(Buffer.from(secretAccessKey))).toBe(false);
    expect(statSync(join(dir, OPERATOR_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
  });

  it('a revoke is seen by another open connection at its next lookup', () => {
    const dir = newDir();
    const operator = CredentialDatabase.open(dir);
    const gateway = CredentialDatabase.open(dir);
    const { accessKeyId } = operator.issue(TAPE);
    expect(gateway.find(accessKeyId)?.revoked).toBe(false);
    expect(operator.revoke(accessKeyId)).toBe('revoked');
    expect(gateway.find(accessKeyId)?.revoked).toBe(true);
    expect(operator.revoke(accessKeyId)).toBe('already revoked');
    expect(operator.revoke('TKAAAAAAAAAAAAAAAAAA')).toBe('unknown');
    const [listed] = operator.list();
    expect(listed.revokedAt).toBeInstanceOf(Date);
    expect(Object.keys(listed)).not.toContain('secretAccessKey');
  });

  it('answers null for ids never issued or not shaped like one (no query with hostile text)', () => {
    const db = CredentialDatabase.open(newDir());
    expect(db.find('TKAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(db.find("x' OR 1=1 --")).toBeNull();
    expect(db.find('')).toBeNull();
  });

  it('refuses an operator key file readable by others, or one that is not a key', () => {
    const dir = newDir();
    writeFileSync(join(dir, OPERATOR_KEY_FILE), 'a'.repeat(64));
    chmodSync(join(dir, OPERATOR_KEY_FILE), 0o644);
    expect(() => CredentialDatabase.open(dir)).toThrow(/readable by other users/);
    chmodSync(join(dir, OPERATOR_KEY_FILE), 0o600);
    writeFileSync(join(dir, OPERATOR_KEY_FILE), 'not a key');
    expect(() => CredentialDatabase.open(dir)).toThrow(/not an operator key/);
  });

  it('a secret sealed under another key, or moved to another id, does not open', () => {
    const one = CredentialCipher.fromKey(Buffer.alloc(32, 1));
    const two = CredentialCipher.fromKey(Buffer.alloc(32, 2));
    const sealed = one.seal('secret', 'TKAAAAAAAAAAAAAAAAAA');
    expect(one.open(sealed, 'TKAAAAAAAAAAAAAAAAAA')).toBe('secret');
    // AES-GCM refuses both: another key, and the same key for another access key id (the AAD).
    expect(() => two.open(sealed, 'TKAAAAAAAAAAAAAAAAAA')).toThrow(/unable to authenticate data/);
    expect(() => one.open(sealed, 'TKBBBBBBBBBBBBBBBBBB')).toThrow(/unable to authenticate data/);
  });
});
