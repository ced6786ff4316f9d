import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertFileKey, newFileKey, type FileMeta, type FileStorage, type StoredFile } from './storage.js';

/** Options of {@link localFileStorage}. */
export interface LocalFileStorageOptions {
  /** The folder holding the files (created when missing). */
  dir: string;
}

/**
 * A {@link FileStorage} on a local folder: one file per key, named by the key alone. A file is
 * written under a temporary name and renamed, so a reader never sees half a file.
 *
 * @throws {TypeError} when `dir` is not a non-empty string
 * @example
 * const files = localFileStorage({ dir: './data/files' });
 */
export function localFileStorage(options: LocalFileStorageOptions): FileStorage {
  if (typeof options?.dir !== 'string' || options.dir === '') throw new TypeError('localFileStorage: dir must be a non-empty string');
  const dir = resolve(options.dir);
  let ready: Promise<unknown> | undefined;
  const ensureDir = (): Promise<unknown> => (ready ??= mkdir(dir, { recursive: true }).catch((error: unknown) => ((ready = undefined), Promise.reject(error))));
  const pathOf = (key: string): string => {
    assertFileKey(key);
    return join(dir, key);
  };
  return {
    async put(key: string, body: Readable | Buffer, _meta: FileMeta): Promise<void> {
      const target = pathOf(key);
      await ensureDir();
      const temp = join(dir, `.${newFileKey()}.part`);
      try {
        await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(temp, { flags: 'wx' }));
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
    async get(key: string): Promise<StoredFile | undefined> {
      const path = pathOf(key);
      try {
        const info = await stat(path);
        if (!info.isFile()) return undefined;
        return { body: createReadStream(path), size: info.size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async delete(key: string): Promise<void> {
      await rm(pathOf(key), { force: true });
    },
  };
}
