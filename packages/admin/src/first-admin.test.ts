import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase, describeEachSql } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('fwAdmin(app, { admin })', () => {
  it('refuses an empty, blank or missing password (an unset variable) before opening anything', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    try {
      for (const password of ['', '   ', undefined]) {
        const admin = { account: 'admin', password } as unknown as { account: string; password: string };
        const error = await rejection(fwAdmin(new Koa(), { db: db.url, ui: false, admin }));
        expect(error).to.be.instanceOf(FwDefinitionError);
        expect((error as FwDefinitionError).key).to.equal('fwAdmin.admin.password');
      }
      const noAccount = await rejection(fwAdmin(new Koa(), { db: db.url, ui: false, admin: { account: ' ', password: 'x' } }));
      expect((noAccount as FwDefinitionError).key).to.equal('fwAdmin.admin.account');
      // Nothing was opened, so nothing was created either.
      const fw = await fwAdmin(new Koa(), { db: db.url, ui: false, purgeIntervalMs: false });
      try {
        expect(await fw.store.users.list()).to.deep.equal([]);
      } finally {
        await fw.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('refuses a first administrator whose password breaks the policy (one character, the account, a common one), creating nothing', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    try {
      for (const [password, rule] of [
        ['a', 'minLength'],
        ['Admin-2026-x', 'notAccount'],
        ['password123', 'notCommon'],
      ] as const) {
        const error = await rejection(fwAdmin(new Koa(), { db: db.url, ui: false, purgeIntervalMs: false, admin: { account: 'admin', password } }));
        expect(error, password).to.be.instanceOf(FwDefinitionError);
        expect((error as FwDefinitionError).key).to.equal('fwAdmin.admin.password');
        expect((error as Error).message).to.contain(`(${rule})`);
      }
      // The policy is fwAdmin's own option too.
      const strict = await rejection(
        fwAdmin(new Koa(), { db: db.url, ui: false, purgeIntervalMs: false, passwordPolicy: { minLength: 20 }, admin: { account: 'admin', password: 'violet-harbour-42' } }),
      );
      expect((strict as Error).message).to.contain('(minLength)');
      const fw = await fwAdmin(new Koa(), { db: db.url, ui: false, purgeIntervalMs: false, admin: { account: 'admin', password: 'violet-harbour-42' } });
      try {
        expect((await fw.store.users.list()).map((u) => u.account)).to.deep.equal(['admin']);
      } finally {
        await fw.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('is not created when an administrator exists, and an existing non-admin account is refused, not promoted', async () => {
    const other = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    try {
      const seed = await fwAdmin(new Koa(), { db: other.url, ui: false, purgeIntervalMs: false });
      await seed.store.users.create({ account: 'clerk', password: 'clerk-pass' });
      await seed.close();
      const error = await rejection(fwAdmin(new Koa(), { db: other.url, ui: false, purgeIntervalMs: false, admin: { account: 'clerk', password: 'p' } }));
      expect(error).to.be.instanceOf(FwDefinitionError);
      expect((error as Error).message).to.match(/clerk.*not an administrator/);
      const check = await fwAdmin(new Koa(), { db: other.url, ui: false, purgeIntervalMs: false, admin: { account: 'root', password: 'oak-table-lamp-9' } });
      try {
        expect((await check.store.users.findByAccount('clerk'))?.isAdmin).to.equal(false);
        expect((await check.store.users.findByAccount('root'))?.isAdmin).to.equal(true);
      } finally {
        await check.close();
      }
      // Now there is an administrator: another account in `admin` creates nothing.
      const again = await fwAdmin(new Koa(), { db: other.url, ui: false, purgeIntervalMs: false, admin: { account: 'root2', password: 'x' } });
      try {
        expect(await again.store.users.findByAccount('root2')).to.equal(undefined);
      } finally {
        await again.close();
      }
    } finally {
      await other.drop();
    }
  });

  describeEachSql('the first administrator', (db) => {
    it('is created when there is none, signs in, and is never reset by a restart', async () => {
      const start = async (password: string) => {
        const app = new Koa();
        app.silent = true;
        const fw = await fwAdmin(app, { db: db().url, ui: false, purgeIntervalMs: false, admin: { account: 'boss', password } });
        app.use(fw.middleware);
        return { fw, agent: request(app.callback()) };
      };
      const first = await start('first-pass-1');
      try {
        const boss = await first.fw.store.users.findByAccount('boss');
        expect(boss?.isAdmin).to.equal(true);
        expect(first.fw.firstAdmin?.id).to.equal(boss?.id);
        const login = await first.agent.post('/fw-api/login').send({ account: 'boss', pwd: encodePassword('first-pass-1') });
        expect(login.status, JSON.stringify(login.body)).to.equal(200);
      } finally {
        await first.fw.close();
      }
      // A second start with another password leaves the administrator as it was.
      const second = await start('second-pass-2');
      try {
        expect(second.fw.firstAdmin).to.equal(undefined);
        expect((await second.fw.store.users.list()).filter((u) => u.account === 'boss')).to.have.length(1);
        await second.agent
          .post('/fw-api/login')
          .send({ account: 'boss', pwd: encodePassword('second-pass-2') })
          .expect(401);
        await second.agent
          .post('/fw-api/login')
          .send({ account: 'boss', pwd: encodePassword('first-pass-1') })
          .expect(200);
      } finally {
        await second.fw.close();
      }
    });
  });
});
