import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/** What a storage is told about a file it stores. */
export interface FileMeta {
  /** The MIME type (sniffed by the caller, never the client's word). */
  type: string;
  /** Size in bytes. */
  size: number;
}

/** A stored file, streamed back. */
export interface StoredFile {
  body: Readable;
  size: number;
}

/**
 * Where uploaded files live. Keys are made by the server ({@link newFileKey}); every
 * implementation refuses any other shape ({@link assertFileKey}), so a client's file name never
 * becomes a path or an object name.
 */
export interface FileStorage {
  /** Stores `body` under `key`, replacing what was there. */
  put(key: string, body: Readable | Buffer, meta: FileMeta): Promise<void>;
  /** The file under `key`, or undefined when there is none. */
  get(key: string): Promise<StoredFile | undefined>;
  /** Removes the file under `key`; nothing happens when there is none. */
  delete(key: string): Promise<void>;
}

/** The shape of a file key: 16 or more characters out of letters, digits, `_` and `-`. */
export const FILE_KEY_RE = /^[A-Za-z0-9_-]{16,}$/;

/** A new random file key: 24 bytes of randomness, base64url (32 characters). */
export function newFileKey(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Throws unless `key` has the shape of a server-made key (see {@link FILE_KEY_RE}).
 * @throws {TypeError} for `../x`, `a/b`, an empty or short key, anything but the key alphabet
 */
export function assertFileKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length > 200 || !FILE_KEY_RE.test(key)) throw new TypeError(`not a file key: ${JSON.stringify(String(key).slice(0, 40))}`);
}
