// The login route reuses the fw_user row the built-in check read after the password matched,
// and only for that user: a hook returning someone else gets that user's own row.
import { expect } from 'chai';
import type { FwUser } from '@fw/core';
import { encodePassword } from './client.js';
import { BaseLoginProxy } from './login-proxy.js';
import { setup, type LoginFixture } from './test-setup.js';

const CONFIG = { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100 };

/** Counts the queries that read one fw_user row by id while `run` runs. */
async function userReads(f: LoginFixture, run: () => Promise<void>): Promise<number> {
  let reads = 0;
  const onQuery = (query: { sql: string }) => {
    if (/from [`"]?fw_user[`"]? where [`"]?fw_user[`"]?\.[`"]?id[`"]? = /i.test(query.sql)) reads += 1;
  };
  f.store.knex.on('query', onQuery);
  try {
    await run();
  } finally {
    f.store.knex.off('query', onQuery);
  }
  return reads;
}

describe('POST /fw-api/login: reads of the user row', () => {
  let f: LoginFixture;
  afterEach(() => f.cleanup());

  it('reads the row once after the built-in check, and answers from it', async () => {
    f = await setup({ config: CONFIG });
    let body: Record<string, unknown> = {};
    const reads = await userReads(f, async () => {
      const res = await f.agent.post('/fw-api/login').send({ account: 'alice', pwd: encodePassword('alice-pass') });
      expect(res.status).to.equal(200);
      body = res.body as Record<string, unknown>;
    });
    expect(reads).to.equal(1);
    expect(body).to.include({ pass: true, resetPwd: false });
    const me = await f.agent.get('/private').set('token', body.token as string);
    expect(me.body.user).to.include({ id: f.alice.id, account: 'alice', isAdmin: false });
  });

  it('reads the row a hook returns when it is not the user the built-in check passed', async () => {
    const returned: { user?: FwUser } = {};
    class SwitchingProxy extends BaseLoginProxy {
      override async login(account: string, pwd: string): Promise<FwUser> {
        await super.login(account, pwd); // checks alice, and reads her row
        return returned.user!;
      }
    }
    f = await setup({ config: CONFIG, login: { proxy: SwitchingProxy } });
    const root = await f.store.users.findByAccount('root');
    returned.user = { id: root!.id, account: 'root', name: null, isAdmin: false };
    const res = await f.agent.post('/fw-api/login').send({ account: 'alice', pwd: encodePassword('alice-pass') });
    expect(res.status).to.equal(200);
    const me = await f.agent.get('/private').set('token', res.body.token as string);
    // root's own row: its stored administrator flag, not alice's row.
    expect(me.body.user).to.include({ id: root!.id, account: 'root', isAdmin: true });
  });

  it('still refuses a user locked between the check and the answer of a later login', async () => {
    f = await setup({ config: CONFIG });
    const ok = await f.agent.post('/fw-api/login').send({ account: 'alice', pwd: encodePassword('alice-pass') });
    expect(ok.status).to.equal(200);
    await f.store.users.update(f.alice.id, { status: 'locked' });
    const res = await f.agent.post('/fw-api/login').send({ account: 'alice', pwd: encodePassword('alice-pass') });
    expect(res.status).to.equal(401);
    expect(res.body.pass).to.not.equal(true);
  });
});
