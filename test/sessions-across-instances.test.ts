// Issue 10 §3 and §7: what a sign-in grants and what a password change takes away holds on every
// app instance at once. Two fwAdmin instances share one SQL database, with their tokens either in
// the database's fw_token table (one-lookup authentication) or in one Redis (token service path).
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { fwAdmin } from '@fw/admin';
import type { FwUser } from '@fw/core';
import { BaseLoginProxy } from '@fw/login';
import { encodePassword } from '@fw/login/client';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql, createRedisNamespace, type RedisNamespace } from '@fw/test-utils';

/** A directory-style hook: `carol-…` accounts are checked against the "directory" and are in its administrators' group. */
class GroupLogin extends BaseLoginProxy {
  override async login(account: string, pwd: string): Promise<FwUser> {
    if (!account.startsWith('carol-')) return super.login(account, pwd);
    if (pwd !== 'directory-pass') throw new Error('Directory: invalid credentials');
    return { ...(await this.users.requireStoredUser(account)), isAdmin: true };
  }
}

type Agent = ReturnType<typeof request>;

const variants = [{ tokens: 'SQL' }, { tokens: 'Redis' }] as const;

describeEachSql('sessions across two fwAdmin instances', (db) => {
  for (const { tokens } of variants) {
    describe(`tokens in ${tokens}`, function () {
      const redisUrl = process.env.FW_TEST_REDIS_URL;
      if (tokens === 'Redis' && !redisUrl) {
        it('skipped: FW_TEST_REDIS_URL is not set, so the Redis variant did not run', function () {
          this.skip();
        });
        return;
      }
      let store: FwStore;
      let ns: RedisNamespace | undefined;
      let instances: Agent[];
      let carol: number;
      const [alice, carolAccount] = [`alice-${tokens}`, `carol-${tokens}`];

      before(async function () {
        store = createStore(db().url);
        await store.migrate.latest();
        // Each variant runs on the same database: accounts are per variant.
        await store.users.create({ account: alice, password: 'alice-pass', mustChangePassword: false });
        carol = (await store.users.create({ account: carolAccount, password: 'local-carol-pass', mustChangePassword: false })).id;
        if (tokens === 'Redis') ns = await createRedisNamespace(redisUrl!);
        instances = [];
        for (const i of [0, 1]) {
          const app = new Koa();
          app.silent = true;
          const fw = await fwAdmin(app, {
            db: store,
            migrate: i === 0,
            config: { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100 },
            login: { proxy: GroupLogin },
            ai: false,
            ...(ns ? { redis: i === 0 ? ns.redis : ns.peer, redisPrefix: ns.prefix } : {}),
          });
          app.use(fw.middleware);
          instances.push(request(app.callback()));
        }
      });
      after(async function () {
        await ns?.cleanup();
        await store?.destroy();
      });

      const login = async (i: number, account: string, pwd: string): Promise<string> =>
        (
          await instances[i]!.post('/fw-api/login')
            .send({ account, pwd: encodePassword(pwd) })
            .expect(200)
        ).body.token as string;

      it('a hook returning isAdmin makes that sign-in an administrator on every instance, leaving the stored flag alone', async () => {
        const token = await login(0, carolAccount, 'directory-pass');
        for (const agent of instances) {
          await agent.get('/fw-api/build/FwUser').set('token', token).expect(200);
          expect((await agent.get('/fw-api/userinfo').set('token', token).expect(200)).body).to.include({ account: carolAccount, isAdmin: true });
        }
        expect((await store.users.findById(carol))?.isAdmin).to.equal(false);
        // The power belongs to that sign-in, not to the account or to every sign-in.
        const plain = await login(1, alice, 'alice-pass');
        const refused = await instances[0]!.get('/fw-api/build/FwUser').set('token', plain).expect(403);
        expect(refused.body.error.code).to.equal('POWER_DENIED');
        expect((await instances[0]!.get('/fw-api/userinfo').set('token', plain).expect(200)).body.isAdmin).to.equal(false);
      });

      it('a password change on one instance ends every other token of the user on every instance, keeping its own', async () => {
        const [first, second] = [await login(0, alice, 'alice-pass'), await login(0, alice, 'alice-pass')];
        const changer = await login(1, alice, 'alice-pass');
        const other = await login(1, carolAccount, 'directory-pass');
        await instances[1]!
          .post('/fw-api/change-pwd')
          .set('token', changer)
          .send({ pwd: encodePassword('alice-pass'), newPwd: encodePassword('alice-new-pass'), newPwd2: encodePassword('alice-new-pass') })
          .expect(200);
        for (const agent of instances) {
          for (const token of [first, second]) expect((await agent.get('/fw-api/userinfo').set('token', token).expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
          await agent.get('/fw-api/userinfo').set('token', changer).expect(200);
          await agent.get('/fw-api/userinfo').set('token', other).expect(200);
        }
        await instances[0]!
          .post('/fw-api/login')
          .send({ account: alice, pwd: encodePassword('alice-new-pass') })
          .expect(200);
      });
    });
  }
});
