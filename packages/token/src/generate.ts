import * as crypto from 'node:crypto';
import { createHash, randomFillSync } from 'node:crypto';

/** The 62 characters a token is made of, in the order {@link generateToken} maps random values to them. */
export const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Length of every token, in characters (about 95 bits of entropy: 16 × log2(62)). */
export const TOKEN_LENGTH = 16;

const TOKEN_SHAPE = /^[A-Za-z0-9]{16}$/;

// 248 is the largest multiple of 62 that fits in a byte: bytes 248..255 are thrown away, so each
// accepted byte maps to every character with the same probability (4/248). Taking `byte % 62`
// over the whole range would make the first 8 characters 25% more likely than the others.
const ACCEPT_BELOW = 248;

// One randomFillSync call per 4 KiB instead of one per token: the per-call overhead of the
// crypto binding dominates when only ~17 bytes are needed. 4096 bytes last ~240 tokens.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolPos = POOL_SIZE;

const ALPHABET_CODES = Uint8Array.from(TOKEN_ALPHABET, (c) => c.charCodeAt(0));
const out = Buffer.alloc(TOKEN_LENGTH);

/**
 * A new random token: 16 characters from `[A-Za-z0-9]`, drawn from `node:crypto` random bytes
 * with rejection sampling, so every character is equally likely.
 *
 * @example
 * generateToken(); // 'q3ZL0bV9xTn2aKcE'
 */
export function generateToken(): string {
  let filled = 0;
  while (filled < TOKEN_LENGTH) {
    if (poolPos === POOL_SIZE) {
      randomFillSync(pool);
      poolPos = 0;
    }
    const byte = pool[poolPos]!;
    // A consumed byte is wiped, so the pool never holds the material of tokens already issued.
    pool[poolPos++] = 0;
    if (byte < ACCEPT_BELOW) out[filled++] = ALPHABET_CODES[byte % 62]!;
  }
  return out.toString('latin1');
}

/**
 * True when `value` is a string of exactly 16 characters from `[A-Za-z0-9]`, the shape every
 * token has. Anything else can be rejected without a store lookup.
 *
 * @example
 * isTokenShape('q3ZL0bV9xTn2aKcE'); // true
 * isTokenShape('q3ZL0bV9xTn2aKc-'); // false
 */
export function isTokenShape(value: unknown): value is string {
  return typeof value === 'string' && value.length === TOKEN_LENGTH && TOKEN_SHAPE.test(value);
}

/**
 * The SHA-256 of a token as 64 lowercase hex characters: the only form in which a token is
 * stored. Tokens carry ~95 random bits, so no salt or slow hash is needed to make the stored
 * hash irreversible, and a plain hash keeps lookups a single indexed read.
 *
 * @example
 * hashToken('q3ZL0bV9xTn2aKcE'); // '5d0c…' (64 hex characters)
 */
export function hashToken(token: string): string {
  return oneShotHash ? oneShotHash('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

// `crypto.hash` (Node.js 20.12 and later) hashes a string in one call, at about half the cost of
// a Hash object; the same digest. Taken from the namespace so that an older Node.js falls back.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
