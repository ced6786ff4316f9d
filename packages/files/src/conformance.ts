/// <reference types="mocha" />
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer as readAll } from 'node:stream/consumers';
import { newFileKey, type FileStorage } from './storage.js';

/** Keys every storage must refuse: paths, traversal, short keys, foreign characters. */
const BAD_KEYS = [
  '../../etc/passwd',
  '..',
  'a/b/cdefghijklmnopq',
  'abcdefghijklmnop/..',
  'short',
  '',
  'abcdefghijklmnop.png',
  'abcdefghijklmnop%2F',
  'abcdefghijklmnop\u0000',
  ' abcdefghijklmnop',
];

/**
 * The behaviour every {@link FileStorage} owes, as mocha tests: bytes come back as stored
 * (buffers and streams, empty and multi-megabyte), a put replaces, a missing key reads as
 * undefined, delete removes and is idempotent, keys are independent, and every key that is not a
 * server-made key is refused before anything is touched.
 *
 * @example
 * fileStorageConformance('localFileStorage', () => localFileStorage({ dir: mkdtempSync(...) }));
 */
export function fileStorageConformance(name: string, makeStorage: () => FileStorage | Promise<FileStorage>): void {
  describe(`${name} (FileStorage conformance)`, () => {
    async function setup(): Promise<{ storage: FileStorage; key: string }> {
      return { storage: await makeStorage(), key: newFileKey() };
    }

    async function bytesOf(storage: FileStorage, key: string): Promise<Buffer | undefined> {
      const file = await storage.get(key);
      if (!file) return undefined;
      const bytes = await readAll(file.body);
      assert.equal(file.size, bytes.length, 'get(key).size is the stored size');
      return bytes;
    }

    it('stores a buffer and gives the same bytes back', async () => {
      const { storage, key } = await setup();
      const body = Buffer.from('%PDF-1.4 hello\n\u00e9');
      await storage.put(key, body, { type: 'application/pdf', size: body.length });
      assert.deepEqual(await bytesOf(storage, key), body);
    });

    it('stores a stream of several megabytes', async () => {
      const { storage, key } = await setup();
      const body = randomBytes(3 * 1024 * 1024 + 17);
      const chunks = [body.subarray(0, 1000), body.subarray(1000, 2_000_000), body.subarray(2_000_000)];
      await storage.put(key, Readable.from(chunks), { type: 'application/octet-stream', size: body.length });
      assert.ok((await bytesOf(storage, key))?.equals(body));
    });

    it('stores an empty file', async () => {
      const { storage, key } = await setup();
      await storage.put(key, Buffer.alloc(0), { type: 'text/plain', size: 0 });
      assert.deepEqual(await bytesOf(storage, key), Buffer.alloc(0));
    });

    it('a second put replaces the file', async () => {
      const { storage, key } = await setup();
      await storage.put(key, Buffer.from('first version'), { type: 'text/plain', size: 13 });
      await storage.put(key, Buffer.from('second'), { type: 'text/plain', size: 6 });
      assert.equal((await bytesOf(storage, key))?.toString(), 'second');
    });

    it('get of a key never stored is undefined', async () => {
      const { storage, key } = await setup();
      assert.equal(await storage.get(key), undefined);
    });

    it('delete removes the file, and deleting again is not an error', async () => {
      const { storage, key } = await setup();
      await storage.put(key, Buffer.from('bye'), { type: 'text/plain', size: 3 });
      await storage.delete(key);
      assert.equal(await storage.get(key), undefined);
      await storage.delete(key);
      await storage.delete(newFileKey());
    });

    it('keys are independent', async () => {
      const { storage, key } = await setup();
      const other = newFileKey();
      await storage.put(key, Buffer.from('one'), { type: 'text/plain', size: 3 });
      await storage.put(other, Buffer.from('two'), { type: 'text/plain', size: 3 });
      await storage.delete(key);
      assert.equal(await storage.get(key), undefined);
      assert.equal((await bytesOf(storage, other))?.toString(), 'two');
    });

    it('refuses every key that is not a server-made key (put, get, delete)', async () => {
      const { storage } = await setup();
      for (const bad of BAD_KEYS) {
        await assert.rejects(storage.put(bad, Buffer.from('x'), { type: 'text/plain', size: 1 }), TypeError, `put(${JSON.stringify(bad)})`);
        await assert.rejects(storage.get(bad), TypeError, `get(${JSON.stringify(bad)})`);
        await assert.rejects(storage.delete(bad), TypeError, `delete(${JSON.stringify(bad)})`);
      }
    });
  });
}
