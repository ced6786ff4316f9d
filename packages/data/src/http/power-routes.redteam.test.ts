import { expect } from 'chai';
import type { FwUser } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import type { PowerExplanation } from '../power-explain.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Red-team probes of the permission editor's routes (issue 20 §1) from outside: a low-privilege
// token, a token whose user must change the password, no token, and crafted parameters.
describeEachSql('powerRoutes red team', (db) => {
  let f: DataFixture;
  let t: Record<'admin' | 'alice' | 'bob' | 'carol' | 'must', string>;
  let must: FwUser;

  before(async () => {
    f = await setupData(db().url);
    const row = await f.store.users.create({ account: `must-${Date.now()}`, name: 'Must', password: 'x-password-1', mustChangePassword: true });
    must = { id: row.id, account: row.account, name: 'Must', isAdmin: false };
    await f.store.users.setRoles(must.id, [f.roles.editor]);
    t = {
      admin: await f.token('admin'),
      alice: await f.token('alice'),
      bob: await f.token('bob'),
      carol: await f.token('carol'),
      must: (await f.tokens.loginToken(must, f.tokens.generateToken())).token,
    };
  });
  after(() => f?.destroy());

  const get = (path: string, token?: string) => (token ? f.agent.get(`${api}${path}`).set('token', token) : f.agent.get(`${api}${path}`));

  it('refuses a token whose user must change the password (403 PASSWORD_CHANGE_REQUIRED), and no token (401)', async () => {
    for (const path of ['/power/grantable', '/power/assignable', '/power/explain/Book', `/power/explain/Book?user=${must.id}`]) {
      const res = await get(path, t.must);
      expect(res.status, path).to.equal(403);
      expect(res.body.error.code, path).to.equal('PASSWORD_CHANGE_REQUIRED');
      expect((await get(path)).status, path).to.equal(401);
      expect((await get(path).set('token', 'AAAAAAAAAAAAAAAA')).status, path).to.equal(401);
    }
  });

  it('refuses grantable and assignable to users without add/edit on roles and users, whatever the query', async () => {
    for (const token of [t.bob, t.carol, t.alice]) {
      for (const q of ['', '?user=1', '?isAdmin=true', '?__proto__[isAdmin]=true', '?constructor[prototype][isAdmin]=1']) {
        for (const route of ['/power/grantable', '/power/assignable']) {
          const res = await get(`${route}${q}`, token);
          expect(res.status, `${route}${q}`).to.equal(403);
          expect(res.body.error.code).to.equal('POWER_DENIED');
          expect(JSON.stringify(res.body)).not.to.match(/"rows"|"roles"|"orgs"/);
        }
      }
    }
  });

  it('never lets a non-administrator learn about another user, by any spelling: 403 (or their own answer) and no trace of the user', async () => {
    const other = String(f.users.alice.id);
    const spellings = [
      `user=${other}`,
      `user=0${other}`,
      `user=${other}.0`,
      `user=%20${other}`,
      `user=${f.users.bob.id}&user=${other}`,
      `user=${other}&user=${f.users.bob.id}`,
      `user[]=${other}`,
      `user[0]=${other}`,
      `user[__proto__]=${other}`,
      `__proto__[user]=${other}`,
      `user=${f.users.admin.id}`,
      `user=1%20OR%201=1`,
      `user=%EF%BC%91`,
    ];
    for (const q of spellings) {
      const res = await get(`/power/explain/Book?${q}`, t.bob);
      // `user[]=` and the like are no `user` parameter to Koa: then the answer is about the caller.
      if (res.status === 200) expect((res.body as PowerExplanation).user.id, q).to.equal(f.users.bob.id);
      else {
        expect(res.status, q).to.equal(403);
        expect(res.body.error.code, q).to.equal('FORBIDDEN');
      }
      expect(JSON.stringify(res.body), q).not.to.contain(f.users.alice.account);
    }
  });

  it('answers unknown and crafted model names with 404, never a 500 or another model', async () => {
    for (const fw of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'book', 'BOOK', 'Book%00', "Book'%20OR%201=1--", '%F0%9F%98%80', 'x'.repeat(5000)]) {
      for (const token of [t.admin, t.bob]) {
        const res = await get(`/power/explain/${fw}`, token);
        expect(res.status, fw).to.equal(404);
        expect(res.body.error.code, fw).to.equal('MODEL_NOT_FOUND');
      }
    }
  });

  it("tells a user about themselves exactly what GET /build says, and names only the user's own roles", async () => {
    for (const who of ['alice', 'bob', 'carol'] as const) {
      for (const fw of ['Book', 'Ledger', 'Note', 'Plan', 'FwUser', 'FwRole']) {
        const x = await get(`/power/explain/${fw}`, t[who]);
        expect(x.status, `${who} ${fw}`).to.equal(200);
        const body = x.body as PowerExplanation;
        expect(body.user.id).to.equal(f.users[who].id);
        const build = await get(`/build/${fw}`, t[who]);
        if (build.status === 200) expect(body.power, `${who} ${fw}`).to.deep.equal(build.body.power);
        else for (const flag of ['query', 'add', 'edit', 'delete', 'viewDetails'] as const) expect(body.power[flag]).to.equal(false);
        const roleIds = body.flags.flatMap((e) => e.steps.flatMap((s) => (s.roles ?? []).map((r) => r.id)));
        const own = new Set(who === 'alice' ? [f.roles.editor] : who === 'bob' ? [f.roles.reader] : []);
        for (const id of roleIds) expect(own.has(id), `${who} ${fw} role ${id}`).to.equal(true);
      }
    }
  });

  it('tells a user without any access to a model nothing of its schema: no field names, no title', async () => {
    // bob holds no Plan menu, so GET /build/Plan is 403 to him; the explainer must not name Plan's fields.
    expect((await get('/build/Plan', t.bob)).status).to.equal(403);
    const res = await get('/power/explain/Plan', t.bob);
    expect(res.status).to.equal(200);
    const body = res.body as PowerExplanation;
    expect(Object.values(body.power).some(Boolean)).to.equal(false);
    expect(JSON.stringify(body)).not.to.contain('secretCode');
    expect(body.model.title).to.equal('Plan');
    // Who may see the model still reads the field list.
    expect(JSON.stringify((await get('/power/explain/Plan', t.alice)).body)).to.contain('secretCode');
    expect(JSON.stringify((await get(`/power/explain/Plan?user=${f.users.bob.id}`, t.admin)).body)).to.contain('secretCode');
  });
});
