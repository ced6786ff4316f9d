import { BUILTIN_MODELS, defineModel, type FieldDefinitionInput, type ModelDefinition } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { ModelTablesError, planModelTables } from './model-tables.js';
import { createStore, type FwStore } from './store.js';

/** The ModelTablesError `promise` rejects with; fails when it resolves or rejects with something else. */
async function rejection(promise: Promise<unknown>): Promise<ModelTablesError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelTablesError) return error;
    throw error;
  }
  throw new Error('expected a ModelTablesError, the call succeeded');
}

/** One model, over `table`, with `fields`: the same model before and after a change of its definition. */
function version(table: string, fields: Record<string, FieldDefinitionInput>): ModelDefinition {
  return defineModel({ name: 'Item', table, fields });
}

const EVERY_TYPE: Record<string, FieldDefinitionInput> = {
  title: { edit: { type: 'INPUT', notNull: true } },
  secret: { edit: { type: 'PASSWORD', saltColumn: 'secret_salt' } },
  owner: { edit: { type: 'HIDDEN', integer: true } },
  code: { edit: { type: 'HIDDEN' } },
  kind: { edit: { type: 'CHOICE', choices: [{ value: 'a' }, { value: 'b' }] } },
  body: { edit: { type: 'TEXTAREA' } },
  price: { edit: { type: 'NUMBER' } },
  pages: { edit: { type: 'NUMBER', integer: true } },
  inPrint: { column: 'in_print', edit: { type: 'BOOLEAN' } },
  tags: { edit: { type: 'TAGS' } },
  genres: { edit: { type: 'MULTI_CHOICE', choices: [{ value: 'sf' }] } },
  released: { edit: { type: 'DATE' } },
  reviewedAt: { column: 'reviewed_at', edit: { type: 'DATETIME' } },
  parent: { column: 'parent_id', edit: { type: 'REFERENCE_TABLE', reference: { model: 'Item' } } },
};

describeEachSql('Model changes at start-up (createModelTables / planModelTables)', (db) => {
  let store: FwStore;
  before(function () {
    store = createStore(db().url);
  });
  after(async function () {
    await store.destroy();
  });

  it('finds nothing to do on tables it created itself, for every column type (no false type change)', async function () {
    const model = version('mt_every', EVERY_TYPE);
    await store.createModelTables([model]);
    await store.knex('mt_every').insert({ title: 'x', in_print: true, price: 1.5, pages: 3, released: '2030-01-02' });
    expect(await planModelTables(store, [model])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    expect(await store.createModelTables([model])).to.deep.equal([]);
  });

  it('adds the column of a new field to a table with rows: nullable, or filled with its default', async function () {
    await store.createModelTables([version('mt_add', { title: {} })]);
    await store.knex('mt_add').insert({ title: 'old' });
    const v2 = version('mt_add', {
      title: {},
      note: { edit: { type: 'TEXTAREA' } },
      stock: { edit: { type: 'NUMBER', integer: true, notNull: true, defaultValue: 5 } },
      active: { edit: { type: 'BOOLEAN', defaultValue: true } },
      labels: { edit: { type: 'TAGS', notNull: true, defaultValue: ['new'] } },
      required: { edit: { notNull: true } },
    });
    // A required field without a default on a table with a row is not added (the row would break the rule).
    const before = await planModelTables(store, [v2]);
    expect(before.unsafe.map((c) => [c.kind, c.column])).to.deep.equal([['notNullWithoutDefault', 'required']]);
    const v3 = version('mt_add', {
      title: {},
      note: { edit: { type: 'TEXTAREA' } },
      stock: { edit: { type: 'NUMBER', integer: true, notNull: true, defaultValue: 5 } },
      active: { edit: { type: 'BOOLEAN', defaultValue: true } },
      labels: { edit: { type: 'TAGS', notNull: true, defaultValue: ['new'] } },
    });
    const plan = await planModelTables(store, [v3]);
    expect(plan.safe.map((c) => [c.kind, c.column])).to.deep.equal([
      ['missingColumn', 'note'],
      ['missingColumn', 'stock'],
      ['missingColumn', 'active'],
      ['missingColumn', 'labels'],
    ]);
    expect(plan.safe[0]!.sql.toLowerCase()).to.match(/^alter table .*mt_add.* add .*note/);
    expect(await store.createModelTables([v3])).to.deep.equal([]);
    const row = await store.knex('mt_add').first();
    expect(row.note).to.equal(null);
    expect(Number(row.stock)).to.equal(5);
    expect(Boolean(row.active)).to.equal(true);
    expect(JSON.parse(row.labels)).to.deep.equal(['new']);
    expect(await planModelTables(store, [v3])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
  });

  it('leaves the built-in tables to the migrations: their own columns are no dropped fields', async function () {
    await store.migrate.latest();
    const user = await store.users.create({ account: 'mt-admin', password: 'mt-pass-123', isAdmin: true, mustChangePassword: false });
    await store.loginLogs.insert({ userId: user.id, account: 'mt-admin', method: 'password', tokenHash: 'a'.repeat(64), admin: true });
    expect(await planModelTables(store, BUILTIN_MODELS)).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    expect(await store.createModelTables(BUILTIN_MODELS)).to.deep.equal([]);
  });

  it('adds a new column once when two instances start together', async function () {
    await store.createModelTables([version('mt_race', { title: {} })]);
    const other = createStore(db().url);
    try {
      const v2 = version('mt_race', { title: {}, extra: { edit: { type: 'NUMBER' } } });
      // Both plan before either alters: the loser of the race sees the column and goes on.
      const [a, b] = await Promise.all([planModelTables(store, [v2]), planModelTables(other, [v2])]);
      expect([a.safe.length, b.safe.length]).to.deep.equal([1, 1]);
      await Promise.all([store.createModelTables([v2]), other.createModelTables([v2])]);
      expect(Object.keys(await store.knex('mt_race').columnInfo())).to.include('extra');
    } finally {
      await other.destroy();
    }
  });

  it('adds a required field without a default to an empty table', async function () {
    await store.createModelTables([version('mt_empty', { title: {} })]);
    const v2 = version('mt_empty', { title: {}, code: { edit: { notNull: true } } });
    await store.createModelTables([v2]);
    expect(Object.keys(await store.knex('mt_empty').columnInfo())).to.include('code');
  });

  it('creates the join table of a new COLLECTION field', async function () {
    await store.createModelTables([version('mt_coll', { title: {} })]);
    const Tag = defineModel({ name: 'Tag', table: 'mt_tag', fields: { name: {} } });
    const v2 = defineModel({
      name: 'Item',
      table: 'mt_coll',
      fields: { title: {}, tags: { edit: { type: 'COLLECTION', collection: { model: 'Tag', joinTable: 'mt_coll_tag', ownKey: 'item_id', foreignKey: 'tag_id' } } } },
    });
    expect(await store.createModelTables([v2, Tag])).to.deep.equal(['mt_tag', 'mt_coll_tag']);
    expect(Object.keys(await store.knex('mt_coll_tag').columnInfo()).sort()).to.deep.equal(['item_id', 'tag_id']);
  });

  it('stops on a type change, a dropped field with data and a new required field, listing each with SQL, changing nothing', async function () {
    await store.createModelTables([version('mt_unsafe', { title: {}, pages: { edit: { type: 'NUMBER', integer: true } }, old: {} })]);
    await store.knex('mt_unsafe').insert({ title: 'a', pages: 3, old: 'kept' });
    const v2 = version('mt_unsafe', {
      title: { edit: { type: 'NUMBER' } },
      pages: { edit: { type: 'NUMBER', integer: true } },
      fresh: {},
      required: { edit: { notNull: true } },
    });
    const error = await rejection(store.createModelTables([v2]));
    expect(error.differences.map((d) => [d.kind, d.column])).to.deep.equal([
      ['typeChanged', 'title'],
      ['notNullWithoutDefault', 'required'],
      ['droppedField', 'old'],
    ]);
    expect(error.message).to.match(/^The database differs from the model definitions in 3 ways/);
    for (const d of error.differences) {
      expect(error.message).to.contain(d.message);
      expect(error.message).to.contain(d.sql.split('\n')[0]);
      expect(d.sql).to.match(/;$/);
    }
    expect(error.differences[0]!.message).to.contain('Item.title').and.contain('a number');
    expect(error.differences[1]!.sql).to.contain('<value>');
    expect(error.differences[0]!.sql.toLowerCase()).to.match(/^alter table /);
    // Nothing half-applied: the safe new field was not added either.
    expect(Object.keys(await store.knex('mt_unsafe').columnInfo()).sort()).to.deep.equal(['id', 'old', 'pages', 'title']);
  });

  it("leaves an empty column no field maps to alone, as a note; the listed SQL drops a dropped field's column", async function () {
    await store.createModelTables([version('mt_extra', { title: {}, gone: {}, unused: {} })]);
    await store.knex('mt_extra').insert({ title: 'a', gone: 'data' });
    const v2 = version('mt_extra', { title: {} });
    const plan = await planModelTables(store, [v2]);
    expect(plan.notes.map((c) => [c.kind, c.column])).to.deep.equal([['extraColumn', 'unused']]);
    const error = await rejection(store.createModelTables([v2]));
    expect(error.differences.map((d) => [d.kind, d.column])).to.deep.equal([['droppedField', 'gone']]);
    // A person runs the SQL given (after saving the values): then the start goes through.
    await store.knex.raw(error.differences[0]!.sql.replace(/;$/, ''));
    expect(await store.createModelTables([v2])).to.deep.equal([]);
    expect(Object.keys(await store.knex('mt_extra').columnInfo()).sort()).to.deep.equal(['id', 'title', 'unused']);
  });

  it("names an empty extra column that would block adding rows, and a table without the model's key", async function () {
    await store.knex.schema.createTable('mt_hand', (t) => {
      t.string('code', 20).notNullable().primary();
      t.string('title');
      t.integer('legacy').notNullable();
      t.integer('spare');
    });
    const plan = await planModelTables(store, [version('mt_hand', { title: {} })]);
    expect(plan.unsafe.map((c) => [c.kind, c.column])).to.deep.equal([['missingPrimaryKey', 'id']]);
    // Which empty extra columns make an add fail: the NOT NULL ones without a default.
    expect(plan.notes.map((c) => [c.kind, c.column, c.message.includes('NOT NULL without a default')])).to.deep.equal([
      ['extraColumn', 'code', true],
      ['extraColumn', 'legacy', true],
      ['extraColumn', 'spare', false],
    ]);
  });

  it('the SQL listed for a type change converts the column', async function () {
    await store.createModelTables([version('mt_retype', { title: {}, count: {} })]);
    await store.knex('mt_retype').insert({ title: 'a', count: '42' });
    const v2 = version('mt_retype', { title: {}, count: { edit: { type: 'NUMBER', integer: true } } });
    const error = await rejection(store.createModelTables([v2]));
    expect(error.differences.map((d) => [d.kind, d.column])).to.deep.equal([['typeChanged', 'count']]);
    const sql = error.differences[0]!.sql;
    // PostgreSQL converts with a cast a person may need to adjust; this one is a plain number.
    for (const statement of sql.split(/;\n?/).filter((s) => s.trim())) await store.knex.raw(statement);
    expect(await planModelTables(store, [v2])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    expect(Number((await store.knex('mt_retype').first()).count)).to.equal(42);
  });

  it('the SQL listed for a new required field works once a value is chosen', async function () {
    await store.createModelTables([version('mt_req', { title: {} })]);
    await store.knex('mt_req').insert({ title: 'a' });
    const v2 = version('mt_req', { title: {}, code: { edit: { notNull: true } } });
    const error = await rejection(store.createModelTables([v2]));
    for (const statement of error.differences[0]!.sql.replaceAll('<value>', "'X'")
      .split(/;\n?/)
      .filter((s) => s.trim()))
      await store.knex.raw(statement);
    expect(await planModelTables(store, [v2])).to.deep.equal({ safe: [], unsafe: [], notes: [] });
    expect((await store.knex('mt_req').first()).code).to.equal('X');
  });
});
