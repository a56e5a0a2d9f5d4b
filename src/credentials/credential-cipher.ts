import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import {
  Credential,
  IssuedCredential,
  newAccessKeyId,
  newSecretAccessKey,
} from './credential-registry';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A secret as stored: AES-256-GCM ciphertext with its nonce and authentication tag. */
export interface SealedSecret {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/** A credential as a registry stores it: the secret sealed. */
export interface StoredCredential {
  sealed: SealedSecret;
  tape: string;
  revoked: boolean;
}

/**
 * Encrypts S3 secrets at rest under the operator key (`s3-credentials.key`, 32 random bytes in
 * hex). SigV4 needs the plain secret to recompute signatures, so secrets cannot be hashed like
 * passwords; a copy of the database alone (a backup, a stolen disk image without the key file)
 * reveals none of them. The access key id is bound as associated data, so a ciphertext moved
 * to another row does not decrypt.
 */
export class CredentialCipher {
  private constructor(private readonly key: Buffer) {}

  /** Reads the key file, creating it (mode 0600, never overwriting) on first use. */
  static fromKeyFile(path: string): CredentialCipher {
    return new CredentialCipher(readOrCreateKey(path));
  }

  static fromKey(key: Buffer): CredentialCipher {
    if (key.length !== KEY_BYTES) throw new Error(`an operator key is ${KEY_BYTES} bytes`);
    return new CredentialCipher(key);
  }

  seal(secret: string, accessKeyId: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(accessKeyId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return { iv, tag: cipher.getAuthTag(), ciphertext };
  }

  /** The plain secret; throws when the key is not the one it was sealed with or a byte changed. */
  open(sealed: SealedSecret, accessKeyId: string): string {
    if (sealed.iv.length !== IV_BYTES || sealed.tag.length !== TAG_BYTES) {
      throw new Error('malformed sealed secret');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.iv);
    decipher.setAAD(Buffer.from(accessKeyId, 'utf8'));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }

  /** A new credential for a tape (its secret shown once), and the secret sealed to store. */
  issueCredential(
    tapeAddress: string,
    now: Date,
  ): { issued: IssuedCredential; sealed: SealedSecret } {
    const accessKeyId = newAccessKeyId();
    const secretAccessKey = newSecretAccessKey();
    return {
      issued: { accessKeyId, secretAccessKey, tapeAddress, createdAt: now, revokedAt: null },
      sealed: this.seal(secretAccessKey, accessKeyId),
    };
  }

  /** A stored credential with its secret opened (every registry's `find`). */
  openCredential(accessKeyId: string, stored: StoredCredential): Credential {
    return {
      accessKeyId,
      secretAccessKey: this.open(stored.sealed, accessKeyId),
      tapeAddress: stored.tape,
      revoked: stored.revoked,
    };
  }
}

function readOrCreateKey(path: string): Buffer {
  // Written whole to a temporary file, then linked into place: link() fails if the key exists,
  // so two processes starting at once agree on one key and no reader sees a half-written file.
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(KEY_BYTES).toString('hex')}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  if ((statSync(path).mode & 0o077) !== 0) {
    throw new Error(`${path} is readable by other users: chmod 600 it`);
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new Error(`${path} is not an operator key (64 hex digits expected)`);
  }
  return Buffer.from(text, 'hex');
}
