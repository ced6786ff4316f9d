import { expect } from 'chai';
import { BUILTIN_MODELS } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import type { EditEvent } from '../events.js';
import { planCalls, setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

describeEachSql('POST /data/modify/{fw}/update-cell', (db) => {
  let f: DataFixture;
  let admin: string;
  let alice: string;
  let bob: string;

  before(async () => {
    f = await setupData(db().url);
    [admin, alice, bob] = await Promise.all([f.token('admin'), f.token('alice'), f.token('bob')]);
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    for (const table of ['t_plan_tag', 't_plan', 't_tag', 't_frozen', 't_note', 'fw_operate_log']) await f.store.knex(table).delete();
    planCalls.length = 0;
  });

  const plan = async (values: Record<string, unknown> = {}) =>
    (await f.agent.post(`${api}/data/modify/Plan`).set('token', alice).send({ name: 'P', note: 'n', startDate: '2024-01-10', endDate: '2024-02-01', secretCode: 'S', ...values }).expect(200)).body as Record<string, unknown>;
  const cell = (token: string, model: string, id: unknown, field: unknown, value: unknown) => f.agent.post(`${api}/data/modify/${model}/update-cell`).set('token', token).send({ id, field, value });
  const form = (token: string, model: string, row: Record<string, unknown>) => f.agent.post(`${api}/data/modify/${model}/update`).set('token', token).send(row);
  const stored = async (id: unknown) => f.store.knex('t_plan').where('id', id as number).first();
  const successes = async (model: string, action = 'update') => (await f.store.operateLogs.list({ model, limit: 1000 })).filter((l) => l.action === action && l.status === 'success');

  describe('is exactly the edit form, one cell at a time', () => {
    it('gives the same hook calls, the same complete entity, the same operate log and the same event', async () => {
      const a = await plan();
      const b = await plan();
      const events: EditEvent[] = [];
      const listener = (e: EditEvent) => events.push(e);
      f.data.events.on('update', listener);
      try {
        planCalls.length = 0;
        // The edit form sends the whole entity back with one value changed.
        const viaForm = await form(alice, 'Plan', { ...a, note: 'changed' }).expect(200);
        const formCalls = planCalls.splice(0);
        const viaCell = await cell(alice, 'Plan', b.id, 'note', 'changed').expect(200);
        const cellCalls = planCalls.splice(0);
        const strip = (row: Record<string, unknown>) => ({ ...row, id: 'ID' });
        expect(cellCalls.map((c) => c.hook)).to.deep.equal(['beforeUpdate', 'afterUpdate']);
        expect(cellCalls.map((c) => ({ hook: c.hook, row: strip(c.row) }))).to.deep.equal(formCalls.map((c) => ({ hook: c.hook, row: strip(c.row) })));
        // The hooks saw the complete entity, every field included.
        expect(Object.keys(cellCalls[0]!.row).sort()).to.deep.equal(['budget', 'endDate', 'id', 'name', 'note', 'ref', 'secretCode', 'startDate', 'tags']);
        expect(strip(viaCell.body)).to.deep.equal(strip(viaForm.body));
      } finally {
        f.data.events.off('update', listener);
      }
      expect(events).to.have.length(2);
      const [e1, e2] = events.map((e) => ({ ...e, id: 'ID', before: { ...e.before, id: 'ID' }, after: { ...e.after, id: 'ID' } }));
      expect(e2).to.deep.equal(e1);
      expect(e1!.changed).to.deep.equal(['note']);
      const logs = await successes('Plan');
      expect(logs).to.have.length(2);
      const comparable = (l: (typeof logs)[number]) => ({
        action: l.action,
        source: l.source,
        account: l.account,
        status: l.status,
        request: l.request!.replace(/"id":\d+/, '"id":ID'),
        beforeData: l.beforeData!.replace(/"id":\d+/, '"id":ID'),
      });
      expect(comparable(logs[0]!)).to.deep.equal(comparable(logs[1]!));
      expect(logs[0]!.request).to.contain('"changes":{"note":"changed"}');
    });

    it('gives the same validation failure as the form for the same value', async () => {
      const a = await plan();
      const viaForm = await form(alice, 'Plan', { ...a, name: 'x'.repeat(51) }).expect(422);
      const viaCell = await cell(alice, 'Plan', a.id, 'name', 'x'.repeat(51)).expect(422);
      expect(viaCell.body).to.deep.equal(viaForm.body);
      expect(viaCell.body.error.details[0]).to.include({ path: 'name', type: 'max' });
      expect(planCalls).to.deep.equal([]);
    });
  });

  describe('validates the whole row', () => {
    it('keeps a cross-field invariant, whichever cell is edited', async () => {
      const a = await plan();
      const end = await cell(alice, 'Plan', a.id, 'endDate', '2024-01-01').expect(422);
      expect(end.body.error.details).to.deep.equal([{ path: 'endDate', type: 'endAfterStart', message: 'the end must not be before the start' }]);
      const start = await cell(alice, 'Plan', a.id, 'startDate', '2024-03-01').expect(422);
      expect(start.body.error.details[0]).to.include({ path: 'endDate', type: 'endAfterStart' });
      await cell(alice, 'Plan', a.id, 'endDate', '2024-01-10').expect(200);
      const row = (await f.agent.get(`${api}/data/Plan/${a.id}`).set('token', alice).expect(200)).body;
      expect(row).to.include({ startDate: '2024-01-10', endDate: '2024-01-10' });
    });

    it('resolves a dynamic rule against the stored value of the other field', async () => {
      const open = await plan({ endDate: null });
      const res = await cell(alice, 'Plan', open.id, 'budget', 500).expect(422);
      expect(res.body.error.details).to.deep.equal([{ path: 'budget', type: 'budgetNeedsEnd', message: 'a budget needs an end date' }]);
      const closed = await plan();
      expect((await cell(alice, 'Plan', closed.id, 'budget', 500).expect(200)).body.budget).to.equal(500);
    });
  });

  describe('refuses crafted requests from a user who has edit', () => {
    const cases: Array<[string, (ids: { plan: unknown; frozen: unknown; hidden: unknown }) => [string, unknown, unknown, unknown], number, string]> = [
      ['a model with cellEdit false', (ids) => ['Frozen', ids.frozen, 'label', 'x'], 403, 'CELL_EDIT_DISABLED'],
      ['a field with cellEdit false', (ids) => ['Plan', ids.plan, 'secretCode', 'x'], 403, 'FIELD_CELL_EDIT_DISABLED'],
      ['an unknown field', (ids) => ['Plan', ids.plan, 'nope', 'x'], 400, 'UNKNOWN_FIELD'],
      ['a column name instead of a field', (ids) => ['Plan', ids.plan, 'start_date', '2024-01-01'], 400, 'UNKNOWN_FIELD'],
      ['a prototype key', (ids) => ['Plan', ids.plan, '__proto__', {}], 400, 'UNKNOWN_FIELD'],
      ['a field that is not a string', (ids) => ['Plan', ids.plan, ['name'], 'x'], 400, 'UNKNOWN_FIELD'],
      ['a read-only field', (ids) => ['Plan', ids.plan, 'ref', 'x'], 400, 'READONLY_FIELD'],
      ['the primary key', (ids) => ['Plan', ids.plan, 'id', 999], 400, 'PRIMARY_KEY_FIELD'],
      ['a collection field', (ids) => ['Plan', ids.plan, 'tags', [1]], 400, 'COLLECTION_FIELD'],
      ['a value the type cannot convert', (ids) => ['Plan', ids.plan, 'budget', 'lots'], 400, 'INVALID_VALUE'],
      ['an impossible date', (ids) => ['Plan', ids.plan, 'endDate', '2024-02-30'], 400, 'INVALID_VALUE'],
      ['a row the user cannot see', (ids) => ['Note', ids.hidden, 'subject', 'mine'], 404, 'ROW_NOT_FOUND'],
      ['a row that does not exist', () => ['Plan', 987654, 'name', 'x'], 404, 'ROW_NOT_FOUND'],
      ['an id that is not a number', () => ['Plan', '1 or 1=1', 'name', 'x'], 400, 'BAD_ID'],
    ];
    for (const [what, build, status, code] of cases) {
      it(`${what}: ${status} ${code}, row unchanged, nothing logged as a success`, async () => {
        const p = await plan();
        const frozen = (await f.agent.post(`${api}/data/modify/Frozen`).set('token', alice).send({ label: 'ice' }).expect(200)).body;
        const hidden = (await f.agent.post(`${api}/data/modify/Note`).set('token', admin).send({ subject: 'admin only' }).expect(200)).body;
        const before = { plan: await stored(p.id), frozen: await f.store.knex('t_frozen').where('id', frozen.id).first(), note: await f.store.knex('t_note').where('id', hidden.id).first() };
        planCalls.length = 0;
        const [model, id, field, value] = build({ plan: p.id, frozen: frozen.id, hidden: hidden.id });
        const res = await cell(alice, model, id, field, value);
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        expect(res.body.error.code).to.equal(code);
        expect(await stored(p.id)).to.deep.equal(before.plan);
        expect(await f.store.knex('t_frozen').where('id', frozen.id).first()).to.deep.equal(before.frozen);
        expect(await f.store.knex('t_note').where('id', hidden.id).first()).to.deep.equal(before.note);
        expect(planCalls).to.deep.equal([]);
        expect(await successes(model)).to.have.length(0);
      });
    }

    it('refuses a user without edit (menu not granted), and a body without a value', async () => {
      const p = await plan();
      const before = await stored(p.id);
      expect((await cell(bob, 'Plan', p.id, 'name', 'x').expect(403)).body.error.code).to.equal('POWER_DENIED');
      // Without edit, the answer is the same whatever the field: nothing to learn about the model.
      expect((await cell(bob, 'Plan', p.id, 'no-such-field', 'x').expect(403)).body.error.code).to.equal('POWER_DENIED');
      expect((await cell(bob, 'Plan', p.id, 'secretCode', 'x').expect(403)).body.error.code).to.equal('POWER_DENIED');
      await f.agent.post(`${api}/data/modify/Plan/update-cell`).set('token', alice).send({ id: p.id, field: 'name' }).expect(400);
      await f.agent.post(`${api}/data/modify/Plan/update-cell`).set('token', alice).send(['id', 1]).expect(400);
      expect(await stored(p.id)).to.deep.equal(before);
    });
  });

  describe('the built-in models', () => {
    const closed = BUILTIN_MODELS.flatMap((model) => Object.values(model.fields).filter((field) => !field.edit.cellEdit).map((field) => [model.name, field.name] as const));

    it('close exactly the fields the contract names to cell editing', () => {
      const expected = {
        FwUser: ['account', 'isAdmin', 'roles', 'orgs', 'expireDate', 'whiteIp', 'status'],
        FwRole: ['code', 'status'],
        FwOpenApi: ['secret', 'expireDate', 'status'],
        FwLlm: ['apiDomain'],
        FwEmbeddingModel: ['apiDomain'],
        FwAgent: ['url'],
        FwBiDatasource: ['connectionString'],
      };
      const editable = BUILTIN_MODELS.filter((m) => m.power.cellEdit);
      const actual = Object.fromEntries(editable.map((m) => [m.name, Object.values(m.fields).filter((x) => !x.edit.cellEdit).map((x) => x.name)] as const).filter(([, fields]) => fields.length > 0));
      for (const key of Object.keys(expected) as Array<keyof typeof expected>) expect(actual[key], key).to.have.members(expected[key]);
      expect(Object.keys(actual).sort()).to.deep.equal(Object.keys(expected).sort());
    });

    it('refuse every one of those cells to an administrator, leaving the rows as they were', async () => {
      const user = (await f.store.users.findByAccount(f.users.alice.account))!;
      const role = (await f.store.roles.list())[0]!;
      const key = await f.store.openApis.create({ name: 'k', userId: user.id });
      const ids: Record<string, number> = { FwUser: user.id, FwRole: role.id, FwOpenApi: key.record.id };
      for (const [table, model, row] of [
        ['fw_llm', 'FwLlm', { name: 'llm', api_domain: 'https://llm.example' }],
        ['fw_embedding_model', 'FwEmbeddingModel', { name: 'emb', api_domain: 'https://emb.example' }],
        ['fw_agent', 'FwAgent', { name: 'agent', url: 'https://agent.example' }],
        ['fw_bi_datasource', 'FwBiDatasource', { name: 'bi', connection_string: 'postgres://bi' }],
      ] as const) {
        await f.store.knex(table).insert(row);
        ids[model] = Number((await f.store.knex(table).max({ id: 'id' }))[0]!.id);
      }
      expect(closed.length).to.be.greaterThan(15);
      for (const [model, field] of closed) {
        if (!(model in ids)) continue;
        const table = f.registry.get(model)!.table;
        const before = await f.store.knex(table).where('id', ids[model]!).first();
        const res = await cell(admin, model, ids[model], field, field === 'isAdmin' ? true : field === 'roles' || field === 'orgs' ? [] : 'x');
        expect(res.status, `${model}.${field}`).to.equal(403);
        expect(res.body.error.code, `${model}.${field}`).to.equal('FIELD_CELL_EDIT_DISABLED');
        expect(await f.store.knex(table).where('id', ids[model]!).first(), `${model}.${field}`).to.deep.equal(before);
      }
    });

    it('add an open-API key with a generated app id and a hashed secret that verifies', async () => {
      const made = (await f.agent.post(`${api}/data/modify/FwOpenApi`).set('token', admin).send({ name: 'desktop client', secret: 'a-long-enough-secret-1', userId: f.users.alice.id }).expect(200)).body;
      expect(made.appId).to.match(/^[A-Za-z0-9_-]{16}$/);
      expect(made).to.not.have.property('secret');
      expect((await f.store.openApis.verify(made.appId, 'a-long-enough-secret-1'))?.userId).to.equal(f.users.alice.id);
      expect(await f.store.openApis.verify(made.appId, 'another-secret-of-length')).to.equal(undefined);
      const forged = await f.agent.post(`${api}/data/modify/FwOpenApi`).set('token', admin).send({ name: 'x', secret: 'a-long-enough-secret-1', userId: f.users.alice.id, appId: 'mine' }).expect(400);
      expect(forged.body.error.code).to.equal('READONLY_FIELD');
      await f.agent.post(`${api}/data/modify/FwOpenApi`).set('token', admin).send({ name: 'x', userId: f.users.alice.id }).expect(422);
    });

    it('refuse values wider than their columns with 422', async () => {
      const res = await f.agent.post(`${api}/data/modify/FwLlm`).set('token', admin).send({ name: 'n'.repeat(129), apiDomain: 'https://llm.example' }).expect(422);
      expect(res.body.error.details[0]).to.include({ path: 'name', type: 'max' });
      const agent = await f.agent.post(`${api}/data/modify/FwAgent`).set('token', admin).send({ name: 'a', url: 'https://x.example', description: 'd'.repeat(1025) }).expect(422);
      expect(agent.body.error.details[0]).to.include({ path: 'description', type: 'max' });
    });

    it('never return a password, a secret or a connection string', async () => {
      const made = (await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `pw-${Date.now()}`, password: 'a-secret-1', roles: [] }).expect(200)).body;
      expect(made).to.not.have.any.keys('password', 'passwordHash', 'password_hash', 'passwordSalt');
      const raw = await f.store.knex('fw_user').where('id', made.id).first();
      expect(raw.password_hash).to.match(/^[0-9a-f]{128}$/);
      expect(raw.password_salt).to.match(/^[0-9a-f]{32}$/);
      expect((await f.store.users.getCredentials(made.account))?.id).to.equal(made.id);
      await f.store.knex('fw_bi_datasource').insert({ name: 'bi2', connection_string: 'postgres://user:pw@db/bi' });
      const reads = [
        await f.agent.get(`${api}/data/FwUser/${made.id}`).set('token', admin).expect(200),
        await f.agent.post(`${api}/data/table/FwUser`).set('token', admin).send({ size: 200 }).expect(200),
        await f.agent.get(`${api}/data/print/FwUser/${made.id}?_token=${admin}`).expect(200),
        await f.agent.post(`${api}/data/table/FwBiDatasource`).set('token', admin).send({}).expect(200),
        await f.agent.get(`${api}/build/FwUser`).set('token', admin).expect(200),
      ];
      // Users are not exportable by default (export is off unless a model turns it on).
      await f.agent.get(`${api}/data/export/FwUser?_token=${admin}`).expect(403);
      for (const res of reads) {
        expect(res.text).to.not.contain(raw.password_hash).and.not.contain(raw.password_salt).and.not.contain('a-secret-1').and.not.contain('pw@db');
      }
    });
  });

  it('commits no change without its operate-log row', async () => {
    const p = await plan();
    const before = await stored(p.id);
    await f.store.knex.schema.renameTable('fw_operate_log', 'fw_operate_log_away');
    try {
      await cell(alice, 'Plan', p.id, 'note', 'unlogged').expect(500);
    } finally {
      await f.store.knex.schema.renameTable('fw_operate_log_away', 'fw_operate_log');
    }
    expect(await stored(p.id)).to.deep.equal(before);
  });

  it('rolls the write back when afterUpdate fails', async () => {
    const p = await plan();
    const before = await stored(p.id);
    const res = await cell(alice, 'Plan', p.id, 'name', 'boom').expect(409);
    expect(res.body.error.message).to.equal('afterUpdate refused boom');
    expect(planCalls.map((c) => c.hook)).to.deep.equal(['beforeUpdate', 'afterUpdate']);
    expect(await stored(p.id)).to.deep.equal(before);
    const [log] = await f.store.operateLogs.list({ model: 'Plan', limit: 1 });
    expect(log).to.include({ action: 'update', status: 'failure' });
  });

  it('keeps both edits when two clients edit different cells of one row at once (2 x 200)', async function () {
    this.timeout(120_000);
    const p = await plan();
    const [t1, t2] = [await f.token('alice'), await f.token('alice')];
    const run = async (token: string, field: 'name' | 'note', prefix: string) => {
      for (let i = 0; i < 200; i += 1) {
        const res = await cell(token, 'Plan', p.id, field, `${prefix}-${i}`);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body[field]).to.equal(`${prefix}-${i}`);
      }
    };
    await Promise.all([run(t1, 'name', 'a'), run(t2, 'note', 'b')]);
    const row = await stored(p.id);
    expect(row).to.include({ name: 'a-199', note: 'b-199' });
    expect(await successes('Plan')).to.have.length(400);
  });
});
