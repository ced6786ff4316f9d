import type { FwError } from '@fw/core';
import { loginError } from './error-codes.js';
import { PASSWORD_TRANSFER_ROUNDS } from './client.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function invalid(reason: string): FwError {
  return loginError('PASSWORD_ENCODING_INVALID', `The password is not encoded as the server expects: ${reason}`);
}

/**
 * Reverses {@link encodePassword}: Base64-decodes `rounds` times, then URL-decodes, so the login
 * hook receives the plain password.
 * @throws {FwError} `PASSWORD_ENCODING_INVALID` (400) when any round is not strict Base64, the
 * bytes are not UTF-8, or the URL-encoding is broken.
 */
export function decodeTransferredPassword(encoded: string, rounds: number = PASSWORD_TRANSFER_ROUNDS): string {
  let current = encoded;
  for (let i = 0; i < rounds; i += 1) {
    if (!BASE64.test(current)) throw invalid(`round ${i + 1} is not Base64`);
    const bytes = Buffer.from(current, 'base64');
    try {
      current = utf8.decode(bytes);
    } catch {
      throw invalid(`round ${i + 1} does not decode to UTF-8 text`);
    }
  }
  try {
    return decodeURIComponent(current);
  } catch {
    throw invalid('the decoded text is not URL-encoded');
  }
}
