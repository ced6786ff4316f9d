import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createRegistry, defineModel } from '@fw/core';
import { createStore } from '@fw/store';
import { fileHandles } from '@fw/test-utils';
import { DataService } from '../service.js';

// The data API reads table pages of a SQLite file through a read-only connection of its own; it
// must close with the store, or every service built over a store leaks a file handle.
const Note = defineModel({ name: 'Note', table: 'rd_note', fields: { title: {} } });


describe('the SQLite page reader', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fw-reader-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads pages on its own connection and closes it when the store is destroyed', async () => {
    const file = join(dir, 'reader.sqlite');
    const store = createStore(`sqlite:${file}`);
    await store.migrate.latest();
    await store.createModelTables([Note]);
    await store.knex('rd_note').insert([{ title: 'a' }, { title: 'b' }]);
    const before = fileHandles(file);
    const service = new DataService({ store, registry: createRegistry([Note]) });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true });
    const page = await service.query('Note', { user: { id: 1, account: 'a', isAdmin: true }, ip: null, source: 'http' }, {});
    expect(page.total).to.equal(2);
    // The reader's connection is open now: one handle more than before the first page.
    expect(fileHandles(file)).to.be.greaterThan(before);
    await store.destroy();
    expect(fileHandles(file)).to.equal(0);
  });
});
