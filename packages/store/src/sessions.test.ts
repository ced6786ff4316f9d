import { createHash } from 'node:crypto';
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
    userId = (await store.users.create({ account: `s-${Date.now()}`, name: 'Sam', password: 'x-password', isAdmin: true })).id;
  });
  after(() => store?.destroy());

  const insertToken = (token: string, expiresAt: number, db = store.knex) =>
    db('fw_token').insert({ token_hash: hash(token), user_id: userId, expires_at: expiresAt, created_at: Date.now() });

  it('returns the token’s user and the grants version in one read', async () => {
    await insertToken('AAAAAAAAAAAAAAA1', Date.now() + 60_000);
    await store.grants.bump();
    const session = await store.sessions.lookup(hash('AAAAAAAAAAAAAAA1'), Date.now());
    expect(session).to.deep.include({ userId });
    expect(session!.user).to.deep.include({ id: userId, name: 'Sam', isAdmin: true, status: 'normal', expireDate: null, whiteIp: null });
    expect(session!.grantsVersion).to.equal(await store.grants.version());
    expect(session!.expiresAt).to.be.greaterThan(Date.now());
  });

  it('reports the token’s own admin flag beside the user’s stored one', async () => {
    const plain = (await store.users.create({ account: `p-${Date.now()}`, password: 'x-password' })).id;
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
    const { account, name, isAdmin, status, expireDate, whiteIp } = record;
    return { user: { id, account, name, isAdmin, status, expireDate, whiteIp }, grantsVersion: await store.grants.version() };
  }

  it('agrees with users.findById for each status, admin flag, expiry and allowlist, and after a deletion', async () => {
    const stamp = Date.now();
    const expiry = new Date(Math.floor(stamp / 1000) * 1000 + 3_600_000);
    const ids = [
      (await store.users.create({ account: `u1-${stamp}`, name: 'One', password: 'x-password', isAdmin: true })).id,
      (await store.users.create({ account: `u2-${stamp}`, status: 'locked', expireDate: expiry, whiteIp: '10.0.0.0/8' })).id,
      (await store.users.create({ account: `u3-${stamp}`, name: null, expireDate: new Date(stamp - 60_000) })).id,
    ];
    await store.grants.bump();
    for (const id of ids) {
      const read = await store.sessions.user(id);
      expect(read, `user ${id}`).to.deep.equal(await viaModel(id));
    }
    const [admin, locked, expired] = await Promise.all(ids.map((id) => store.sessions.user(id)));
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
