import { defineModel, type FieldDefinitionInput, type ModelDefinition } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { readIndexes } from './model-table-indexes.js';
import { planModelTables } from './model-tables.js';
import { createStore, type FwStore } from './store.js';

const FIELDS: Record<string, FieldDefinitionInput> = {
  title: {},
  status: { index: true, edit: { type: 'CHOICE', choices: [{ value: 'new' }, { value: 'done' }] } },
  score: { index: true, edit: { type: 'NUMBER' } },
  createdAt: { column: 'created_at', edit: { type: 'DATETIME' } },
  body: { edit: { type: 'TEXTAREA' } },
};

function model(table: string, fields: Record<string, FieldDefinitionInput> = FIELDS, indexes: string[][] = [['status', 'createdAt', 'id']]): ModelDefinition {
  return defineModel({ name: 'Ticket', table, fields, indexes });
}

/** The table's indexes from the database's own catalog, by name: their key columns. */
async function catalog(store: FwStore, table: string): Promise<Record<string, string[]>> {
  const sql: Record<string, string> = {
    sqlite: `select il.name as name, ii.name as col from pragma_index_list(?) il join pragma_index_info(il.name) ii order by il.name, ii.seqno`,
    postgres: `select indexname as name, indexdef as col from pg_indexes where tablename = ?`,
    mysql: `select index_name as name, column_name as col from information_schema.statistics where table_schema = database() and table_name = ? order by index_name, seq_in_index`,
  };
  const result = await store.knex.raw(sql[store.dialect]!, [table]);
  const rows: Array<{ name: string; col: string }> = store.dialect === 'postgres' ? result.rows : store.dialect === 'mysql' ? result[0] : result;
  const out: Record<string, string[]> = {};
  for (const row of rows) {
    // pg_indexes gives the definition: its column list is what we compare.
    const cols = store.dialect === 'postgres' ? /\((.*)\)$/.exec(row.col)![1]!.split(', ') : [row.col];
    (out[row.name] ??= []).push(...cols);
  }
  return out;
}

describeEachSql('Declared indexes (createModelTables / planModelTables)', (db) => {
  let store: FwStore;
  before(function () {
    store = createStore(db().url);
  });
  after(async function () {
    await store.destroy();
  });

  it('creates every declared index with a new table, named fw_ix_<table>_<columns>, and nothing on a second run', async function () {
    const m = model('ix_new');
    expect(await store.createModelTables([m])).to.deep.equal(['ix_new']);
    const found = await catalog(store, 'ix_new');
    expect(found['fw_ix_ix_new_status']).to.deep.equal(['status']);
    expect(found['fw_ix_ix_new_score']).to.deep.equal(['score']);
    expect(found['fw_ix_ix_new_status_created_at_id']).to.deep.equal(['status', 'created_at', 'id']);
    expect(await planModelTables(store, [m])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    const before = Object.keys(found).sort();
    expect(await store.createModelTables([m])).to.deep.equal([]);
    expect(Object.keys(await catalog(store, 'ix_new')).sort()).to.deep.equal(before);
  });

  it('plans a missing index on a table with rows as a safe change, and creates it (concurrently on PostgreSQL)', async function () {
    const plain = model('ix_old', FIELDS, []);
    const withoutFieldIndexes = defineModel({
      name: 'Ticket',
      table: 'ix_old',
      fields: { ...FIELDS, status: { edit: FIELDS.status!.edit! }, score: { edit: { type: 'NUMBER' } } },
    });
    await store.createModelTables([withoutFieldIndexes]);
    await store.knex('ix_old').insert([
      { title: 'a', status: 'new', score: 1 },
      { title: 'b', status: 'done', score: 2 },
    ]);
    expect(Object.keys(await catalog(store, 'ix_old')).filter((n) => n.startsWith('fw_ix_'))).to.deep.equal([]);
    const declared = model('ix_old');
    const plan = await planModelTables(store, [declared]);
    expect(plan.unsafe).to.deep.equal([]);
    expect(plan.safe.map((c) => [c.kind, c.index, c.field])).to.deep.equal([
      ['missingIndex', 'fw_ix_ix_old_status', 'status'],
      ['missingIndex', 'fw_ix_ix_old_score', 'score'],
      ['missingIndex', 'fw_ix_ix_old_status_created_at_id', 'status'],
    ]);
    const first = plan.safe[0]!.sql;
    if (store.dialect === 'postgres') expect(first).to.equal('create index concurrently if not exists "fw_ix_ix_old_status" on "ix_old" ("status");');
    else expect(first).not.to.include('concurrently');
    expect(await store.createModelTables([declared])).to.deep.equal([]);
    const found = await catalog(store, 'ix_old');
    expect(found['fw_ix_ix_old_status_created_at_id']).to.deep.equal(['status', 'created_at', 'id']);
    expect((await planModelTables(store, [declared])).safe).to.deep.equal([]);
    // The model without indexes still plans nothing to drop: extra indexes are left alone.
    expect(await planModelTables(store, [plain])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    expect(await store.knex('ix_old').where('status', 'done').orderBy('score')).to.have.length(1);
  });

  it('counts an index made by hand that starts with the declared columns, whatever its name', async function () {
    await store.createModelTables([defineModel({ name: 'Ticket', table: 'ix_hand', fields: { title: {}, status: {} } })]);
    await store.knex.schema.alterTable('ix_hand', (t) => t.index(['status', 'title'], 'hand_made'));
    const m = defineModel({ name: 'Ticket', table: 'ix_hand', fields: { title: {}, status: { index: true } } });
    expect((await planModelTables(store, [m])).safe).to.deep.equal([]);
    const other = defineModel({ name: 'Ticket', table: 'ix_hand', fields: { title: {}, status: {} }, indexes: [['title', 'status']] });
    expect((await planModelTables(store, [other])).safe.map((c) => c.index)).to.deep.equal(['fw_ix_ix_hand_title_status']);
    expect((await readIndexes(store.knex, 'ix_hand')).find((i) => i.name === 'hand_made')?.columns).to.deep.equal(['status', 'title']);
  });

  it('indexes a varchar field kept in a text column made by hand (a prefix of 191 characters on MySQL/MariaDB)', async function () {
    await store.knex.schema.createTable('ix_text', (t) => {
      t.increments('id');
      t.text('status');
    });
    await store.knex('ix_text').insert({ status: 'x'.repeat(300) });
    const m = defineModel({ name: 'Text', table: 'ix_text', fields: { status: { index: true } } });
    const plan = await planModelTables(store, [m]);
    expect(plan.unsafe).to.deep.equal([]);
    expect(plan.safe.map((c) => c.kind)).to.deep.equal(['missingIndex']);
    if (store.dialect === 'mysql') expect(plan.safe[0]!.sql).to.equal('create index `fw_ix_ix_text_status` on `ix_text` (`status`(191));');
    await store.createModelTables([m]);
    expect((await readIndexes(store.knex, 'ix_text')).map((i) => i.name)).to.include('fw_ix_ix_text_status');
    expect((await planModelTables(store, [m])).safe).to.deep.equal([]);
  });

  it('shortens a long name with a hash, within 63 characters, and creates it', async function () {
    const long = 'ix_a_table_whose_name_is_rather_long_for_an_index';
    const m = defineModel({
      name: 'Long',
      table: long,
      fields: { someRatherLongFieldName: { index: true }, anotherQuiteLongFieldName: {} },
      indexes: [['someRatherLongFieldName', 'anotherQuiteLongFieldName']],
    });
    const names = m.indexes.map((i) => i.name);
    for (const name of names) expect(name.length).to.be.at.most(63);
    expect(new Set(names).size).to.equal(2);
    await store.createModelTables([m]);
    const found = await catalog(store, long);
    for (const name of names) expect(found).to.have.property(name);
    expect(await planModelTables(store, [m])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
  });

  it('a model without any index keeps working: nothing is planned, rows are read and filtered', async function () {
    const m = defineModel({ name: 'Plain', table: 'ix_plain', fields: { title: {}, status: {} } });
    expect(m.indexes).to.deep.equal([]);
    await store.createModelTables([m]);
    await store.knex('ix_plain').insert({ title: 'x', status: 'on' });
    expect(await planModelTables(store, [m])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    expect(await store.knex('ix_plain').where('status', 'on')).to.have.length(1);
  });
});

describeEachSql(
  'Declared indexes on PostgreSQL: an index a failed concurrent build left invalid',
  (db) => {
    let store: FwStore;
    before(function () {
      store = createStore(db().url);
    });
    after(async function () {
      await store.destroy();
    });

    it('is dropped and built again, not skipped by "if not exists"', async function () {
      const bare = defineModel({ name: 'Inv', table: 'ix_inv', fields: { status: {} } });
      await store.createModelTables([bare]);
      await store.knex('ix_inv').insert([{ status: 'same' }, { status: 'same' }]);
      // A unique build over duplicates fails half-way and leaves an INVALID index of that name.
      const failed = await store.knex.raw('create unique index concurrently "fw_ix_ix_inv_status" on "ix_inv" ("status")').then(
        () => false,
        () => true,
      );
      expect(failed).to.equal(true);
      expect((await readIndexes(store.knex, 'ix_inv')).find((i) => i.name === 'fw_ix_ix_inv_status')?.valid).to.equal(false);
      const declared = defineModel({ name: 'Inv', table: 'ix_inv', fields: { status: { index: true } } });
      const plan = await planModelTables(store, [declared]);
      expect(plan.safe.map((c) => c.sql)).to.deep.equal([
        'drop index concurrently if exists "fw_ix_ix_inv_status";\ncreate index concurrently if not exists "fw_ix_ix_inv_status" on "ix_inv" ("status");',
      ]);
      await store.createModelTables([declared]);
      const index = (await readIndexes(store.knex, 'ix_inv')).find((i) => i.name === 'fw_ix_ix_inv_status');
      expect(index).to.deep.equal({ name: 'fw_ix_ix_inv_status', columns: ['status'], valid: true });
      expect((await planModelTables(store, [declared])).safe).to.deep.equal([]);
    });
  },
  ['postgres'],
);
