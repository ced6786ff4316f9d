import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { encodePassword } from '@fw/login/client';
import { describeEachSql } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

// Issue 19 §6: failed sign-ins land in the login log, and the login-log page (the FwLoginLog
// model over the data API) can filter them; who may read them follows the existing power rules.

describeEachSql('fwAdmin: failed sign-ins on the login-log page', (db) => {
  let fw: Awaited<ReturnType<typeof fwAdmin>>;
  let agent: ReturnType<typeof request>;
  const tokens: Record<string, string> = {};

  before(async function () {
    this.timeout(60_000);
    const app = new Koa();
    app.silent = true;
    app.proxy = true;
    fw = await fwAdmin(app, { db: db().url, config: { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100 } });
    app.use(fw.middleware);
    agent = request(app.callback());
    const { store } = fw;
    await store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
    await store.users.create({ account: 'bob', password: 'bob-pass-1', mustChangePassword: false });
    const carol = await store.users.create({ account: 'carol', password: 'carol-pass-1', mustChangePassword: false });
    // Carol holds the login-log menu (the model's own menu grants its query); Bob holds nothing.
    const menu = (await store.menus.allMenus()).find((m) => m.code === 'FwLoginLog')!;
    const auditor = await store.roles.create({ code: 'auditor', name: 'Auditor' });
    await store.roles.setMenus(auditor.id, [menu.id]);
    await store.users.setRoles(carol.id, [auditor.id]);
    for (const account of ['admin', 'bob', 'carol']) tokens[account] = (await login(account, `${account}-pass-1`).expect(200)).body.token;
    await login('bob', 'bob-guess-1', '192.0.2.50').expect(401);
    await login('ghost', 'ghost-guess-1', '192.0.2.51').expect(401);
  });
  after(() => fw?.close());

  function login(account: string, pwd: string, ip = '192.0.2.1') {
    return agent
      .post('/fw-api/login')
      .set('X-Forwarded-For', ip)
      .send({ account, pwd: encodePassword(pwd) });
  }
  const table = (who: string, body: object) => agent.post('/fw-api/data/table/FwLoginLog').set('token', tokens[who]!).send(body);

  it('shows the new fields in the schema: success (boolean), reason (choice), account as typed, attempts', async () => {
    const { body } = await agent.get('/fw-api/build/FwLoginLog').set('token', tokens.admin!).expect(200);
    type View = { name: string; type: string; filterable: boolean; choices?: Array<{ value: string }> };
    const fields = new Map((body.model.fields as View[]).map((f) => [f.name, f]));
    expect(fields.get('success')).to.include({ type: 'BOOLEAN', filterable: true });
    expect(fields.get('reason')).to.include({ type: 'CHOICE', filterable: true });
    expect(fields.get('reason')?.choices?.map((c) => c.value)).to.include.members(['bad-credentials', 'locked', 'captcha', 'throttled', 'rate-limited']);
    expect(fields.get('accountTyped')).to.include({ type: 'INPUT', filterable: true });
    expect(fields.get('attempts')).to.include({ type: 'NUMBER', filterable: true });
  });

  it('filters failed sign-ins by success, reason and account as typed', async () => {
    const failed = (await table('admin', { conditions: [{ field: 'success', op: 'eq', value: false }], sort: [{ field: 'id', order: 'desc' }] }).expect(200)).body;
    expect(failed.total).to.equal(2);
    expect(failed.rows.map((r: Record<string, unknown>) => [r.accountTyped, r.reason, r.success, r.ip])).to.deep.equal([
      ['ghost', 'bad-credentials', false, '192.0.2.51'],
      ['bob', 'bad-credentials', false, '192.0.2.50'],
    ]);
    const succeeded = (await table('admin', { conditions: [{ field: 'success', op: 'eq', value: true }] }).expect(200)).body;
    expect(succeeded.total).to.equal(3);
    const ghost = (
      await table('admin', {
        conditions: [
          { field: 'reason', op: 'eq', value: 'bad-credentials' },
          { field: 'accountTyped', op: 'like', value: 'gho' },
        ],
      }).expect(200)
    ).body;
    expect(ghost.rows.map((r: Record<string, unknown>) => [r.account, r.userId])).to.deep.equal([['ghost', null]]);
    expect(JSON.stringify([failed, succeeded, ghost])).to.not.contain('guess-1');
  });

  it('lets a non-administrator read other users’ failed attempts only with the login-log menu', async () => {
    const refused = await table('bob', { conditions: [{ field: 'success', op: 'eq', value: false }] });
    expect(refused.status).to.equal(403);
    expect(JSON.stringify(refused.body)).to.not.contain('192.0.2.50');
    const seen = (await table('carol', { conditions: [{ field: 'success', op: 'eq', value: false }] }).expect(200)).body;
    expect(seen.rows.map((r: Record<string, unknown>) => r.accountTyped).sort()).to.deep.equal(['bob', 'ghost']);
    // The log is read only, for the menu holder too.
    await agent
      .post('/fw-api/data/modify/FwLoginLog/delete')
      .set('token', tokens.carol!)
      .send({ ids: [seen.rows[0].id] })
      .expect(403);
  });
});
