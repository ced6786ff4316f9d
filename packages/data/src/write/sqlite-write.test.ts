import { expect } from 'chai';
import { createRegistry, defineModel, type DataHookContext, type ModelDefinition } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import type { EditEvent } from '../events.js';
import { DataService } from '../service.js';

// The synchronous SQLite update (sqlite-write.ts) against the general path: the same model twice,
// once plain (it takes the synchronous path on SQLite) and once with a no-op `beforeUpdate` (which
// keeps it on the general path), must answer, write, log and emit the same. On the server
// databases both take the general path, so the same checks hold there too.
const fields = {
  code: { edit: { notNull: true } },
  note: { rules: [{ type: 'length' as const, max: 20 }] },
  startDate: { edit: { type: 'DATE' as const } },
  endDate: { edit: { type: 'DATE' as const } },
  owner: { edit: { type: 'NUMBER' as const, integer: true } },
};
const rowRules = [{ name: 'endAfterStart', fields: ['startDate', 'endDate'], path: 'endDate', test: (r: Record<string, unknown>) => r.endDate == null || String(r.endDate) >= String(r.startDate) }];
// Users other than 1 see only the rows they own.
const beforeFetch = ({ user }: DataHookContext) => (user.id === 1 ? [] : [{ field: 'owner', op: 'eq' as const, value: user.id }]);
const hookCalls: string[] = [];

const Fast = defineModel({ name: 'Fast', table: 'sw_fast', fields, rowRules, dataProxy: { beforeFetch } });
const General = defineModel({ name: 'General', table: 'sw_general', fields, rowRules, dataProxy: { beforeFetch, beforeUpdate: () => void hookCalls.push('beforeUpdate') } });
const Plain = defineModel({ name: 'Plain', table: 'sw_plain', fields: { note: {}, code: { edit: { notNull: true } } } });
// Fit for the synchronous path but for its async rule: it validates, then hands over to the general path.
const Slow = defineModel({
  name: 'Slow',
  table: 'sw_slow',
  fields: {
    code: { edit: { notNull: true } },
    note: { rules: [{ type: 'dynamic', name: 'slowRule', dependsOn: [], test: async (value) => (await Promise.resolve(value !== 'refused')) || 'refused by an async rule' }] },
  },
});

/** What `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; status?: number; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, the call succeeded');
}

describeEachSql('cell and form updates: the synchronous SQLite write and the general path agree', (db) => {
  let store: FwStore;
  let service: DataService;
  const owner = { user: { id: 1, account: 'root', isAdmin: false }, ip: '10.0.0.1', source: 'http' as const };
  const other = { user: { id: 2, account: 'bob', isAdmin: false }, ip: null, source: 'http' as const };

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Fast, General, Plain, Slow]);
    for (const table of ['sw_fast', 'sw_general']) await store.knex.schema.alterTable(table, (t) => t.unique(['code']));
    service = new DataService({ store, registry: createRegistry([Fast, General, Plain, Slow]), onBackgroundError: (error) => { throw error; } });
    // The power check is the router's and the service's business, tested elsewhere: grant everything here.
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true, edit: true, delete: true, cellEdit: true, viewDetails: true });
  });
  after(() => store?.destroy());
  beforeEach(async () => {
    for (const table of ['sw_fast', 'sw_general', 'sw_plain', 'sw_slow', 'fw_operate_log']) await store.knex(table).delete();
    hookCalls.length = 0;
  });

  const seed = async (model: ModelDefinition, values: Record<string, unknown> = {}) => {
    const base = model === Plain || model === Slow ? { note: 'start' } : { note: 'start', startDate: '2024-01-01', endDate: '2024-02-01', owner: 1 };
    const row0 = { code: `${model.name}-${Math.random()}`, ...base, ...values };
    const [row] = store.dialect === 'mysql' ? await store.knex(model.table).insert(row0) : await store.knex(model.table).insert(row0, ['id']);
    return Number((row as { id: number }).id ?? row);
  };
  const logs = async (model: ModelDefinition) => (await store.operateLogs.list({ model: model.name, limit: 100 })).filter((l) => l.action === 'update');
  const strip = (row: Record<string, unknown>) => ({ ...row, id: 'ID', code: 'CODE' });

  it('answers, writes only the changed column, logs in the same commit and emits the same edit event', async () => {
    const events: EditEvent[] = [];
    const listener = (e: EditEvent) => events.push(e);
    service.events.on('update', listener);
    try {
      const fast = await seed(Fast);
      const general = await seed(General);
      const a = await service.updateCell('Fast', owner, { id: fast, field: 'note', value: 'changed' });
      const b = await service.updateCell('General', owner, { id: general, field: 'note', value: 'changed' });
      expect(hookCalls).to.deep.equal(['beforeUpdate']);
      expect(strip(a)).to.deep.equal(strip(b));
      expect(a).to.include({ id: fast, note: 'changed', startDate: '2024-01-01' });
      const [x, y] = await Promise.all([store.knex('sw_fast').where('id', fast).first(), store.knex('sw_general').where('id', general).first()]);
      expect(strip(x)).to.deep.equal(strip(y));
      expect(x.note).to.equal('changed');
      // The form path too: the whole entity back with one value changed.
      const c = await service.update('Fast', owner, { ...a, endDate: '2024-03-01' });
      const d = await service.update('General', owner, { ...b, endDate: '2024-03-01' });
      expect(strip(c)).to.deep.equal(strip(d));
    } finally {
      service.events.off('update', listener);
    }
    const [f1, g1, f2, g2] = events.map((e) => ({ ...e, model: 'M', id: 'ID', before: strip(e.before), after: strip(e.after) }));
    expect(f1).to.deep.equal(g1);
    expect(f2).to.deep.equal(g2);
    expect(f1!.changed).to.deep.equal(['note']);
    expect(f2!.changed).to.deep.equal(['endDate']);
    const [fastLogs, generalLogs] = [await logs(Fast), await logs(General)];
    const comparable = (l: (typeof fastLogs)[number]) => ({ ...l, id: 0, model: 'M', targetId: 'ID', createdAt: 0, durationMs: 0, request: l.request!.replace(/"id":\d+/g, '"id":ID').replace(/"code":"[^"]*"/g, ''), beforeData: l.beforeData!.replace(/"id":\d+/g, '"id":ID').replace(/"code":"[^"]*"/g, '') });
    expect(fastLogs.map(comparable)).to.deep.equal(generalLogs.map(comparable));
    expect(fastLogs).to.have.length(2);
    expect(fastLogs.map((l) => l.status)).to.deep.equal(['success', 'success']);
    expect(fastLogs.map((l) => l.ip)).to.deep.equal(['10.0.0.1', '10.0.0.1']);
    expect(fastLogs[1]!.request).to.equal(`{"id":${(await store.knex('sw_fast').first('id')).id},"changes":{"note":"changed"}}`);
  });

  for (const model of [Fast, General]) {
    it(`${model.name}: a value the schema refuses and a broken row rule are 422, nothing written, a failure row logged`, async () => {
      const id = await seed(model);
      const before: unknown = await store.knex(model.table).where('id', id).first();
      for (const [field, value, type] of [
        ['note', 'x'.repeat(21), 'max'],
        ['endDate', '2023-01-01', 'endAfterStart'],
      ] as const) {
        const error = await rejection(service.updateCell(model.name, owner, { id, field, value }));
        expect(error).to.include({ code: 'VALIDATION_FAILED', status: 422 });
        expect((error.details as Array<{ path: string; type: string }>)[0]).to.include({ path: field, type });
      }
      expect(await store.knex(model.table).where('id', id).first()).to.deep.equal(before);
      const rows = await logs(model);
      expect(rows.map((l) => l.status)).to.deep.equal(['failure', 'failure']);
    });

    it(`${model.name}: a taken unique value is 409 on the field, rolled back, and the next write goes through`, async () => {
      const id = await seed(model, { code: 'A' });
      await seed(model, { code: 'B' });
      const error = await rejection(service.updateCell(model.name, owner, { id, field: 'code', value: 'B' }));
      expect(error).to.include({ code: 'CONFLICT', status: 409 });
      expect((await store.knex(model.table).where('id', id).first()).code).to.equal('A');
      expect((await logs(model)).map((l) => l.status)).to.deep.equal(['failure']);
      // The connection is out of the failed transaction: the next edit commits.
      await service.updateCell(model.name, owner, { id, field: 'code', value: 'C' });
      expect((await store.knex(model.table).where('id', id).first()).code).to.equal('C');
      expect((await logs(model)).map((l) => l.status).sort()).to.deep.equal(['failure', 'success']);
    });

    it(`${model.name}: a row the actor cannot see is 404 and stays as it was; a stale If-Match is refused`, async () => {
      const id = await seed(model);
      const error = await rejection(service.updateCell(model.name, other, { id, field: 'note', value: 'hidden write' }));
      expect(error).to.include({ code: 'ROW_NOT_FOUND', status: 404 });
      expect((await store.knex(model.table).where('id', id).first()).note).to.equal('start');
      const stale = await rejection(service.updateCell(model.name, owner, { id, field: 'note', value: 'late' }, { ifMatch: '"not-the-version"' }));
      expect(stale).to.include({ code: 'STALE_ROW' });
      expect((await store.knex(model.table).where('id', id).first()).note).to.equal('start');
    });
  }

  it('an async rule still refuses, and a value it accepts is written with its log row', async () => {
    const id = await seed(Slow);
    const error = await rejection(service.updateCell('Slow', owner, { id, field: 'note', value: 'refused' }));
    expect(error).to.include({ code: 'VALIDATION_FAILED', status: 422 });
    expect((error.details as Array<{ path: string; type: string }>)[0]).to.include({ path: 'note', type: 'slowRule' });
    expect(await service.updateCell('Slow', owner, { id, field: 'note', value: 'fine' })).to.include({ note: 'fine' });
    expect((await store.knex('sw_slow').where('id', id).first()).note).to.equal('fine');
    expect((await logs(Slow)).map((l) => l.status).sort()).to.deep.equal(['failure', 'success']);
  });

  it('many edits at once, beside a knex transaction holding the connection: each one commits with its log row', async () => {
    const id = await seed(Plain);
    const holding = store.knex.transaction(async (trx) => {
      await trx('sw_plain').where('id', id).update({ note: 'held' });
      await new Promise((resolve) => setTimeout(resolve, 30));
    });
    const edits = Array.from({ length: 25 }, (_, i) => service.updateCell('Plain', owner, { id, field: 'note', value: `v${i}` }));
    await Promise.all([holding, ...edits]);
    const rows = (await logs(Plain)).filter((l) => l.status === 'success');
    expect(rows).to.have.length(25);
    expect(String((await store.knex('sw_plain').where('id', id).first()).note)).to.match(/^v\d+$/);
  });
});
