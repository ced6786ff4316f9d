import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { describeEachSql, fileHandles } from '@fw/test-utils';
import { createStore, type FwStore } from './index.js';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

describeEachSql('store.sessions.lookup(tokenHash, now)', (db, spec) => {
  let store: FwStore;
  let userId: number;
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    userId = (await store.users.create({ account: `s-${Date.now()}`, name: 'Sam', password: 'x-password', isAdmin: true, mustChangePassword: false })).id;
  });
  after(() => store?.destroy());

  const insertToken = (token: string, expiresAt: number, db = store.knex) =>
    db('fw_token').insert({ token_hash: hash(token), user_id: userId, expires_at: expiresAt, created_at: Date.now() });

  it('returns the token’s user and the grants version in one read', async () => {
    await insertToken('AAAAAAAAAAAAAAA1', Date.now() + 60_000);
    await store.grants.bump();
    const session = await store.sessions.lookup(hash('AAAAAAAAAAAAAAA1'), Date.now());
    expect(session).to.deep.include({ userId });
    expect(session!.user).to.deep.include({ id: userId, name: 'Sam', isAdmin: true, status: 'normal', expireDate: null, whiteIp: null, mustChangePassword: false });
    expect(session!.grantsVersion).to.equal(await store.grants.version());
    expect(session!.expiresAt).to.be.greaterThan(Date.now());
  });

  it('reports, from the same read, a user who must change the password an administrator set', async () => {
    const given = (await store.users.create({ account: `m-${Date.now()}`, password: 'x-password' })).id;
    await store.knex('fw_token').insert({ token_hash: hash('AAAAAAAAAAAAAAA7'), user_id: given, expires_at: Date.now() + 60_000, created_at: Date.now() });
    expect((await store.sessions.lookup(hash('AAAAAAAAAAAAAAA7'), Date.now()))!.user.mustChangePassword).to.equal(true);
    await store.users.setPassword(given, 'y-password');
    expect((await store.sessions.lookup(hash('AAAAAAAAAAAAAAA7'), Date.now()))!.user.mustChangePassword).to.equal(false);
  });

  it('reports the token’s own admin flag beside the user’s stored one', async () => {
    const plain = (await store.users.create({ account: `p-${Date.now()}`, password: 'x-password', mustChangePassword: false })).id;
    await store.knex('fw_token').insert([
      { token_hash: hash('AAAAAAAAAAAAAAA5'), user_id: plain, expires_at: Date.now() + 60_000, created_at: Date.now(), is_admin: true },
      { token_hash: hash('AAAAAAAAAAAAAAA6'), user_id: plain, expires_at: Date.now() + 60_000, created_at: Date.now(), is_admin: false },
    ]);
    const granted = await store.sessions.lookup(hash('AAAAAAAAAAAAAAA5'), Date.now());
    expect(granted).to.deep.include({ userId: plain, tokenAdmin: true });
    expect(granted!.user.isAdmin).to.equal(false);
    expect((await store.sessions.lookup(hash('AAAAAAAAAAAAAAA6'), Date.now()))!.tokenAdmin).to.equal(false);
    expect((await store.sessions.lookup(hash('AAAAAAAAAAAAAAA1'), Date.now()))!.tokenAdmin).to.equal(false);
  });

  it('sees expiry, revocation and a lock at once', async () => {
    await insertToken('AAAAAAAAAAAAAAA2', Date.now() + 1000);
    expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA2'), Date.now() + 2000)).to.equal(undefined);
    expect(await store.sessions.lookup(hash('unknown'), Date.now())).to.equal(undefined);
    await insertToken('AAAAAAAAAAAAAAA3', Date.now() + 60_000);
    await store.users.update(userId, { status: 'locked' });
    expect((await store.sessions.lookup(hash('AAAAAAAAAAAAAAA3'), Date.now()))!.user.status).to.equal('locked');
    await store.users.update(userId, { status: 'normal' });
    await store.knex('fw_token').where('token_hash', hash('AAAAAAAAAAAAAAA3')).delete();
    expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA3'), Date.now())).to.equal(undefined);
  });

  if (spec.dialect === 'sqlite') {
    it('reads committed data only (its own read-only connection)', async () => {
      // Warm the reader up first, so it exists while the transaction below is open.
      await store.sessions.lookup(hash('nothing'), Date.now());
      await store.knex.transaction(async (trx) => {
        await insertToken('AAAAAAAAAAAAAAA4', Date.now() + 60_000, trx);
        expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA4'), Date.now())).to.equal(undefined);
      });
      expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA4'), Date.now())).to.not.equal(undefined);
    });
  }

  if (spec.dialect === 'mysql') {
    /** Runs `check` with every connection the pool hands out given `execute` (undefined: a driver without it), then puts each back. */
    const withExecute = async (execute: unknown, check: () => Promise<void>) => {
      const client = store.knex.client as { acquireConnection(): Promise<Record<string, unknown>> };
      const acquire = client.acquireConnection;
      const touched = new Map<Record<string, unknown>, { own: boolean; value: unknown }>();
      client.acquireConnection = async function (this: unknown) {
        const connection = await acquire.call(this);
        if (!touched.has(connection)) touched.set(connection, { own: Object.hasOwn(connection, 'execute'), value: connection.execute });
        connection.execute = execute;
        return connection;
      };
      try {
        await check();
      } finally {
        client.acquireConnection = acquire;
        for (const [connection, { own, value }] of touched) {
          if (own) connection.execute = value;
          else delete connection.execute;
        }
      }
    };

    it('reads the same through the plain text on a driver without prepared statements (mysqljs) and when the server has no room for one more', async () => {
      await insertToken('AAAAAAAAAAAAAAA8', Date.now() + 60_000);
      const prepared = await store.sessions.lookup(hash('AAAAAAAAAAAAAAA8'), Date.now());
      const preparedUser = await store.sessions.user(userId);
      expect(prepared).to.deep.include({ userId });
      expect(preparedUser!.user.id).to.equal(userId);
      await withExecute(undefined, async () => {
        expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA8'), Date.now())).to.deep.equal(prepared);
        expect(await store.sessions.user(userId)).to.deep.equal(preparedUser);
        expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA9'), Date.now())).to.equal(undefined);
      });
      const full = (_sql: string, _values: unknown[], callback: (error: Error) => void) => callback(Object.assign(new Error('Too many prepared statements'), { errno: 1461 }));
      await withExecute(full, async () => {
        expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA8'), Date.now())).to.deep.equal(prepared);
      });
      // Any other error of the prepared statement is the lookup's error (no silent second try).
      const broken = (_sql: string, _values: unknown[], callback: (error: Error) => void) => callback(Object.assign(new Error('no such table'), { errno: 1146 }));
      await withExecute(broken, async () => {
        const error = await store.sessions.lookup(hash('AAAAAAAAAAAAAAA8'), Date.now()).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(String(error)).to.contain('no such table');
      });
      // Put back: the prepared statement answers again.
      expect(await store.sessions.lookup(hash('AAAAAAAAAAAAAAA8'), Date.now())).to.deep.equal(prepared);
    });
  }
});

describeEachSql('store.sessions.user(userId)', (db, spec) => {
  let store: FwStore;
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(() => store?.destroy());

  /** What the authentication path used before (the objection read), in the shape `user()` returns. */
  async function viaModel(id: number) {
    const record = await store.users.findById(id);
    if (!record) return undefined;
    const { account, name, isAdmin, status, expireDate, whiteIp, hasPassword, resetPwdTime } = record;
    const mustChangePassword = hasPassword && resetPwdTime === null;
    return { user: { id, account, name, isAdmin, status, expireDate, whiteIp, mustChangePassword }, grantsVersion: await store.grants.version() };
  }

  it('agrees with users.findById for each status, admin flag, expiry and allowlist, and after a deletion', async () => {
    const stamp = Date.now();
    const expiry = new Date(Math.floor(stamp / 1000) * 1000 + 3_600_000);
    const ids = [
      (await store.users.create({ account: `u1-${stamp}`, name: 'One', password: 'x-password', isAdmin: true, mustChangePassword: false })).id,
      (await store.users.create({ account: `u2-${stamp}`, status: 'locked', expireDate: expiry, whiteIp: '10.0.0.0/8' })).id,
      (await store.users.create({ account: `u3-${stamp}`, name: null, expireDate: new Date(stamp - 60_000) })).id,
      // A password an administrator set: the user must change it (issue 19 §3).
      (await store.users.create({ account: `u4-${stamp}`, password: 'x-password' })).id,
    ];
    await store.grants.bump();
    for (const id of ids) {
      const read = await store.sessions.user(id);
      expect(read, `user ${id}`).to.deep.equal(await viaModel(id));
    }
    const [admin, locked, expired, given] = await Promise.all(ids.map((id) => store.sessions.user(id)));
    expect([admin, locked, expired, given].map((s) => s!.user.mustChangePassword)).to.deep.equal([false, false, false, true]);
    await store.users.setPassword(ids[3]!, 'y-password');
    expect((await store.sessions.user(ids[3]!))!.user.mustChangePassword).to.equal(false);
    expect(admin!.user).to.deep.include({ isAdmin: true, status: 'normal', name: 'One', expireDate: null });
    expect(locked!.user).to.deep.include({ isAdmin: false, status: 'locked', whiteIp: '10.0.0.0/8' });
    expect(locked!.user.expireDate!.getTime()).to.equal(expiry.getTime());
    expect(expired!.user.expireDate!.getTime()).to.be.lessThan(stamp);
    expect(admin!.grantsVersion).to.be.greaterThan(0);

    // Changes written afterwards show on the next read (nothing is cached).
    await store.users.update(ids[0]!, { status: 'locked', isAdmin: false });
    await store.grants.bump();
    expect(await store.sessions.user(ids[0]!)).to.deep.equal(await viaModel(ids[0]!));
    expect((await store.sessions.user(ids[0]!))!.user).to.deep.include({ status: 'locked', isAdmin: false });
    await store.users.delete(ids[1]!);
    expect(await store.sessions.user(ids[1]!)).to.equal(undefined);
    expect(await store.sessions.user(999_999_999)).to.equal(undefined);
    expect(await store.sessions.user(0)).to.equal(undefined);
    expect(await store.sessions.user(Number.NaN)).to.equal(undefined);
  });

  it('gives the same answers through a store over the same knex (the query builder path)', async () => {
    const other = createStore({ knex: store.knex });
    const id = (await store.users.create({ account: `k-${Date.now()}`, name: 'Kay', isAdmin: true, whiteIp: '127.0.0.1' })).id;
    expect(await other.sessions.user(id)).to.deep.equal(await store.sessions.user(id));
    expect(await other.sessions.user(id)).to.deep.equal(await viaModel(id));
    await other.destroy();
  });

  if (spec.dialect === 'sqlite') {
    it('reads through the read-only prepared statement (committed data only)', async () => {
      const id = (await store.users.create({ account: `c-${Date.now()}` })).id;
      await store.sessions.user(id);
      await store.knex.transaction(async (trx) => {
        await trx('fw_user').where('id', id).update({ status: 'locked' });
        expect((await store.sessions.user(id))!.user.status).to.equal('normal');
      });
      expect((await store.sessions.user(id))!.user.status).to.equal('locked');
    });
  }
});

describe('store.sessions on a SQLite file: rows kept while nothing is committed', () => {
  let dir: string;
  let file: string;
  let store: FwStore;
  let other: FwStore;
  let userId: number;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fw-sessions-kept-'));
    file = join(dir, 'fw.db');
    store = createStore(`sqlite:${file}`);
    await store.migrate.latest();
    // Another instance on the same file: its own knex, so its own connection.
    other = createStore(`sqlite:${file}`);
    userId = (await store.users.create({ account: 'kept', name: 'Kim' })).id;
  });
  after(async () => {
    await store?.destroy();
    await other?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const live = (token: string, expiresAt = Date.now() + 60_000) =>
    store.knex('fw_token').insert({ token_hash: hash(token), user_id: userId, expires_at: expiresAt, created_at: Date.now() });
  /** Runs SQL on the file from a process of its own (better-sqlite3, as another app would). */
  function inAnotherProcess(sql: string): void {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const script = `const D = require(${JSON.stringify(driver)}); const db = new D(${JSON.stringify(file)}); db.exec(${JSON.stringify(sql)}); db.close();`;
    execFileSync(process.execPath, ['-e', script]);
  }

  it('sees a revocation, a lock, a new grants version and a deletion made by another instance on the very next lookup', async () => {
    await live('KEPTKEPTKEPTKEP1');
    await live('KEPTKEPTKEPTKEP2');
    const first = await store.sessions.lookup(hash('KEPTKEPTKEPTKEP1'), Date.now());
    expect(first!.user.status).to.equal('normal');
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP1'), Date.now())).to.deep.equal(first);

    await other.users.update(userId, { status: 'locked' });
    expect((await store.sessions.lookup(hash('KEPTKEPTKEPTKEP1'), Date.now()))!.user.status).to.equal('locked');
    expect((await store.sessions.user(userId))!.user.status).to.equal('locked');
    await other.users.update(userId, { status: 'normal' });

    const version = (await store.sessions.lookup(hash('KEPTKEPTKEPTKEP1'), Date.now()))!.grantsVersion;
    await other.grants.bump();
    expect((await store.sessions.lookup(hash('KEPTKEPTKEPTKEP1'), Date.now()))!.grantsVersion).to.equal(version + 1);
    expect((await store.sessions.user(userId))!.grantsVersion).to.equal(version + 1);

    await other.knex('fw_token').where('token_hash', hash('KEPTKEPTKEPTKEP1')).delete();
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP1'), Date.now())).to.equal(undefined);
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP2'), Date.now())).to.not.equal(undefined);
  });

  it('sees a change committed by another process on the very next lookup', async () => {
    await live('KEPTKEPTKEPTKEP3');
    expect((await store.sessions.lookup(hash('KEPTKEPTKEPTKEP3'), Date.now()))!.user.name).to.equal('Kim');
    expect((await store.sessions.user(userId))!.user.name).to.equal('Kim');
    inAnotherProcess(`update fw_user set name = 'Kit', is_admin = 1 where id = ${userId}`);
    expect((await store.sessions.lookup(hash('KEPTKEPTKEPTKEP3'), Date.now()))!.user).to.deep.include({ name: 'Kit', isAdmin: true });
    expect((await store.sessions.user(userId))!.user).to.deep.include({ name: 'Kit', isAdmin: true });
    inAnotherProcess(`delete from fw_token where token_hash = '${hash('KEPTKEPTKEPTKEP3')}'`);
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP3'), Date.now())).to.equal(undefined);
    inAnotherProcess(`delete from fw_user where id = ${userId + 1000}`); // a commit that changes nothing of hers
    expect((await store.sessions.user(userId))!.user.name).to.equal('Kit');
  });

  it('still ends a token at its expiry when nothing is written', async () => {
    const expiresAt = Date.now() + 60_000;
    await live('KEPTKEPTKEPTKEP4', expiresAt);
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP4'), expiresAt - 1)).to.not.equal(undefined);
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP4'), expiresAt)).to.equal(undefined);
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP4'), expiresAt - 1)).to.not.equal(undefined);
  });

  it('hands out a new object every time, so a caller changing one changes nothing kept', async () => {
    await live('KEPTKEPTKEPTKEP5');
    const first = await store.sessions.lookup(hash('KEPTKEPTKEPTKEP5'), Date.now());
    first!.user.status = 'locked';
    first!.user.expireDate = new Date(0);
    const again = await store.sessions.lookup(hash('KEPTKEPTKEPTKEP5'), Date.now());
    expect(again!.user).to.deep.include({ status: 'normal', expireDate: null });
    const user = await store.sessions.user(userId);
    user!.user.isAdmin = false;
    expect((await store.sessions.user(userId))!.user.isAdmin).to.equal(true);
  });

  it('answers while the pool’s connection is busy stepping a query or inside a transaction (the read-only connection then reads)', async () => {
    await live('KEPTKEPTKEPTKEP7');
    const client = store.knex.client as unknown as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): unknown };
    const connection = (await client.acquireConnection()) as { prepare(sql: string): { iterate(): IterableIterator<unknown> } };
    try {
      const rows = connection.prepare('select id from fw_user').iterate();
      rows.next(); // the statement is still being stepped: the connection is busy
      await other.grants.bump(); // kept rows are dropped, so the next lookup reads
      expect((await store.sessions.lookup(hash('KEPTKEPTKEPTKEP7'), Date.now()))!.userId).to.equal(userId);
      rows.return?.();
    } finally {
      client.releaseConnection(connection);
    }
    const name = (await store.sessions.user(userId))!.user.name;
    await other.grants.bump(); // kept rows are dropped again
    const trx = await store.knex.transaction();
    try {
      await trx('fw_user').where('id', userId).update({ name: 'Uncommitted' });
      expect((await store.sessions.user(userId))!.user.name).to.equal(name);
      expect((await store.sessions.lookup(hash('KEPTKEPTKEPTKEP7'), Date.now()))!.user.name).to.equal(name);
    } finally {
      await trx.rollback();
    }
  });

  it('does not remember unknown tokens, and finds one as soon as it is written', async () => {
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP6'), Date.now())).to.equal(undefined);
    inAnotherProcess(`insert into fw_token (token_hash, user_id, expires_at, created_at) values ('${hash('KEPTKEPTKEPTKEP6')}', ${userId}, ${Date.now() + 60_000}, ${Date.now()})`);
    expect(await store.sessions.lookup(hash('KEPTKEPTKEPTKEP6'), Date.now())).to.not.equal(undefined);
  });
});

describe('store.sessions on a SQLite file', () => {
  it('opens its read-only connection for user() and closes it with the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-sessions-'));
    try {
      const file = join(dir, 'fw.db');
      const store = createStore(`sqlite:${file}`);
      await store.migrate.latest();
      const id = (await store.users.create({ account: 'h' })).id;
      const before = fileHandles(file);
      expect((await store.sessions.user(id))!.user.account).to.equal('h');
      expect(fileHandles(file)).to.be.greaterThan(before);
      await store.destroy();
      expect(fileHandles(file)).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
