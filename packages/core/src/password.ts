import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost parameters; N = 2^14 keeps one check around 40 ms on a small server core. */
const SCRYPT: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, SCRYPT, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A stored password: hex scrypt hash and its per-user hex salt. */
export interface PasswordHash {
  hash: string;
  salt: string;
}

/**
 * Hashes a password with scrypt and a fresh 16-byte salt.
 * @example const { hash, salt } = await hashPassword('s3cret');
 */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return { hash: key.toString('hex'), salt: salt.toString('hex') };
}

/**
 * Checks a password against a stored hash in constant time. A malformed stored hash compares as
 * false after the same amount of work, so timing does not reveal it.
 */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, /^[0-9a-f]*$/i.test(stored.hash) ? 'hex' : 'utf8');
  const key = await derive(password, Buffer.from(stored.salt, 'hex'));
  if (expected.length !== key.length) {
    timingSafeEqual(key, key);
    return false;
  }
  return timingSafeEqual(key, expected);
}
