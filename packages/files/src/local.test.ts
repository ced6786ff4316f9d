import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileStorageConformance } from '@fw/files/conformance';
import { localFileStorage, newFileKey } from '@fw/files';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-files-'));
  dirs.push(dir);
  return dir;
}

fileStorageConformance('localFileStorage', () => localFileStorage({ dir: tempDir() }));

describe('localFileStorage(options)', () => {
  it('refuses a missing dir at start-up', () => {
    assert.throws(() => localFileStorage({ dir: '' }), /dir must be a non-empty string/);
    assert.throws(() => localFileStorage(undefined as never), /dir must be a non-empty string/);
  });

  it('creates the folder and names each file by its key alone', async () => {
    const dir = join(tempDir(), 'nested', 'files');
    const storage = localFileStorage({ dir });
    const key = newFileKey();
    await storage.put(key, Buffer.from('abc'), { type: 'text/plain', size: 3 });
    assert.deepEqual(readdirSync(dir), [key]);
  });

  it('leaves no partial file behind when the body fails midway', async () => {
    const dir = tempDir();
    const storage = localFileStorage({ dir });
    const key = newFileKey();
    const broken = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('client went away'));
      },
    });
    await assert.rejects(storage.put(key, broken, { type: 'text/plain', size: 5000 }), /client went away/);
    assert.deepEqual(readdirSync(dir), []);
    assert.equal(await storage.get(key), undefined);
  });
});
