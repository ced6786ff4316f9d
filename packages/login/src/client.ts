/**
 * Browser-safe helpers for clients of the login routes: no Node.js imports here, only
 * `btoa` and `encodeURIComponent`, which every browser and Node.js 16+ have.
 */

/** Base64 rounds applied to `pwd` when `fw-app.pwdTransferEncrypt` is on. */
export const PASSWORD_TRANSFER_ROUNDS = 3;

/**
 * Encodes a password the way the login and change-password routes expect it when
 * `fw-app.pwdTransferEncrypt` is on (the default): URL-encoded, then Base64-encoded three times.
 * This is an encoding, not encryption: only TLS protects a password in transit.
 *
 * @example
 * await fetch('/fw-api/login', { method: 'POST', headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ account: 'admin', pwd: encodePassword('s3cret') }) });
 */
export function encodePassword(plain: string, rounds: number = PASSWORD_TRANSFER_ROUNDS): string {
  let out = encodeURIComponent(plain);
  for (let i = 0; i < rounds; i += 1) out = btoa(out);
  return out;
}
