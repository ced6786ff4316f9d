import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { fwErrorHandler } from '@fw/http';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwAuth } from './auth.js';

// Tokens outside the database (memory here, Redis alike): fwAuth resolves the token, then reads
// the user and grants version through store.sessions.user, fresh on every request.
describeEachSql('fwAuth(options) with tokens outside the database', (db, spec) => {
  let stores: FwStore[];
  let tokens: FwTokenService;
  let instances: Array<ReturnType<typeof request>>;

  before(async () => {
    // Two instances, each with its own store on one database, sharing one token store.
    stores = [createStore(db().url), createStore(db().url)];
    await stores[0]!.migrate.latest();
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    instances = stores.map((store) => {
      const app = new Koa();
      app.use(fwErrorHandler());
      app.use(fwAuth({ tokens, store }));
      app.use((ctx) => {
        const { user, grantsVersion } = ctx.state.fw!;
        ctx.body = { user, grantsVersion };
      });
      return request(app.callback());
    });
  });
  after(async () => {
    for (const store of stores ?? []) await store.destroy();
  });

  async function signedIn(input: Parameters<FwStore['users']['create']>[0]) {
    const user = await stores[0]!.users.create({ password: 'x-password', mustChangePassword: false, ...input });
    const { token } = await tokens.loginToken({ id: user.id, account: user.account });
    return { user, token };
  }
  const code = async (i: number, token: string) => (await instances[i]!.get('/').set('token', token).expect(401)).body.error.code as string;

  it('answers with the stored user, admin flag and grants version', async () => {
    const { user, token } = await signedIn({ account: `a-${Date.now()}`, name: 'Ann', isAdmin: true });
    await stores[0]!.grants.bump();
    const { body } = await instances[1]!.get('/').set('token', token).expect(200);
    expect(body).to.deep.equal({ user: { id: user.id, account: user.account, name: 'Ann', isAdmin: true }, grantsVersion: await stores[0]!.grants.version() });
  });

  it('applies a lock, an expiry and a deletion written by another instance to the next request', async () => {
    const { user, token } = await signedIn({ account: `b-${Date.now()}` });
    await instances[0]!.get('/').set('token', token).expect(200);
    await stores[1]!.users.update(user.id, { status: 'locked' });
    expect(await code(0, token)).to.equal('ACCOUNT_DISABLED');
    await stores[1]!.users.update(user.id, { status: 'normal', isAdmin: true });
    expect((await instances[0]!.get('/').set('token', token).expect(200)).body.user.isAdmin).to.equal(true);
    await stores[1]!.users.update(user.id, { expireDate: new Date(Date.now() - 1000) });
    expect(await code(0, token)).to.equal('ACCOUNT_DISABLED');
    await stores[1]!.users.update(user.id, { expireDate: new Date(Date.now() + 3_600_000) });
    await instances[0]!.get('/').set('token', token).expect(200);
    await stores[1]!.users.delete(user.id);
    expect(await code(0, token)).to.equal('TOKEN_EXPIRED');
  });

  it('reads the user without the query builder where the store prepares it', async () => {
    const { token } = await signedIn({ account: `c-${Date.now()}` });
    await instances[0]!.get('/').set('token', token).expect(200);
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    stores[0]!.knex.on('query', listener);
    try {
      await instances[0]!.get('/').set('token', token).expect(200);
    } finally {
      stores[0]!.knex.off('query', listener);
    }
    // SQLite: a prepared statement on a read-only connection; PostgreSQL: a named prepared
    // statement on a pool connection; MariaDB/MySQL: a fixed text on a pool connection;
    // elsewhere one query built by knex.
    expect(seen).to.have.length(spec.dialect === 'mssql' ? 1 : 0);
  });
});
