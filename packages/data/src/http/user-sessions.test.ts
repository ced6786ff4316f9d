import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore } from '@fw/token';
import { fwData } from './router.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Issue 10 §3: a new password, or a change of the administrator flag or the status, ends every
// other session of that user at once, on every instance sharing the token store.
describeEachSql('sessions end when an account changes (data API)', (db) => {
  let f: DataFixture;
  let tokens: FwTokenService;
  let one: ReturnType<typeof request>;
  let two: ReturnType<typeof request>;

  before(async () => {
    f = await setupData(db().url);
    tokens = new FwTokenService({ store: new KnexTokenStore({ knex: f.store.knex }) });
    const instance = () => {
      const app = new Koa();
      app.silent = true;
      app.use(fwData({ store: f.store, tokens, registry: f.registry }));
      return request(app.callback());
    };
    one = instance();
    two = instance();
  });
  after(() => f?.destroy());

  const newUser = async () => {
    const row = await f.store.users.create({ account: `u-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`, password: 'x-password-1', mustChangePassword: false });
    await f.store.users.setRoles(row.id, [f.roles.editor]);
    return { id: row.id, account: row.account, isAdmin: false };
  };
  const works = async (agent: ReturnType<typeof request>, token: string) => (await agent.post(`${api}/data/table/Book`).set('token', token).send({})).status;

  for (const [what, change] of [
    ['an administrator sets a new password', { password: 'brand-new-pass-1' }],
    ['an administrator locks the account', { status: 'locked' }],
    ['an administrator grants the administrator flag', { isAdmin: true }],
  ] as const) {
    it(`${what}: the user's tokens stop working on every instance`, async () => {
      const admin = (await tokens.loginToken(f.users.admin)).token;
      const user = await newUser();
      const [t1, t2] = [(await tokens.loginToken(user)).token, (await tokens.loginToken(user)).token];
      expect(await works(one, t1)).to.equal(200);
      expect(await works(two, t2)).to.equal(200);
      await one.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id: user.id, ...change }).expect(200);
      const gone = await two.post(`${api}/data/table/Book`).set('token', t1).send({});
      expect(gone.status).to.equal(401);
      expect(await works(one, t2)).to.equal(401);
      expect(await tokens.resolve(t1)).to.equal(undefined);
      // The administrator's own session is untouched.
      expect(await works(two, admin)).to.equal(200);
    });
  }

  it('a change of name or roles keeps the sessions', async () => {
    const admin = (await tokens.loginToken(f.users.admin)).token;
    const user = await newUser();
    const token = (await tokens.loginToken(user)).token;
    await one.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id: user.id, name: 'Renamed', roles: [f.roles.reader] }).expect(200);
    expect(await works(two, token)).to.equal(200);
  });

  it('changing one’s own password keeps the session that did it and ends the others', async () => {
    // A user allowed to edit users (here: an administrator editing their own row).
    const self = f.users.admin;
    const [current, other] = [(await tokens.loginToken(self)).token, (await tokens.loginToken(self)).token];
    await one.post(`${api}/data/modify/FwUser/update`).set('token', current).send({ id: self.id, password: 'my-new-password-1' }).expect(200);
    expect(await works(two, current)).to.equal(200);
    expect(await works(two, other)).to.equal(401);
  });

  it('deleting an account ends its sessions', async () => {
    const admin = (await tokens.loginToken(f.users.admin)).token;
    const user = await newUser();
    const token = (await tokens.loginToken(user)).token;
    await one.post(`${api}/data/modify/FwUser/delete`).set('token', admin).send({ ids: [user.id] }).expect(200);
    expect(await tokens.resolve(token)).to.equal(undefined);
  });
});
