import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError, defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase, describeRedisCluster } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

const Book = defineModel({ name: 'Book', table: 'adm_cluster_book', fields: { title: { edit: { notNull: true } } } });

async function setup(redis: Parameters<typeof fwAdmin>[1]['redis'], redisPrefix: string) {
  const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
  const app = new Koa();
  app.silent = true;
  app.keys = ['admin-cluster-test-key'];
  const fw = await fwAdmin(app, { db: db.url, models: [Book], redis, redisPrefix, ui: false });
  app.use(fw.middleware);
  await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  const agent = request(app.callback());
  const login = (pwd: string) => agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword(pwd) });
  return { fw, agent, login, cleanup: async () => (await fw.close(), await db.drop()) };
}

describeRedisCluster('fwAdmin({ redis: { cluster } })', (cluster) => {
  it('keeps tokens and failed-login counters on the cluster, and a logout or revoke-all ends the token', async () => {
    const prefix = `fw-admin-cluster-${Date.now().toString(36)}:`;
    const s = await setup({ cluster: cluster().urls.slice(0, 2) }, prefix);
    const probe = await cluster().connect();
    const keysOnMasters = async (pattern: string) => (await Promise.all(probe.nodes('master').map((node) => node.keys(pattern)))).flat();
    try {
      const token = (await s.login('admin-pass-1').expect(200)).body.token as string;
      await s.agent.get('/fw-api/userinfo').set('token', token).expect(200);
      expect(await keysOnMasters(`${prefix}token:*`)).to.have.length(1);
      expect(Number((await s.fw.store.knex('fw_token').count({ n: '*' }))[0]!.n)).to.equal(0);
      await s.login('wrong').expect(401);
      expect(await keysOnMasters(`${prefix}kv:*`)).to.have.length.greaterThan(0);

      const second = (await s.login('admin-pass-1').expect(200)).body.token as string;
      expect(await s.fw.tokens.revokeUser((await s.fw.store.users.findByAccount('admin'))!.id)).to.equal(2);
      await s.agent.get('/fw-api/userinfo').set('token', token).expect(401);
      await s.agent.get('/fw-api/userinfo').set('token', second).expect(401);
    } finally {
      probe.disconnect();
      await s.cleanup();
    }
  });
});

describe('fwAdmin({ redis: { cluster } }) options', () => {
  it('refuses a cluster list that is not redis:// URLs at start-up, before opening anything, without the password', async () => {
    for (const cluster of [[], ['redis://:s3cret@10.0.0.1'], 'redis://127.0.0.1:7000']) {
      const error = await fwAdmin(new Koa(), { db: 'sqlite:///never-opened.db', redis: { cluster: cluster as string[] } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(FwDefinitionError).with.property('key', 'createRedisCluster.nodes');
      expect((error as Error).message).not.to.include('s3cret');
    }
  });
});
