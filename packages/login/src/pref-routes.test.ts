import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql, type TestDatabase } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { fwErrorHandler } from '@fw/http';
import { encodePassword } from './client.js';
import { fwLogin } from './fw-login.js';
import { PREF_BODY_LIMIT } from './pref-routes.js';

interface Fixture {
  store: FwStore;
  agent: ReturnType<typeof request>;
  ids: { alice: number; bob: number };
}

async function build(db: TestDatabase): Promise<Fixture> {
  const store = createStore(db.url);
  await store.migrate.latest();
  // One database per dialect: what the last test left is deleted (prefs go with their users).
  for (const table of ['fw_token', 'fw_login_log', 'fw_user_pref', 'fw_user']) await store.knex(table).del();
  const config = loadConfig({ env: false, values: {} });
  const ids = {
    alice: (await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false })).id,
    bob: (await store.users.create({ account: 'bob', password: 'bob-pass', mustChangePassword: false })).id,
  };
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
  const app = new Koa();
  app.silent = true;
  app.use(fwErrorHandler());
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

const LAYOUT = { order: ['price', 'title'], hidden: ['isbn'], widths: { title: 320 }, density: 'small' };

describeEachSql('fwLogin: GET/PUT/DELETE /prefs/{key} (issue 20 §5)', (db: () => TestDatabase) => {
  let f: Fixture;
  beforeEach(async () => {
    f = await build(db());
  });
  afterEach(() => f.store.destroy());

  it('stores a table layout per user and key, and answers null where none is stored', async () => {
    const alice = await signIn(f, 'alice');
    const empty = await f.agent.get('/fw-api/prefs/table:Book').set('token', alice).expect(200);
    expect(empty.body).to.deep.equal({ key: 'table:Book', value: null, updatedAt: null });
    expect(empty.headers['cache-control']).to.equal('no-store');
    const put = await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).send({ value: LAYOUT }).expect(200);
    expect(put.body.value).to.deep.equal(LAYOUT);
    const again = await f.agent.get('/fw-api/prefs/table:Book').set('token', alice).expect(200);
    expect(again.body.value).to.deep.equal(LAYOUT);
    expect(Date.parse(again.body.updatedAt)).to.be.a('number').and.not.NaN;
    // Replacing, not merging; the key is case-sensitive on every dialect.
    await f.agent
      .put('/fw-api/prefs/table:Book')
      .set('token', alice)
      .send({ value: { density: 'large' } })
      .expect(200);
    expect((await f.agent.get('/fw-api/prefs/table:Book').set('token', alice).expect(200)).body.value).to.deep.equal({ density: 'large' });
    expect((await f.agent.get('/fw-api/prefs/table:book').set('token', alice).expect(200)).body.value).to.equal(null);
    expect(await f.store.knex('fw_user_pref').where({ user_id: f.ids.alice })).to.have.length(1);
  });

  it('never lets one user read, overwrite or delete another user’s preference (attacker’s side)', async () => {
    const alice = await signIn(f, 'alice');
    const bob = await signIn(f, 'bob');
    await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).send({ value: LAYOUT }).expect(200);
    // Bob asks for the same key: he sees his own (none), whatever he adds to the request.
    for (const path of ['/fw-api/prefs/table:Book', `/fw-api/prefs/table:Book?user=${f.ids.alice}`, `/fw-api/prefs/table:Book?userId=${f.ids.alice}`]) {
      expect((await f.agent.get(path).set('token', bob).expect(200)).body.value, path).to.equal(null);
    }
    await f.agent
      .put(`/fw-api/prefs/table:Book?user=${f.ids.alice}`)
      .set('token', bob)
      .send({ value: { density: 'large' } })
      .expect(200);
    await f.agent.delete(`/fw-api/prefs/table:Book?user=${f.ids.alice}`).set('token', bob).expect(200);
    // A user id in the body is refused, not obeyed.
    const smuggled = await f.agent
      .put('/fw-api/prefs/table:Book')
      .set('token', bob)
      .send({ userId: f.ids.alice, value: { density: 'large' } })
      .expect(422);
    expect(smuggled.body.error.code).to.equal('VALIDATION_FAILED');
    expect((await f.agent.get('/fw-api/prefs/table:Book').set('token', alice).expect(200)).body.value).to.deep.equal(LAYOUT);
    // Without a token there is nothing to read or write.
    expect((await f.agent.get('/fw-api/prefs/table:Book').expect(401)).body.error.code).to.equal('UNAUTHENTICATED');
    await f.agent.put('/fw-api/prefs/table:Book').send({ value: {} }).expect(401);
  });

  it('refuses bad keys (400), bad shapes (422) and bodies beyond the limit (413), storing nothing', async () => {
    const alice = await signIn(f, 'alice');
    for (const key of ['Book', 'theme:dark', 'table:', 'table:a b', `table:${'x'.repeat(200)}`]) {
      const res = await f.agent
        .get(`/fw-api/prefs/${encodeURIComponent(key)}`)
        .set('token', alice)
        .expect(400);
      expect(res.body.error.details[0].path, key).to.equal('key');
    }
    const bad: Array<[unknown, string]> = [
      ['wide', 'value'],
      [{ density: 'tiny' }, 'value.density'],
      [{ widths: { title: 5 } }, 'value.widths'],
      [{ widths: { title: 320.5 } }, 'value.widths'],
      [{ hidden: ['a', 'a'] }, 'value.hidden'],
      [{ order: 'title' }, 'value.order'],
      [{ colour: 'red' }, 'value.colour'],
    ];
    for (const [value, path] of bad) {
      const res = await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).send({ value }).expect(422);
      expect(res.body.error.code).to.equal('VALIDATION_FAILED');
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(value),
      ).to.include(path);
    }
    await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).send({}).expect(422);
    const big = await f.agent
      .put('/fw-api/prefs/table:Book')
      .set('token', alice)
      .send({ value: { hidden: Array.from({ length: 300 }, (_, i) => `column_with_a_long_name_${i}`) } });
    expect(JSON.stringify({ value: { hidden: [] } }).length).to.be.below(PREF_BODY_LIMIT);
    expect(big.status).to.equal(413);
    expect(big.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(await f.store.knex('fw_user_pref')).to.have.length(0);
  });

  it('forgets a preference on DELETE (reset) and when the user is deleted', async () => {
    const alice = await signIn(f, 'alice');
    await f.agent.put('/fw-api/prefs/table:Book').set('token', alice).send({ value: LAYOUT }).expect(200);
    expect((await f.agent.delete('/fw-api/prefs/table:Book').set('token', alice).expect(200)).body).to.deep.equal({ ok: true, deleted: true });
    expect((await f.agent.get('/fw-api/prefs/table:Book').set('token', alice).expect(200)).body.value).to.equal(null);
    expect((await f.agent.delete('/fw-api/prefs/table:Book').set('token', alice).expect(200)).body.deleted).to.equal(false);
    await f.store.prefs.put(f.ids.bob, 'table:Author', { density: 'middle' });
    await f.store.users.delete(f.ids.bob);
    expect(await f.store.knex('fw_user_pref').where({ user_id: f.ids.bob })).to.have.length(0);
  });
});
