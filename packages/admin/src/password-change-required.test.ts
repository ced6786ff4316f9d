// Issue 19 §3 across every route fwAdmin mounts: a token whose user must change the password
// (an administrator set it) reaches userinfo, change-pwd, logout and login-settings only; every
// other route answers 403 PASSWORD_CHANGE_REQUIRED, and the same token works everywhere at once
// after the change.
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { describeEachSql } from '@fw/test-utils';
import { fwAdmin, type FwAdmin } from './fw-admin.js';

const Book = defineModel({ name: 'Book', table: 'pcr_book', power: { export: true }, fields: { title: { edit: { notNull: true } } } });

describeEachSql('fwAdmin: a user who must change the password (issue 19 §3)', (db) => {
  let fw: FwAdmin;
  let agent: ReturnType<typeof request>;
  let bookId: number;
  before(async () => {
    const app = new Koa();
    app.silent = true;
    fw = await fwAdmin(app, { db: db().url, models: [Book], ui: false, purgeIntervalMs: false });
    app.use(fw.middleware);
    agent = request(app.callback());
    const [row] = await fw.store.knex('pcr_book').insert({ title: 'Dune' }, ['id']);
    bookId = Number(typeof row === 'object' ? (row as { id: number }).id : row);
  });
  after(() => fw?.close());

  let seq = 0;
  /** An administrator whose password another administrator set: the first sign-in must change it. */
  async function newAdmin(): Promise<{ account: string; token: string }> {
    const account = `boss-${Date.now().toString(36)}-${++seq}`;
    await fw.store.users.create({ account, password: 'first-given-7', isAdmin: true });
    const res = await agent
      .post('/fw-api/login')
      .send({ account, pwd: encodePassword('first-given-7') })
      .expect(200);
    expect(res.body.resetPwd).to.equal(true);
    return { account, token: res.body.token as string };
  }

  /** Every kind of route fwAdmin serves behind a token, as an attacker holding such a token would call it. */
  const guarded = (token: string) =>
    [
      ['POST /data/modify/Book', () => agent.post('/fw-api/data/modify/Book').set('token', token).send({ title: 'Written anyway' })],
      ['POST /data/modify/Book/update', () => agent.post('/fw-api/data/modify/Book/update').set('token', token).send({ id: bookId, title: 'Changed' })],
      [
        'POST /data/modify/Book/delete',
        () =>
          agent
            .post('/fw-api/data/modify/Book/delete')
            .set('token', token)
            .send({ ids: [bookId] }),
      ],
      ['POST /data/table/Book', () => agent.post('/fw-api/data/table/Book').set('token', token).send({})],
      ['GET /data/Book/:id', () => agent.get(`/fw-api/data/Book/${bookId}`).set('token', token)],
      ['GET /build/Book', () => agent.get('/fw-api/build/Book').set('token', token)],
      ['GET /menu', () => agent.get('/fw-api/menu').set('token', token)],
      ['POST /data/table/FwUser', () => agent.post('/fw-api/data/table/FwUser').set('token', token).send({})],
      ['GET /data/export/Book?_token', () => agent.get(`/fw-api/data/export/Book?_token=${token}`)],
      ['GET /data/print/Book/:id?_token', () => agent.get(`/fw-api/data/print/Book/${bookId}?_token=${token}`)],
      ['GET /prefs/table:Book', () => agent.get('/fw-api/prefs/table:Book').set('token', token)],
      [
        'PUT /prefs/table:Book',
        () =>
          agent
            .put('/fw-api/prefs/table:Book')
            .set('token', token)
            .send({ value: { density: 'small' } }),
      ],
      ['GET /openapi.json', () => agent.get('/fw-api/openapi.json').set('token', token)],
      [
        'POST /ai/mcp',
        () =>
          agent
            .post('/fw-api/ai/mcp')
            .set('Authorization', `Bearer ${token}`)
            .set('Accept', 'application/json, text/event-stream')
            .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'insertFwData', arguments: { fw: 'Book', data: { title: 'By AI' } } } }),
      ],
    ] as const;

  it('answers 403 PASSWORD_CHANGE_REQUIRED on every other route and writes nothing', async () => {
    const { token } = await newAdmin();
    for (const [name, call] of guarded(token)) {
      const res = await call();
      expect(res.status, `${name}: ${res.text.slice(0, 200)}`).to.equal(403);
      expect(res.body?.error?.code, name).to.equal('PASSWORD_CHANGE_REQUIRED');
    }
    expect((await fw.store.knex('pcr_book').select('title')).map((r: { title: string }) => r.title)).to.deep.equal(['Dune']);
  });

  it('keeps userinfo, login-settings, change-pwd and logout open; after the change the same token works everywhere', async () => {
    const { account, token } = await newAdmin();
    expect((await agent.get('/fw-api/userinfo').set('token', token).expect(200)).body).to.include({ account, resetPwd: true });
    expect((await agent.get('/fw-api/login-settings').set('token', token).expect(200)).body.passwordPolicy.minLength).to.equal(10);
    // The forced change is held to the policy too.
    const weak = await agent
      .post('/fw-api/change-pwd')
      .set('token', token)
      .send({ pwd: encodePassword('first-given-7'), newPwd: encodePassword('abc'), newPwd2: encodePassword('abc') })
      .expect(422);
    expect(weak.body.error.details[0]).to.include({ path: 'newPwd', type: 'minLength' });
    await agent
      .post('/fw-api/change-pwd')
      .set('token', token)
      .send({ pwd: encodePassword('first-given-7'), newPwd: encodePassword('violet-harbour-42'), newPwd2: encodePassword('violet-harbour-42') })
      .expect(200);
    for (const [name, call] of guarded(token)) {
      if (name === 'POST /data/modify/Book/delete') continue;
      const res = await call();
      expect(res.status, `${name}: ${res.text.slice(0, 200)}`).to.equal(200);
    }
    expect((await agent.get('/fw-api/userinfo').set('token', token).expect(200)).body.resetPwd).to.equal(false);
    const other = await newAdmin();
    await agent.post('/fw-api/logout').set('token', other.token).expect(200);
    await agent.get('/fw-api/userinfo').set('token', other.token).expect(401);
  });

  it('forces a change again when an administrator resets a password through the FwUser form, not when users set their own', async () => {
    const admin = await newAdmin();
    await agent
      .post('/fw-api/change-pwd')
      .set('token', admin.token)
      .send({ pwd: encodePassword('first-given-7'), newPwd: encodePassword('violet-harbour-42'), newPwd2: encodePassword('violet-harbour-42') })
      .expect(200);
    const carol = await fw.store.users.create({ account: `carol-${Date.now().toString(36)}`, password: 'carol-own-choice-1', mustChangePassword: false, isAdmin: true });
    const signIn = async (pwd: string) =>
      (
        await agent
          .post('/fw-api/login')
          .send({ account: carol.account, pwd: encodePassword(pwd) })
          .expect(200)
      ).body as { token: string; resetPwd: boolean };
    expect((await signIn('carol-own-choice-1')).resetPwd).to.equal(false);
    // The administrator resets carol's password: she must change it at her next sign-in.
    await agent.post('/fw-api/data/modify/FwUser/update').set('token', admin.token).send({ id: carol.id, password: 'given-by-admin-9' }).expect(200);
    const forced = await signIn('given-by-admin-9');
    expect(forced.resetPwd).to.equal(true);
    await agent.post('/fw-api/data/table/Book').set('token', forced.token).send({}).expect(403);
    await agent
      .post('/fw-api/change-pwd')
      .set('token', forced.token)
      .send({ pwd: encodePassword('given-by-admin-9'), newPwd: encodePassword('carol-second-pick-2'), newPwd2: encodePassword('carol-second-pick-2') })
      .expect(200);
    // Setting her own password through the same form asks nothing more of her.
    const own = await signIn('carol-second-pick-2');
    await agent.post('/fw-api/data/modify/FwUser/update').set('token', own.token).send({ id: carol.id, password: 'carol-third-pick-3' }).expect(200);
    expect((await signIn('carol-third-pick-3')).resetPwd).to.equal(false);
  });
});
