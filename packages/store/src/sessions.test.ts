import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
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
