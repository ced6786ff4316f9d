import { createHash } from 'node:crypto';
// Issue 24's conflict-safe cell edits (`expect` on update-cell and on pasted rows) probed from an
// attacker's side, through a real Koa app: many editors racing on one cell with the same
// expectation (on the fast paths and the general one), fields an afterFetch takes out, and
// expectations of the wrong shape or size. Every probe wants one winner, a 4xx for the others
// (never a 500), and no value the caller may not see in an answer.
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './http/router.js';
import { rowVersion, versionKeyOf } from './read/row-version.js';

/** No hooks: the fast update paths (SQLite, PostgreSQL) take it. */
const Plain = defineModel({
  name: 'Plain',
  table: 'rt24_plain',
  fields: { title: {}, price: { edit: { type: 'NUMBER' } }, tags: { edit: { type: 'TAGS' } } },
});

/** An afterFetch that takes `salary` out for everyone but administrators (the table never shows it to them). */
const Staff = defineModel({
  name: 'Staff',
  table: 'rt24_staff',
  fields: { name: {}, salary: { edit: { type: 'NUMBER' } } },
  dataProxy: {
    afterFetch: (rows, { user }) => (user.isAdmin ? rows : rows.map(({ salary: _salary, ...rest }) => rest)),
  },
});

/** An async beforeUpdate: the general path, with a pause between reading the row and writing it. */
const Slow = defineModel({
  name: 'Slow',
  table: 'rt24_slow',
  fields: { title: {} },
  dataProxy: {
    beforeUpdate: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
    },
  },
});

/** Every kind of cell, twice: without hooks (the fast paths) and with one (the general path). */
const kinds = {
  day: { edit: { type: 'DATE' } },
  at: { edit: { type: 'DATETIME' } },
  amount: { edit: { type: 'NUMBER' } },
  count: { edit: { type: 'NUMBER', integer: true } },
  flag: { edit: { type: 'BOOLEAN' } },
  tags: { edit: { type: 'TAGS' } },
  color: { edit: { type: 'CHOICE', choices: [{ value: 'red' }, { value: 'blue' }] } },
  sizes: { edit: { type: 'MULTI_CHOICE', choices: [{ value: 's' }, { value: 'm' }] } },
  text: {},
} as const;
const KindsFast = defineModel({ name: 'KindsFast', table: 'rt24_kinds_fast', fields: kinds });
const KindsHooked = defineModel({ name: 'KindsHooked', table: 'rt24_kinds_hooked', fields: kinds, dataProxy: { beforeUpdate: async () => undefined } });

type Who = 'admin' | 'alice';

describeEachSql('issue 24 (cell expectations) from the attacker’s side', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Plain, Staff, Slow, KindsFast, KindsHooked]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `rt24-editor-${stamp}`, name: 'Editor' });
    const menus: number[] = [];
    for (const model of [Plain, Staff, Slow, KindsFast, KindsHooked]) {
      const { menu, functions } = await store.menus.createModelMenu(model);
      menus.push(menu.id, ...functions.map((f) => f.id));
    }
    await store.roles.setMenus(editor.id, menus);
    for (const [name, isAdmin] of [
      ['admin', true],
      ['alice', false],
    ] as const) {
      const row = await store.users.create({ account: `rt24-${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (!isAdmin) await store.users.setRoles(row.id, [editor.id]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry }));
    agent = request(app.callback());
  });

  after(async () => {
    await store?.destroy();
  });

  const tokenOf = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const add = async (model: string, values: Record<string, unknown>) => {
    const res = await agent.post(`/fw-api/data/modify/${model}`).set('token', await tokenOf('admin')).send(values);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as number;
  };

  for (const [model, table, field, seed, next] of [
    ['Plain', 'rt24_plain', 'title', 'first', (i: number) => `title-${i}`],
    ['Plain', 'rt24_plain', 'price', 1, (i: number) => 100 + i],
    ['Staff', 'rt24_staff', 'name', 'first', (i: number) => `name-${i}`],
    ['Slow', 'rt24_slow', 'title', 'first', (i: number) => `slow-${i}`],
  ] as const) {
    it(`20 editors racing on one ${model}.${field} with the same expectation: exactly one 200, the others 409 STALE_CELL`, async () => {
      const id = await add(model, { [field]: seed });
      const token = await tokenOf('alice');
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => agent.post(`/fw-api/data/modify/${model}/update-cell`).set('token', token).send({ id, field, value: next(i), expect: seed })),
      );
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 200), JSON.stringify(answers.filter((r) => r.status !== 200 && r.status !== 409).map((r) => r.body))).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(19);
      for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.code).to.equal('STALE_CELL');
      const winner = answers.findIndex((r) => r.status === 200);
      const row = (await store.knex(table).where('id', id).first()) as Record<string, unknown>;
      expect(String(row[field])).to.equal(String(next(winner)));
      const logged = await store.knex('fw_operate_log').where({ model, target_id: String(id), action: 'update', status: 'success' });
      expect(logged).to.have.length(1);
    });
  }

  it('a 409 never shows a field the table takes out for the caller, and the expectation is no oracle for it', async () => {
    const id = await add('Staff', { name: 'Ann', salary: 5000 });
    const token = await tokenOf('alice');
    const cell = (body: Record<string, unknown>) => agent.post('/fw-api/data/modify/Staff/update-cell').set('token', token).send({ id, field: 'salary', ...body });
    // Right guess and wrong guess answer alike: the caller is compared with what the table shows them (nothing).
    const right = await cell({ value: 6000, expect: 5000 });
    const wrong = await cell({ value: 6000, expect: 1 });
    expect(right.status).to.equal(wrong.status);
    for (const res of [right, wrong]) expect(JSON.stringify(res.body)).not.to.contain('5000');
    const pasted = await agent
      .post('/fw-api/data/modify/Staff/update-many')
      .set('token', token)
      .send({ rows: [{ id, values: { salary: 7000 }, expect: { salary: 1 } }] });
    expect(JSON.stringify(pasted.body)).not.to.contain('5000');
  });

  it('refuses or compares expectations of any shape and size without a 500', async () => {
    const id = await add('Plain', { title: 't', price: 1, tags: ['a'] });
    const token = await tokenOf('alice');
    const raw = (path: string, body: string) => agent.post(`/fw-api/data/modify/Plain/${path}`).set('token', token).set('content-type', 'application/json').send(body);
    const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const cases: Array<[string, string]> = [];
    for (const field of ['title', 'price', 'tags']) {
      for (const shown of [deep(5000), deepObject(5000), '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', `"${'x'.repeat(500_000)}"`, '1e400', '-0', 'true', '[]', '{}']) {
        cases.push(['update-cell', `{"id":${id},"field":"${field}","value":${field === 'tags' ? '["a"]' : field === 'price' ? '1' : '"t"'},"expect":${shown}}`]);
        cases.push(['update-many', `{"rows":[{"id":${id},"values":{"${field}":${field === 'tags' ? '["a"]' : field === 'price' ? '1' : '"t"'}},"expect":{"${field}":${shown}}}]}`]);
      }
    }
    cases.push(['update-many', `{"rows":[{"id":${id},"values":{"title":"t"},"expect":{"__proto__":{"title":"t"}}}]}`]);
    cases.push(['update-many', `{"rows":[{"id":${id},"values":{"title":"t"},"expect":[1]}]}`]);
    for (const [path, body] of cases) {
      const res = await raw(path, body);
      expect(res.status, `${path} ${body.slice(0, 80)}: ${JSON.stringify(res.body).slice(0, 200)}`).to.be.within(200, 499);
    }
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    const row = (await store.knex('rt24_plain').where('id', id).first()) as Record<string, unknown>;
    expect(row.title).to.equal('t');
  });

  for (const model of ['KindsFast', 'KindsHooked']) {
    it(`${model}: every cell, expected as the table shows it, is met (the fast and general paths compare alike)`, async () => {
      const values = { day: '2026-03-04', at: '2026-03-04T05:06:07.890Z', amount: 9.5, count: 3, flag: false, tags: ['b', 'a'], color: 'red', sizes: ['m', 's'], text: null };
      const id = await add(model, values);
      const token = await tokenOf('alice');
      const page = await agent.post(`/fw-api/data/table/${model}`).set('token', token).send({});
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      const shown = (page.body.rows as Array<Record<string, unknown>>).find((r) => r.id === id)!;
      const next: Record<string, unknown> = { day: '2026-03-05', at: '2026-03-05T00:00:00.000Z', amount: 10.25, count: 4, flag: true, tags: ['c'], color: 'blue', sizes: ['s'], text: 'x' };
      for (const field of Object.keys(values)) {
        const res = await agent.post(`/fw-api/data/modify/${model}/update-cell`).set('token', token).send({ id, field, value: next[field], expect: shown[field] ?? null });
        expect(res.status, `${field} expected ${JSON.stringify(shown[field])}: ${JSON.stringify(res.body)}`).to.equal(200);
        // The same expectation again is stale now, with the value just written.
        const again = await agent.post(`/fw-api/data/modify/${model}/update-cell`).set('token', token).send({ id, field, value: shown[field] ?? null, expect: shown[field] ?? null });
        expect(again.status, `${field} again: ${JSON.stringify(again.body)}`).to.equal(409);
      }
    });
  }

  it('20 pastes racing over one cell with the same expectation: exactly one 200, the others 422 naming the stale cell', async () => {
    const id = await add('Plain', { title: 'first' });
    const token = await tokenOf('alice');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        agent
          .post('/fw-api/data/modify/Plain/update-many')
          .set('token', token)
          .send({ rows: [{ id, values: { title: `paste-${i}` }, expect: { title: 'first' } }] }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200), JSON.stringify(answers.filter((r) => r.status !== 200 && r.status !== 422).map((r) => r.body))).to.have.length(1);
    expect(statuses.filter((s) => s === 422)).to.have.length(19);
    for (const res of answers.filter((r) => r.status === 422)) expect(res.body.error.details[0]).to.include({ path: 'rows[0].title', type: 'stale' });
    expect(await store.knex('fw_operate_log').where({ model: 'Plain', target_id: String(id), action: 'update', status: 'success' })).to.have.length(1);
  });

  // The row version is a keyed digest (read/row-version.ts): a caller who gets it (a 409, the
  // details ETag) cannot test guesses of a field the table takes out for them, with the public
  // code and any key they might try.
  it('a 409 version does not give away a field the table takes out for the caller', async () => {
    const id = await add('Staff', { name: 'Ann', salary: 5000 });
    const res = await agent
      .post('/fw-api/data/modify/Staff/update-cell')
      .set('token', await tokenOf('alice'))
      .send({ id, field: 'name', value: 'B', expect: 'Z' });
    expect(res.status).to.equal(409);
    const unkeyed = (row: Record<string, unknown>) => `"${createHash('sha256').update(JSON.stringify([row.id, row.name, row.salary])).digest('base64url').slice(0, 22)}"`;
    for (const key of [Buffer.alloc(0), Buffer.alloc(32), Buffer.from('fw')]) {
      const guessed = Array.from({ length: 101 }, (_, i) => i * 100).filter((salary) => rowVersion(Staff, { id, name: 'Ann', salary }, key) === res.body.error.version || unkeyed({ id, name: 'Ann', salary }) === res.body.error.version);
      expect(guessed).to.deep.equal([]);
    }
    // The server's own key does tell the stored row (what If-Match needs).
    expect(rowVersion(Staff, { id, name: 'Ann', salary: 5000 }, await versionKeyOf(store))).to.equal(res.body.error.version);
  });
});
