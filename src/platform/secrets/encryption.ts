/**
 * Encryption of provider tokens at rest: AES-256-GCM with a random 96-bit nonce per value.
 * Stored format: `v1:<nonce b64url>:<ciphertext b64url>:<tag b64url>`.
 * The key comes from SERVICE_ENCRYPTION_KEY or, in the embedded default, from a key file generated in
 * the data dir with mode 0600.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export class Encryptor {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  }

  encrypt(plain: string, associatedData = ''): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${nonce.toString('base64url')}:${ct.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}`;
  }

  /** A key for another purpose derived from this one (HKDF-SHA256 with the purpose's own label). */
  deriveKey(label: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), label, 32));
  }

  decrypt(stored: string, associatedData = ''): string {
    const [v, nonce, ct, tag] = stored.split(':');
    if (v !== 'v1' || !nonce || ct === undefined || !tag) throw new Error('unrecognised ciphertext format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function parseKey(value: string): Buffer {
  const v = value.trim();
  const buf = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (buf.length !== 32) throw new Error('SERVICE_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return buf;
}

/** The configured key, or the data dir's key file (created with mode 0600 on first use). */
export function loadEncryptionKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return parseKey(configured);
  const file = path.join(dataDir, 'encryption.key');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    return parseKey(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  try {
    // wx: never overwrite a key another process wrote first
    fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseKey(fs.readFileSync(file, 'utf8'));
    throw err;
  }
}
