import { expect } from 'chai';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import { fwErrorHandler } from '@fw/http';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql, type TestDatabase } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { encodePassword } from './client.js';
import { fwLogin } from './fw-login.js';
import { PREF_BODY_LIMIT } from './pref-routes.js';

// Red-team probes of GET/PUT/DELETE /prefs/{key} (issue 20 §5): crafted keys, bodies and tokens.
interface Fixture {
  store: FwStore;
  agent: ReturnType<typeof request>;
  ids: { alice: number; bob: number; must: number };
}

async function build(db: TestDatabase, hostParser = false): Promise<Fixture> {
  const store = createStore(db.url);
  await store.migrate.latest();
  for (const table of ['fw_token', 'fw_login_log', 'fw_user_pref', 'fw_user']) await store.knex(table).del();
  const config = loadConfig({ env: false, values: {} });
  const ids = {
    alice: (await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false })).id,
    bob: (await store.users.create({ account: 'bob', password: 'bob-pass', mustChangePassword: false })).id,
    must: (await store.users.create({ account: 'must', password: 'must-pass', mustChangePassword: true })).id,
  };
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
  const app = new Koa();
  app.silent = true;
  app.use(fwErrorHandler());
  // A host that parses JSON bodies itself, with a far larger limit than the prefs routes allow.
  if (hostParser) app.use(bodyParser({ jsonLimit: '2mb' }));
  app.use(fwLogin({ store, tokens, config, ephemeral: new MemoryEphemeralStore() }));
  return { store, agent: request(app.callback()), ids };
}

async function signIn(f: Fixture, account: string): Promise<string> {
  const res = await f.agent
    .post('/fw-api/login')
    .send({ account, pwd: encodePassword(`${account}-pass`) })
    .expect(200);
  return res.body.token as string;
}

describeEachSql('prefs red team', (db: () => TestDatabase) => {
  let f: Fixture;
  beforeEach(async () => {
    f = await build(db());
  });
  afterEach(() => f.store.destroy());

  const put = (token: string, key: string, body: unknown) =>
    f.agent
      .put(`/fw-api/prefs/${key}`)
      .set('token', token)
      .send(body as object);

  it('refuses a token whose user must change the password, and no token, on every method', async () => {
    const must = await signIn(f, 'must');
    for (const method of ['get', 'put', 'delete'] as const) {
      const res = await f.agent[method]('/fw-api/prefs/table:Book').set('token', must).send({ value: {} });
      expect(res.status, method).to.equal(403);
      expect(res.body.error.code).to.equal('PASSWORD_CHANGE_REQUIRED');
      expect((await f.agent[method]('/fw-api/prefs/table:Book').send({ value: {} })).status, method).to.equal(401);
    }
    expect(await f.store.knex('fw_user_pref')).to.have.length(0);
  });

  it('refuses crafted keys with 400 (or no route), never a 500, storing nothing', async () => {
    const alice = await signIn(f, 'alice');
    const keys = [
      'table:a%2Fb',
      'table:..%2F..%2Fx',
      `table:${'B'.repeat(122)}`,
      'table:B%C3%BCcher',
      'table:Book%00',
      "table:Book'%20OR%201=1--",
      'table:%20Book',
      'TABLE:Book',
      '__proto__',
      'constructor',
      'table:Book%0A',
    ];
    for (const key of keys) {
      for (const method of ['get', 'put', 'delete'] as const) {
        const res = await f.agent[method](`/fw-api/prefs/${key}`)
          .set('token', alice)
          .send({ value: { density: 'small' } });
        expect(res.status, `${method} ${key}`).to.be.oneOf([400, 404]);
      }
    }
    // The longest key the rule admits fits the column.
    const longest = `table:${'B'.repeat(121)}`;
    expect((await put(alice, longest, { value: { density: 'small' } })).status).to.equal(200);
    expect((await f.agent.get(`/fw-api/prefs/${longest}`).set('token', alice)).body.value).to.deep.equal({ density: 'small' });
    expect(await f.store.knex('fw_user_pref')).to.have.length(1);
  });

  it('refuses crafted bodies with 422 (or 400/413/415), never storing them', async () => {
    const alice = await signIn(f, 'alice');
    const bodies: unknown[] = [
      { value: { widths: { title: '320' } } },
      { value: { widths: { title: -320 } } },
      { value: { widths: { title: 1e308 } } },
      { value: { widths: { title: null } } },
      { value: { widths: { title: { valueOf: 320 } } } },
      { value: { widths: ['title'] } },
      { value: { widths: { 'bad key': 100 } } },
      { value: { order: [['title']] } },
      { value: { order: [1, 2] } },
      { value: { order: { 0: 'title', length: 1 } } },
      { value: { hidden: 'title' } },
      { value: { density: ['small'] } },
      { value: { density: 'SMALL' } },
      { value: { density: 'small', extra: 1 } },
      { value: [] },
      { value: null },
      { value: 'x' },
      { value: { density: 'small' }, user: 'bob' },
      { value: { density: 'small' }, userId: 2 },
      [{ value: { density: 'small' } }],
      { value: { order: Array.from({ length: 301 }, (_, i) => `c${i}`) } },
      { value: { widths: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`c${i}`, 40])) } },
      { value: { order: ['a'.repeat(129)] } },
    ];
    for (const body of bodies) {
      const res = await put(alice, 'table:Book', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).to.be.oneOf([400, 413, 415, 422]);
    }
    // Raw texts JSON has no literal for.
    for (const raw of [
      '{"value":{"widths":{"title":NaN}}}',
      '{"value":{"widths":{"title":Infinity}}}',
      '{"value":{"widths":{"title":-Infinity}}}',
      '{"value":',
      '',
      'null',
      '"x"',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
    ]) {
      const res = await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).set('Content-Type', 'application/json').send(raw);
      expect(res.status, raw.slice(0, 40)).to.be.oneOf([400, 413, 422]);
    }
    expect(await f.store.knex('fw_user_pref')).to.have.length(0);
  });

  it('keeps prototype-pollution keys as plain data: nothing reaches Object.prototype, nothing of another user', async () => {
    const alice = await signIn(f, 'alice');
    const raw = '{"value":{"widths":{"__proto__":100,"constructor":200,"title":300},"order":["__proto__","constructor","prototype"]}}';
    const res = await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).set('Content-Type', 'application/json').send(raw);
    expect(res.status).to.be.oneOf([200, 422]);
    expect(({} as Record<string, unknown>).title).to.equal(undefined);
    expect(Object.prototype).not.to.have.property('title');
    const polluted = '{"__proto__":{"isAdmin":true},"value":{"density":"small"}}';
    const res2 = await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).set('Content-Type', 'application/json').send(polluted);
    expect(res2.status).to.equal(422);
    expect(({} as Record<string, unknown>).isAdmin).to.equal(undefined);
    const rows = await f.store.knex('fw_user_pref').select('user_id');
    for (const r of rows) expect(Number(r.user_id)).to.equal(f.ids.alice);
  });

  it('keeps a user to their own row under twenty concurrent PUTs of two users: one row each, a whole layout', async () => {
    const alice = await signIn(f, 'alice');
    const bob = await signIn(f, 'bob');
    const layouts = Array.from({ length: 20 }, (_, i) => ({ widths: { title: 40 + i }, density: (['small', 'middle', 'large'] as const)[i % 3] }));
    const answers = await Promise.all(layouts.map((value, i) => put(i % 2 === 0 ? alice : bob, 'table:Book', { value })));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).to.equal(200);
    const rows = await f.store.knex('fw_user_pref').select('user_id', 'value');
    expect(rows.map((r) => Number(r.user_id)).sort()).to.deep.equal([f.ids.alice, f.ids.bob].sort());
    for (const r of rows) {
      const stored = JSON.parse(String(r.value)) as { widths: { title: number } };
      const parity = (stored.widths.title - 40) % 2;
      expect(parity, 'alice wrote the even ones').to.equal(Number(r.user_id) === f.ids.alice ? 0 : 1);
    }
  });

  it('answers only the caller’s own row: bob reading, replacing or deleting table:Book touches only bob', async () => {
    const alice = await signIn(f, 'alice');
    const bob = await signIn(f, 'bob');
    await put(alice, 'table:Book', { value: { density: 'large' } }).expect(200);
    for (const q of [`?user=${f.ids.alice}`, `?userId=${f.ids.alice}`, `?user_id=${f.ids.alice}`]) {
      const got = await f.agent.get(`/fw-api/prefs/table:Book${q}`).set('token', bob).expect(200);
      expect(got.body.value).to.equal(null);
      await f.agent.delete(`/fw-api/prefs/table:Book${q}`).set('token', bob).expect(200);
    }
    expect((await f.agent.get('/fw-api/prefs/table:Book').set('token', alice)).body.value).to.deep.equal({ density: 'large' });
  });

  it('keeps keys that differ only in case apart (model names are case-sensitive), on every dialect', async () => {
    const alice = await signIn(f, 'alice');
    await put(alice, 'table:Book', { value: { density: 'large' } }).expect(200);
    await put(alice, 'table:book', { value: { density: 'small' } }).expect(200);
    expect((await f.agent.get('/fw-api/prefs/table:Book').set('token', alice)).body.value).to.deep.equal({ density: 'large' });
    expect((await f.agent.get('/fw-api/prefs/table:book').set('token', alice)).body.value).to.deep.equal({ density: 'small' });
    await f.agent.delete('/fw-api/prefs/table:BOOK').set('token', alice).expect(200, { ok: true, deleted: false });
    expect(await f.store.knex('fw_user_pref')).to.have.length(2);
  });

  it('holds the 8 KiB cap behind a body parser the host mounted first', async () => {
    await f.store.destroy();
    f = await build(db(), true);
    const alice = await signIn(f, 'alice');
    const long = (i: number) => `column_with_a_rather_long_name_number_${i}_${'x'.repeat(60)}`;
    const value = { order: Array.from({ length: 300 }, (_, i) => long(i)), hidden: Array.from({ length: 300 }, (_, i) => long(i)) };
    expect(JSON.stringify({ value }).length).to.be.above(4 * PREF_BODY_LIMIT);
    const res = await put(alice, 'table:Book', { value });
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(await f.store.knex('fw_user_pref')).to.have.length(0);
    // A layout within the cap is stored as without the host's parser.
    expect((await put(alice, 'table:Book', { value: { density: 'small' } })).status).to.equal(200);
  });

  it('bounds how many preferences one user keeps: keys need not name a model, so storage must not grow without end', async () => {
    const alice = await signIn(f, 'alice');
    let refused: request.Response | undefined;
    for (let i = 0; i < 1000 && !refused; i += 1) {
      const res = await put(alice, `table:M${i}`, { value: { density: 'small' } });
      if (res.status !== 200) refused = res;
    }
    expect(refused, 'some PUT of a new key is refused').to.not.equal(undefined);
    expect(refused!.status).to.equal(409);
    expect(refused!.body.error.code).to.equal('CONFLICT');
    const count = (await f.store.knex('fw_user_pref').where('user_id', f.ids.alice)).length;
    expect(count).to.be.below(1000);
    // Replacing an existing key still works at the cap, and after a DELETE a new key fits again.
    expect((await put(alice, 'table:M0', { value: { density: 'large' } })).status).to.equal(200);
    await f.agent.delete('/fw-api/prefs/table:M0').set('token', alice).expect(200);
    expect((await put(alice, 'table:Other', { value: { density: 'large' } })).status).to.equal(200);
    // Another user is not held to alice's count.
    const bob = await signIn(f, 'bob');
    expect((await put(bob, 'table:M0', { value: { density: 'large' } })).status).to.equal(200);
  });
});
