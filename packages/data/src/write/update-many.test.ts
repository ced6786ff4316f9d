import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import type { EditEvent } from '../events.js';
import { planCalls, setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachSql('POST /data/modify/{fw}/update-many (bulk edit)', (db) => {
  let f: DataFixture;
  let admin: string;
  let alice: string;
  let bob: string;

  before(async () => {
    // A lower bound than the default, so the limit is tested without 10,000 rows.
    f = await setupData(db().url, { bulkMaxRows: 10_000 });
    [admin, alice, bob] = await Promise.all([f.token('admin'), f.token('alice'), f.token('bob')]);
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    for (const table of ['t_plan_tag', 't_plan', 't_book_tag', 't_book', 't_note', 't_frozen', 'fw_operate_log']) await f.store.knex(table).delete();
    planCalls.length = 0;
  });

  const bulk = (token: string, model: string, body: unknown) => f.agent.post(`${api}/data/modify/${model}/update-many`).set('token', token).send(body as object);
  const plan = async (values: Record<string, unknown> = {}) =>
    (await f.agent.post(`${api}/data/modify/Plan`).set('token', alice).send({ name: 'P', note: 'n', startDate: '2024-01-10', endDate: '2024-02-01', ...values }).expect(200)).body as { id: number };
  /** `n` Plan rows written straight to the table (fast), the last one's start date `lastStart`. */
  const plans = async (n: number, lastStart = '2024-01-10'): Promise<number[]> => {
    const rows = Array.from({ length: n }, (_, i) => ({ name: `P${i}`, note: 'n', startDate: i === n - 1 ? lastStart : '2024-01-10', endDate: '2024-02-01' }));
    for (let i = 0; i < rows.length; i += 200) await f.store.knex('t_plan').insert(rows.slice(i, i + 200));
    return ((await f.store.knex('t_plan').orderBy('id').select('id')) as Array<{ id: number }>).map((r) => Number(r.id));
  };
  const logs = async () => (await f.store.operateLogs.list({ limit: 5000 })).reverse();

  describe('goes through every row as a cell edit does, in one transaction', () => {
    it('writes every row, one log row per row with one batch id, and emits events only after the commit', async () => {
      const a = await plan();
      const b = await plan({ note: 'other' });
      await f.store.knex('fw_operate_log').delete();
      planCalls.length = 0;
      const seen: Array<{ id: number; hooksBefore: number; stored: unknown }> = [];
      const listener = (e: EditEvent) => {
        // Every row's afterUpdate (inside the transaction) ran before the first event.
        seen.push({ id: e.id, hooksBefore: planCalls.filter((c) => c.hook === 'afterUpdate').length, stored: null });
      };
      f.data.events.on('update', listener);
      let res;
      try {
        res = await bulk(alice, 'Plan', { ids: [a.id, b.id], values: { note: 'bulk', budget: '12.5' } }).expect(200);
      } finally {
        f.data.events.off('update', listener);
      }
      expect(res.body).to.deep.include({ updated: 2, changed: 2 });
      expect(res.body.batch).to.match(UUID);
      const rows = await f.rows('t_plan');
      expect(rows.map((r) => r.note)).to.deep.equal(['bulk', 'bulk']);
      expect(rows.map((r) => Number(r.budget))).to.deep.equal([12.5, 12.5]);
      // The hooks saw the complete row, as for a cell edit.
      expect(planCalls.map((c) => c.hook)).to.deep.equal(['beforeUpdate', 'afterUpdate', 'beforeUpdate', 'afterUpdate']);
      expect(Object.keys(planCalls[0]!.row).sort()).to.deep.equal(['budget', 'endDate', 'id', 'name', 'note', 'ref', 'secretCode', 'startDate', 'tags']);
      expect(seen.map((s) => s.id)).to.deep.equal([a.id, b.id]);
      expect(seen.every((s) => s.hooksBefore === 2)).to.equal(true);
      const written = await logs();
      expect(written).to.have.length(2);
      for (const [i, log] of written.entries()) {
        expect(log).to.include({ action: 'update', source: 'bulk', status: 'success', batch: res.body.batch, targetId: String([a.id, b.id][i]) });
        expect(JSON.parse(log.request!)).to.deep.equal({ id: [a.id, b.id][i], changes: { note: 'bulk', budget: 12.5 } });
        expect(JSON.parse(log.beforeData!)).to.include({ note: i === 0 ? 'n' : 'other' });
      }
    });

    it('selects rows by conditions, as the table query does, and answers 0 when none match', async () => {
      const ids = await plans(3);
      await f.store.knex('t_plan').where('id', ids[1]!).update({ note: 'keep' });
      const res = await bulk(alice, 'Plan', { conditions: [{ field: 'note', op: 'eq', value: 'n' }], values: { name: 'renamed' } }).expect(200);
      expect(res.body).to.include({ updated: 2, changed: 2 });
      expect((await f.rows('t_plan')).map((r) => r.name)).to.deep.equal(['renamed', 'P1', 'renamed']);
      expect(await bulk(alice, 'Plan', { conditions: [{ field: 'note', op: 'eq', value: 'none' }], values: { name: 'x' } }).expect(200).then((r) => r.body)).to.deep.equal({ updated: 0, changed: 0, batch: null });
      // A condition on an unknown field is refused by the table query's parser.
      expect((await bulk(alice, 'Plan', { conditions: [{ field: 'nope', op: 'eq', value: 1 }], values: { name: 'x' } }).expect(400)).body.error.code).to.equal('UNKNOWN_FIELD');
    });

    it('converts the values as the cell editor does, and checks them against every row', async () => {
      const ids = await plans(2);
      const bad = await bulk(alice, 'Plan', { ids, values: { budget: 'lots' } }).expect(400);
      expect(bad.body.error.code).to.equal('INVALID_VALUE');
      expect(bad.body.error.details[0]).to.include({ path: 'values.budget' });
      // A dynamic rule reading another field: a budget needs an end date, which row 2 lacks.
      await f.store.knex('t_plan').where('id', ids[1]!).update({ endDate: null });
      const refused = await bulk(alice, 'Plan', { ids, values: { budget: 5 } }).expect(422);
      expect(refused.body.error.code).to.equal('BULK_EDIT_FAILED');
      expect(refused.body.error.details).to.have.length(1);
      expect(refused.body.error.details[0]).to.include({ path: 'ids[1].budget', id: ids[1] });
      expect((await f.rows('t_plan')).map((r) => r.budget)).to.deep.equal([null, null]);
    });
  });

  describe('rows with values of their own (a paste) and dry runs', () => {
    it('writes each row its own values in one transaction, one batch', async () => {
      const ids = await plans(3);
      const res = await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { note: 'first', budget: '3' } }, { id: ids[2], values: { name: 'third' } }] }).expect(200);
      expect(res.body).to.include({ updated: 2, changed: 2 });
      const rows = await f.rows('t_plan');
      expect(rows.map((r) => [r.name, r.note, r.budget === null ? null : Number(r.budget)])).to.deep.equal([
        ['P0', 'first', 3],
        ['P1', 'n', null],
        ['third', 'n', null],
      ]);
      const written = await logs();
      expect(written.map((l) => l.batch)).to.deep.equal([res.body.batch, res.body.batch]);
    });

    it('names a refused row by its place in rows, converts per row, and refuses the shapes it cannot take', async () => {
      const ids = await plans(2);
      await f.store.knex('t_plan').where('id', ids[1]!).update({ endDate: null });
      const refused = await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { budget: 1 } }, { id: ids[1], values: { budget: 2 } }] }).expect(422);
      expect(refused.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['rows[1].budget']);
      const unconvertible = await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { budget: 'lots' } }] }).expect(400);
      expect(unconvertible.body.error.details[0]).to.include({ path: 'rows[0].budget' });
      expect((await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { note: 'a' } }], values: { note: 'b' } }).expect(400)).body.error.code).to.equal('BAD_REQUEST');
      expect((await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { note: 'a' } }, { id: ids[0], values: { note: 'b' } }] }).expect(400)).body.error.details[0]).to.include({ path: 'rows[1].id' });
      expect((await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: {} }] }).expect(400)).body.error.details[0]).to.include({ path: 'rows[0].values' });
      // A row that does not exist is refused by its place in rows, and nothing is written.
      const missing = await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { note: 'a' } }, { id: 999999, values: { note: 'b' } }] }).expect(404);
      expect(missing.body.error.details[0]).to.include({ path: 'rows[1]' });
      expect((await f.rows('t_plan')).map((r) => [r.note, r.budget])).to.deep.equal([
        ['n', null],
        ['n', null],
      ]);
    });

    it('a dry run checks every row as the edit would and writes nothing: no row, no log, no event', async () => {
      const ids = await plans(2);
      let events = 0;
      const listener = () => (events += 1);
      f.data.events.on('update', listener);
      try {
        const ok = await bulk(alice, 'Plan', { ids, values: { note: 'dry' }, dryRun: true }).expect(200);
        expect(ok.body).to.deep.equal({ updated: 2, changed: 2, batch: null, dryRun: true });
        const rowsOk = await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { note: 'dry' } }], dryRun: true }).expect(200);
        expect(rowsOk.body).to.include({ updated: 1, dryRun: true });
        await f.store.knex('t_plan').where('id', ids[1]!).update({ endDate: null });
        const refused = await bulk(alice, 'Plan', { rows: [{ id: ids[0], values: { budget: 1 } }, { id: ids[1], values: { budget: 2 } }], dryRun: true }).expect(422);
        expect(refused.body.error.details[0]).to.include({ path: 'rows[1].budget' });
      } finally {
        f.data.events.off('update', listener);
      }
      expect(events).to.equal(0);
      expect((await f.rows('t_plan')).map((r) => r.note)).to.deep.equal(['n', 'n']);
      expect(await logs()).to.have.length(0);
      expect((await bulk(alice, 'Plan', { ids, values: { note: 'x' }, dryRun: 'yes' }).expect(400)).body.error.details[0]).to.include({ path: 'dryRun' });
    });
  });

  describe('all or nothing', () => {
    it('a row rule failing on the last of 10,000 rows leaves nothing written and only the failure logged', async function () {
      this.timeout(180_000);
      // The last row starts after the new end date: the row rule endAfterStart refuses it alone.
      const ids = await plans(10_000, '2024-05-01');
      const res = await bulk(alice, 'Plan', { ids, values: { endDate: '2024-03-01', note: 'bulk' } }).expect(422);
      expect(res.body.error.code).to.equal('BULK_EDIT_FAILED');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['ids[9999].endDate']);
      const rows = await f.rows('t_plan');
      expect(rows.filter((r) => r.note === 'bulk')).to.have.length(0);
      const written = await logs();
      expect(written).to.have.length(1);
      expect(written[0]).to.include({ status: 'failure', source: 'bulk', action: 'update' });
      expect(written[0]!.batch).to.match(UUID);
      expect(written[0]!.error).to.contain('BULK_EDIT_FAILED');
    });

    it('keeps checking after a refused row, so the answer names every failing row', async () => {
      const ids = await plans(4);
      await f.store.knex('t_plan').whereIn('id', [ids[0]!, ids[2]!]).update({ startDate: '2024-09-01' });
      const res = await bulk(alice, 'Plan', { ids, values: { endDate: '2024-03-01' } }).expect(422);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['ids[0].endDate', 'ids[2].endDate']);
      expect((await f.rows('t_plan')).map((r) => String(r.endDate).slice(0, 4))).to.not.include('2024-03');
    });

    it('a failure after a row was written (afterUpdate) ends the run and rolls every row back', async () => {
      const ids = await plans(3);
      const events: EditEvent[] = [];
      const listener = (e: EditEvent) => events.push(e);
      f.data.events.on('update', listener);
      try {
        const res = await bulk(alice, 'Plan', { ids, values: { name: 'boom' } }).expect(409);
        expect(res.body.error.message).to.contain('ids[0]');
      } finally {
        f.data.events.off('update', listener);
      }
      expect((await f.rows('t_plan')).map((r) => r.name)).to.deep.equal(['P0', 'P1', 'P2']);
      expect(events).to.deep.equal([]);
      expect((await logs()).map((l) => l.status)).to.deep.equal(['failure']);
    });
  });

  describe("from the attacker's side", () => {
    it('refuses the whole request when one id names a row the user cannot see, and writes nothing', async () => {
      const mine = (await f.agent.post(`${api}/data/modify/Note`).set('token', alice).send({ subject: 'mine' }).expect(200)).body as { id: number };
      const theirs = (await f.agent.post(`${api}/data/modify/Note`).set('token', admin).send({ subject: 'admin only' }).expect(200)).body as { id: number };
      await f.store.knex('fw_operate_log').delete();
      const res = await bulk(alice, 'Note', { ids: [mine.id, theirs.id], values: { subject: 'owned' } }).expect(404);
      expect(res.body.error.code).to.equal('ROW_NOT_FOUND');
      expect(res.body.error.details).to.deep.equal([{ path: 'ids[1]', type: 'notFound', message: `no Note with id ${theirs.id} that you may edit` }]);
      expect((await f.rows('t_note')).map((r) => r.subject).sort()).to.deep.equal(['admin only', 'mine']);
      // By conditions, only the rows the user sees are selected.
      const all = await bulk(alice, 'Note', { conditions: [], values: { subject: 'owned' } }).expect(200);
      expect(all.body).to.include({ updated: 1 });
      expect((await f.rows('t_note')).map((r) => r.subject).sort()).to.deep.equal(['admin only', 'owned']);
      // The batch's log rows name only the user's row.
      expect((await logs()).filter((l) => l.status === 'success').map((l) => l.targetId)).to.deep.equal([String(mine.id)]);
    });

    it('refuses fields closed to cell edits, read-only fields and unknown fields before reading any row', async () => {
      const ids = await plans(1);
      const cellOff = await bulk(alice, 'Plan', { ids, values: { note: 'x', secretCode: 'S' } }).expect(403);
      expect(cellOff.body.error.code).to.equal('FIELD_CELL_EDIT_DISABLED');
      expect((await bulk(alice, 'Plan', { ids, values: { ref: 'R' } }).expect(400)).body.error.code).to.equal('READONLY_FIELD');
      expect((await bulk(alice, 'Plan', { ids, values: { nope: 1 } }).expect(400)).body.error.code).to.equal('UNKNOWN_FIELD');
      const frozen = await bulk(alice, 'Frozen', { ids: [1], values: { label: 'x' } }).expect(403);
      expect(frozen.body.error.code).to.equal('CELL_EDIT_DISABLED');
      expect((await f.rows('t_plan'))[0]).to.include({ secretCode: null, ref: null });
    });

    it('DataService.updateMany holds a hand-built input to the cell-edit switches too', async () => {
      const ids = await plans(1);
      const actor = { user: f.users.alice, ip: null, source: 'http' as const };
      let refused: unknown;
      await f.data.service.updateMany('Plan', actor, { ids, values: { secretCode: 'S' } }).catch((e: unknown) => (refused = e));
      expect((refused as { code?: string }).code).to.equal('FIELD_CELL_EDIT_DISABLED');
      expect((await f.rows('t_plan'))[0]).to.include({ secretCode: null });
    });

    it('needs edit power; answers the same checks in the cell editor’s order', async () => {
      const ids = await plans(1);
      expect((await bulk(bob, 'Plan', { ids, values: { note: 'x' } }).expect(403)).body.error.code).to.equal('POWER_DENIED');
      expect((await bulk(bob, 'Book', { ids: [1], values: { title: 'x' } }).expect(403)).body.error.code).to.equal('POWER_DENIED');
      await f.agent.post(`${api}/data/modify/Plan/update-many`).send({ ids, values: { note: 'x' } }).expect(401);
      expect((await bulk(alice, 'Nope', { ids, values: { note: 'x' } }).expect(404)).body.error.code).to.equal('MODEL_NOT_FOUND');
      expect((await bulk(alice, 'Plan', { ids, conditions: [], values: { note: 'x' } }).expect(400)).body.error.code).to.equal('BAD_REQUEST');
      expect((await bulk(alice, 'Plan', { ids, values: {} }).expect(400)).body.error.code).to.equal('BAD_REQUEST');
      expect((await bulk(alice, 'Plan', { ids: ['x'], values: { note: 'x' } }).expect(400)).body.error.code).to.equal('BAD_ID');
    });

    it('refuses more rows than bulkMaxRows (413) before writing anything', async function () {
      this.timeout(180_000);
      const many = Array.from({ length: 10_001 }, (_, i) => i + 1);
      expect((await bulk(alice, 'Plan', { ids: many, values: { note: 'x' } }).expect(413)).body.error.code).to.equal('TOO_MANY_ROWS');
      await plans(10_001);
      expect((await bulk(alice, 'Plan', { conditions: [], values: { note: 'x' } }).expect(413)).body.error.code).to.equal('TOO_MANY_ROWS');
      expect((await f.rows('t_plan')).filter((r) => r.note === 'x')).to.have.length(0);
    });
  });

  it('bulk delete answers the batch id its log rows carry, one row per deleted row', async () => {
    const ids = await plans(2);
    const res = await f.agent.post(`${api}/data/modify/Plan/delete`).set('token', alice).send({ ids }).expect(200);
    expect(res.body.deleted).to.equal(2);
    expect(res.body.batch).to.match(UUID);
    const deletes = (await logs()).filter((l) => l.action === 'delete');
    expect(deletes.map((l) => [l.batch, l.targetId])).to.have.deep.members(ids.map((id) => [res.body.batch, String(id)]));
  });
});
