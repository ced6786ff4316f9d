import { expect } from 'chai';
import { createRegistry, defineModel } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { Book, Tag, setupData, type DataFixture } from '../test-setup.js';
import { DEFAULT_QUERY_LIMITS } from './query.js';
import { tableLabels } from './references.js';
import { RowReader } from './rows.js';

// Red-team leftovers §2: SQL Server binds at most 2,100 values in one statement. Reads that name
// many row ids at once (the collections of an export batch, the labels of a page whose rows hold
// multi-valued references) ask for them in chunks; every statement sent is watched here.
const SQL_SERVER_PARAMETERS = 2100;
const ROWS = 3000;

/** Rows that point at many books each (no table is made for it: only labels are read). */
const Shelf = defineModel({ name: 'Shelf', table: 'ic_shelf', fields: { books: { edit: { type: 'COLLECTION', collection: { model: 'Book', joinTable: 'ic_shelf_book', ownKey: 'shelf_id', foreignKey: 'book_id' } } } } });

describeEachSql('reads of many ids stay under 2,100 bound values a statement', (db) => {
  let f: DataFixture;
  let ids: number[];
  let widest = 0;
  const watch = (q: { bindings?: unknown[] }) => void (widest = Math.max(widest, q.bindings?.length ?? 0));

  before(async () => {
    f = await setupData(db().url);
    const title = Book.fields.title!.column;
    for (let i = 0; i < ROWS; i += 500) await f.store.knex(Book.table).insert(Array.from({ length: 500 }, (_, j) => ({ [title]: `Book ${i + j}` })));
    ids = ((await f.store.knex(Book.table).orderBy('id').select('id')) as Array<{ id: number }>).map((r) => Number(r.id));
    const [tag] = (await f.store.knex(Tag.table).insert({ [Tag.fields.label!.column]: 'one' }, ['id'])) as Array<{ id: number } | number>;
    const tagId = typeof tag === 'number' ? tag : Number(tag!.id);
    // The first and the last book carry the tag: both ends of the id list are read.
    await f.store.knex('t_book_tag').insert([ids[0]!, ids[ids.length - 1]!].map((id) => ({ book_id: id, tag_id: tagId })));
    f.store.knex.on('query', watch);
  });
  after(async () => {
    f?.store.knex.off('query', watch);
    await f?.destroy();
  });
  beforeEach(() => void (widest = 0));

  it('reads the collections of 3,000 rows in chunks', async () => {
    const reader = new RowReader({ store: f.store, registry: f.registry, limits: DEFAULT_QUERY_LIMITS });
    const links = await reader.collections(Book, f.store.knex, ids);
    expect(links.size).to.equal(ROWS);
    expect(links.get(ids[0]!)!.tags).to.have.length(1);
    expect(links.get(ids[ids.length - 1]!)!.tags).to.have.length(1);
    expect(links.get(ids[1]!)!.tags).to.deep.equal([]);
    expect(widest).to.be.greaterThan(0);
    expect(widest).to.be.below(SQL_SERVER_PARAMETERS);
  });

  it('reads the labels of 3,000 referenced rows in chunks', async () => {
    const registry = createRegistry([...f.registry.list(), Shelf]);
    const deps = { knex: f.store.knex, registry, limits: DEFAULT_QUERY_LIMITS, visibility: async () => [] };
    const rows = [{ id: 1, books: ids.slice(0, 1500) }, { id: 2, books: ids.slice(1500) }];
    const labels = await tableLabels(deps, Shelf, rows);
    expect(Object.keys(labels.books!)).to.have.length(ROWS);
    expect(labels.books![String(ids[ROWS - 1])]).to.equal(`Book ${ROWS - 1}`);
    expect(widest).to.be.greaterThan(0);
    expect(widest).to.be.below(SQL_SERVER_PARAMETERS);
  });
});
