/// <reference types="mocha" />
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFwError } from '@fw/core';
import { MINUTE, START, collectStrings } from './conformance-shared.js';
import { TOKEN_ALPHABET, hashToken, isTokenShape } from './generate.js';
import { sessionConformance } from './conformance-sessions.js';
import { FwTokenService, type FwTokenServiceOptions } from './service.js';
import type { TokenRecord, TokenStore } from './store.js';
import { measureUniformity, uniformityFailures } from './uniformity.js';

/** Backend hooks for {@link tokenStoreConformance}. */
export interface TokenStoreConformanceOptions<S extends TokenStore = TokenStore> {
  /**
   * Everything the backend holds for `store`, raw (table rows, every Redis key and value, …), in
   * any shape: every string, number, buffer, array, Map, Set and object in it is searched. The
   * "clear tokens never stored" test requires the token hashes to appear in it (so an inspection
   * that sees nothing fails) and the clear tokens not to.
   * @default the store object itself, walked property by property (right for in-process stores)
   */
  inspect?: (store: S) => unknown;
  /**
   * A second store over the same storage, opened the way another app instance would (its own
   * connection). Used to check that a token issued on one instance works on the other and that
   * a logout on one is seen by the other at once.
   * @default the same store object
   */
  peer?: (store: S) => TokenStore | Promise<TokenStore>;
  /**
   * The backend removes expired records by itself (Redis key expiry): a short real-time test
   * then also checks that `inspect` shows no trace of an expired token.
   * @default false
   */
  expiresOnItsOwn?: boolean;
  /** Called after each test with every store `makeStore` and `peer` returned for it. */
  dispose?: (stores: TokenStore[]) => void | Promise<void>;
}

interface Spied {
  store: TokenStore;
  calls: string[];
}

/** Wraps a store and records every method called on it. */
function spy(inner: TokenStore): Spied {
  const calls: string[] = [];
  const store: TokenStore = {
    save: (record, now) => (calls.push('save'), inner.save(record, now)),
    find: (hash, now) => (calls.push('find'), inner.find(hash, now)),
    delete: (hash) => (calls.push('delete'), inner.delete(hash)),
    deleteByUser: (userId, keepHash) => (calls.push('deleteByUser'), inner.deleteByUser(userId, keepHash)),
    extend: (hash, expiresAt, now) => (calls.push('extend'), inner.extend(hash, expiresAt, now)),
    purgeExpired: (now) => (calls.push('purgeExpired'), inner.purgeExpired(now)),
  };
  // The session methods are optional: forwarded only when the store has them, so a store written
  // before them is still seen as one without them.
  if (inner.listByUser) store.listByUser = (userId, now) => (calls.push('listByUser'), inner.listByUser!(userId, now));
  if (inner.touch) store.touch = (hash, at) => (calls.push('touch'), inner.touch!(hash, at));
  if (inner.listUsers) store.listUsers = (now, page) => (calls.push('listUsers'), inner.listUsers!(now, page));
  return { store, calls };
}

function record(hash: string, userId: number, expiresAt: number, createdAt = START): TokenRecord {
  return { hash, userId, expiresAt, createdAt };
}

/** A distinct, well-formed hash per label. */
function fakeHash(label: string): string {
  return hashToken(`conformance:${label}`);
}

/**
 * Declares a mocha suite that checks a {@link TokenStore} implementation and the
 * {@link FwTokenService} on top of it: token format, uniqueness and uniformity, records,
 * expiry, revocation, sliding renewal, several instances, and that no clear token ever reaches
 * the storage. Call it inside a `describe` of a mocha test file, once per backend.
 *
 * @param makeStore returns a new, empty store for each test (a fresh instance, a truncated
 * table, a new key prefix, …).
 * @example
 * describe('MyTokenStore', () => {
 *   tokenStoreConformance(() => new MyTokenStore(), { inspect: (store) => store.dumpAll() });
 * });
 */
export function tokenStoreConformance<S extends TokenStore>(makeStore: () => S | Promise<S>, options: TokenStoreConformanceOptions<S> = {}): void {
  const { inspect = (store: S): unknown => store, peer, expiresOnItsOwn = false, dispose } = options;
  let opened: TokenStore[] = [];

  async function setup(serviceOptions: Partial<FwTokenServiceOptions> = {}) {
    const store = await makeStore();
    opened.push(store);
    const spied = spy(store);
    let t = START;
    const clock = {
      now: () => t,
      advance: (ms: number) => void (t += ms),
    };
    const service = (extra: Partial<FwTokenServiceOptions> = {}) => new FwTokenService({ store: spied.store, expireMinutes: 10, now: clock.now, ...serviceOptions, ...extra });
    const openPeer = async (): Promise<TokenStore> => {
      if (!peer) return store;
      const other = await peer(store);
      opened.push(other);
      return other;
    };
    return { store, calls: spied.calls, clock, service, openPeer };
  }

  describe('TokenStore conformance', function () {
    this.timeout(60_000);

    afterEach(async function () {
      const stores = opened;
      opened = [];
      if (dispose) await dispose(stores);
    });

    describe('token generation', () => {
      it('generates 100,000 distinct tokens with distinct hashes', async () => {
        const { service } = await setup();
        const generator = service();
        const tokens = new Set<string>();
        for (let i = 0; i < 100_000; i++) tokens.add(generator.generateToken());
        assert.equal(tokens.size, 100_000, 'a token repeated within 100,000');
        const sample = [...tokens].slice(0, 1000);
        assert.equal(new Set(sample.map(hashToken)).size, sample.length);
      });

      it('uses exactly 16 characters of [A-Za-z0-9], all 62 of them in use', async () => {
        const { service } = await setup();
        const generator = service();
        const seen = new Set<string>();
        for (let i = 0; i < 100_000; i++) {
          const token = generator.generateToken();
          assert.match(token, /^[A-Za-z0-9]{16}$/);
          assert.ok(isTokenShape(token));
          for (const c of token) seen.add(c);
        }
        assert.equal([...seen].sort().join(''), [...TOKEN_ALPHABET].sort().join(''));
      });

      it('draws characters without modulo bias (chi-square over 1.6 million characters)', async () => {
        const { service } = await setup();
        const generator = service();
        const tokens: string[] = [];
        for (let i = 0; i < 100_000; i++) tokens.push(generator.generateToken());
        const report = measureUniformity(tokens);
        assert.equal(report.characters, 1_600_000);
        assert.deepEqual(uniformityFailures(report), []);
      });

      it('registers every generated token under its own hash', async () => {
        const { service } = await setup();
        const tokens = service();
        const issued = [];
        for (let i = 0; i < 20; i++) issued.push({ userId: 1 + (i % 4), ...(await tokens.loginToken({ id: 1 + (i % 4), account: `u${i % 4}` })) });
        assert.equal(new Set(issued.map((x) => x.token)).size, issued.length);
        for (const { token, userId } of issued) assert.equal((await tokens.resolve(token))?.userId, userId);
      });
    });

    describe('records', () => {
      it('finds a saved record with every field intact, as numbers', async () => {
        const { store } = await setup();
        // The largest 32-bit id and an expiry past 2^32 catch bigint columns read back as strings.
        const saved = record(fakeHash('a'), 2147483647, START + 400 * 24 * 60 * MINUTE, START - 1);
        assert.equal(await store.save(saved, START), true);
        const found = await store.find(saved.hash, START);
        assert.deepEqual(found, saved);
        assert.equal(typeof found?.expiresAt, 'number');
        assert.equal(await store.find(fakeHash('unknown'), START), undefined);
        assert.equal(await store.find('not a hash', START), undefined);
      });

      it('keeps the admin flag of a record through find and extend, and reports no flag on others', async () => {
        const { store } = await setup();
        const admin = record(fakeHash('adm'), 12, START + MINUTE);
        admin.admin = true;
        assert.equal(await store.save(admin, START), true);
        await store.save({ ...record(fakeHash('plain'), 12, START + MINUTE), admin: false }, START);
        assert.deepEqual(await store.find(admin.hash, START), admin);
        assert.equal(await store.extend(admin.hash, START + 5 * MINUTE, START + 30_000), true);
        assert.deepEqual(await store.find(admin.hash, START + 2 * MINUTE), { ...admin, expiresAt: START + 5 * MINUTE });
        assert.notEqual((await store.find(fakeHash('plain'), START))?.admin, true);
        await assert.rejects(async () => store.save({ ...record(fakeHash('bad-flag'), 12, START + MINUTE), admin: 'yes' as never }, START), TypeError);
      });

      it('refuses a second live record with the same hash and replaces an expired one', async () => {
        const { store } = await setup();
        const hash = fakeHash('dup');
        assert.equal(await store.save(record(hash, 1, START + MINUTE), START), true);
        assert.equal(await store.save(record(hash, 2, START + 2 * MINUTE), START), false);
        assert.equal((await store.find(hash, START))?.userId, 1);
        const later = START + 5 * MINUTE;
        assert.equal(await store.save(record(hash, 3, later + MINUTE, later), later), true);
        assert.equal((await store.find(hash, later))?.userId, 3);
      });

      it('rejects a malformed record, such as a clear token in place of the hash', async () => {
        const { store } = await setup();
        await assert.rejects(async () => store.save(record('AbCdEfGh12345678', 1, START + MINUTE), START), TypeError);
        await assert.rejects(async () => store.save(record(fakeHash('x').toUpperCase(), 1, START + MINUTE), START), TypeError);
        await assert.rejects(async () => store.save(record(fakeHash('x'), 1.5, START + MINUTE), START), TypeError);
        await assert.rejects(async () => store.save(record(fakeHash('x'), 1, START), START), RangeError);
        assert.equal(await store.find(fakeHash('x'), START), undefined);
      });

      it('stops returning a record at its expiry, by the caller’s clock', async () => {
        const { store } = await setup();
        const hash = fakeHash('exp');
        await store.save(record(hash, 1, START + MINUTE), START);
        assert.equal((await store.find(hash, START + MINUTE - 1))?.userId, 1);
        assert.equal(await store.find(hash, START + MINUTE), undefined);
        assert.equal(await store.find(hash, START + 10 * MINUTE), undefined);
      });

      it('deletes one record and leaves the others', async () => {
        const { store } = await setup();
        await store.save(record(fakeHash('d1'), 1, START + MINUTE), START);
        await store.save(record(fakeHash('d2'), 1, START + MINUTE), START);
        assert.equal(await store.delete(fakeHash('d1')), true);
        assert.equal(await store.delete(fakeHash('d1')), false);
        assert.equal(await store.find(fakeHash('d1'), START), undefined);
        assert.equal((await store.find(fakeHash('d2'), START))?.userId, 1);
      });

      it('deletes every record of a user and only those', async () => {
        const { store } = await setup();
        for (let i = 0; i < 3; i++) await store.save(record(fakeHash(`u7-${i}`), 7, START + MINUTE), START);
        await store.save(record(fakeHash('u8'), 8, START + MINUTE), START);
        assert.equal(await store.deleteByUser(7), 3);
        assert.equal(await store.deleteByUser(7), 0);
        for (let i = 0; i < 3; i++) assert.equal(await store.find(fakeHash(`u7-${i}`), START), undefined);
        assert.equal((await store.find(fakeHash('u8'), START))?.userId, 8);
        // A user whose tokens were all revoked can log in again.
        assert.equal(await store.save(record(fakeHash('u7-new'), 7, START + MINUTE), START), true);
        assert.equal((await store.find(fakeHash('u7-new'), START))?.userId, 7);
      });

      it('deletes every record of a user but the one kept, and still finds the kept one later', async () => {
        const { store } = await setup();
        for (let i = 0; i < 3; i++) await store.save(record(fakeHash(`u9-${i}`), 9, START + MINUTE), START);
        await store.save(record(fakeHash('u10'), 10, START + MINUTE), START);
        assert.equal(await store.deleteByUser(9, fakeHash('u9-1')), 2);
        assert.equal(await store.find(fakeHash('u9-0'), START), undefined);
        assert.equal(await store.find(fakeHash('u9-2'), START), undefined);
        assert.equal((await store.find(fakeHash('u9-1'), START))?.userId, 9);
        // The kept record stays in the per-user index: a later revoke-all still reaches it. Keeping
        // another user's hash, or a malformed one, keeps nothing of this user.
        await store.save(record(fakeHash('u9-3'), 9, START + MINUTE), START);
        assert.equal(await store.deleteByUser(9, fakeHash('u10')), 2);
        assert.equal(await store.find(fakeHash('u9-1'), START), undefined);
        assert.equal(await store.find(fakeHash('u9-3'), START), undefined);
        await store.save(record(fakeHash('u9-4'), 9, START + MINUTE), START);
        assert.equal(await store.deleteByUser(9, 'not a hash'), 1);
        assert.equal((await store.find(fakeHash('u10'), START))?.userId, 10);
      });

      it('extends a live record forward only, and never revives a deleted or expired one', async () => {
        const { store } = await setup();
        const hash = fakeHash('ext');
        await store.save(record(hash, 1, START + MINUTE), START);
        assert.equal(await store.extend(hash, START + 5 * MINUTE, START + 30_000), true);
        assert.equal((await store.find(hash, START + 4 * MINUTE))?.expiresAt, START + 5 * MINUTE);
        assert.equal(await store.extend(hash, START + 2 * MINUTE, START + 30_000), true);
        assert.equal((await store.find(hash, START))?.expiresAt, START + 5 * MINUTE, 'extend shortened the expiry');
        // After an extension, revoke-all must still find the record.
        assert.equal(await store.deleteByUser(1), 1);
        assert.equal(await store.extend(hash, START + 9 * MINUTE, START), false);
        assert.equal(await store.find(hash, START), undefined);

        const old = fakeHash('ext-expired');
        await store.save(record(old, 1, START + MINUTE), START);
        assert.equal(await store.extend(old, START + 9 * MINUTE, START + MINUTE), false);
        assert.equal((await store.find(old, START))?.expiresAt, START + MINUTE, 'extend changed an expired record');
        assert.equal(await store.find(old, START + 2 * MINUTE), undefined);
        assert.equal(await store.extend(fakeHash('never'), START + MINUTE, START), false);
      });

      it('purges expired records only, and keeps the per-user index right', async () => {
        const { store } = await setup();
        await store.save(record(fakeHash('p1'), 1, START + MINUTE), START);
        await store.save(record(fakeHash('p2'), 1, START + 2 * MINUTE), START);
        await store.save(record(fakeHash('p3'), 1, START + 60 * MINUTE), START);
        await store.save(record(fakeHash('p4'), 2, START + 60 * MINUTE), START);
        assert.equal(await store.purgeExpired(START + 2 * MINUTE), 2);
        assert.equal(await store.purgeExpired(START + 2 * MINUTE), 0);
        // Purged records are gone, not just hidden: an earlier clock does not see them again.
        assert.equal(await store.find(fakeHash('p1'), START), undefined);
        assert.equal(await store.find(fakeHash('p2'), START), undefined);
        assert.equal((await store.find(fakeHash('p3'), START))?.userId, 1);
        assert.equal(await store.deleteByUser(1), 1);
        assert.equal((await store.find(fakeHash('p4'), START))?.userId, 2);
      });

      it('honours a short real lifetime', async function () {
        const { store } = await setup();
        const hash = fakeHash('real');
        const now = Date.now();
        await store.save(record(hash, 1, now + 300, now), now);
        assert.equal((await store.find(hash, Date.now()))?.userId, 1);
        await sleep(450);
        assert.equal(await store.find(hash, Date.now()), undefined);
        if (expiresOnItsOwn) {
          const raw = collectStrings(await inspect(store));
          assert.ok(!raw.some((s) => s.includes(hash)), 'the backend still holds the expired token or its index entry');
        }
      });
    });

    describe('FwTokenService', () => {
      it('issues a token for the configured lifetime and resolves it to its user', async () => {
        const { service } = await setup();
        const tokens = service({ expireMinutes: 30 });
        const issued = await tokens.loginToken({ id: 5, account: 'ann' });
        assert.ok(isTokenShape(issued.token));
        assert.equal(issued.expiresAt.getTime(), START + 30 * MINUTE);
        assert.deepEqual(await tokens.resolve(issued.token), { userId: 5, expiresAt: new Date(START + 30 * MINUTE), admin: false });
        assert.equal(await tokens.resolve(service().generateToken()), undefined);
      });

      it('registers a given token, once', async () => {
        const { service, calls } = await setup();
        const tokens = service();
        const given = tokens.generateToken();
        const issued = await tokens.loginToken({ id: 6, account: 'bob' }, given);
        assert.equal(issued.token, given);
        assert.equal((await tokens.resolve(given))?.userId, 6);
        await assert.rejects(tokens.loginToken({ id: 7, account: 'eve' }, given), (error: unknown) => isFwError(error) && error.code === 'CONFLICT');
        assert.equal((await tokens.resolve(given))?.userId, 6, 'a second login took the token over');
        calls.length = 0;
        const bad = 'short-and-bad!!';
        await assert.rejects(tokens.loginToken({ id: 6, account: 'bob' }, bad), (error: unknown) => {
          return error instanceof TypeError && !error.message.includes(bad);
        });
        await assert.rejects(tokens.loginToken({ id: 6, account: 'bob' }, `${given}x`), TypeError);
        assert.deepEqual(calls, [], 'a malformed given token reached the store');
      });

      it('rejects malformed tokens without touching the store', async () => {
        const { service, calls } = await setup();
        const tokens = service();
        const { token } = await tokens.loginToken({ id: 1, account: 'a' });
        calls.length = 0;
        const malformed: unknown[] = [
          undefined,
          null,
          42,
          {},
          '',
          token.slice(1),
          `${token}A`,
          `${token.slice(1)}-`,
          `${token.slice(1)}é`,
          `${token.slice(1)} `,
          ` ${token.slice(1)}`,
          token.replace(/^./, 'Ａ'),
        ];
        for (const value of malformed) {
          assert.equal(await tokens.resolve(value), undefined);
          assert.equal(await tokens.revoke(value), false);
        }
        assert.deepEqual(calls, []);
      });

      it('expires tokens after expireMinutes', async () => {
        const { service, clock } = await setup();
        const tokens = service({ expireMinutes: 10 });
        const { token } = await tokens.loginToken({ id: 1, account: 'a' });
        clock.advance(10 * MINUTE - 1);
        assert.equal((await tokens.resolve(token))?.userId, 1);
        clock.advance(1);
        assert.equal(await tokens.resolve(token), undefined);
        clock.advance(MINUTE);
        assert.equal(await tokens.resolve(token), undefined);
      });

      it('revokes one token and leaves the user’s other tokens valid', async () => {
        const { service } = await setup();
        const tokens = service();
        const first = await tokens.loginToken({ id: 3, account: 'c' });
        const second = await tokens.loginToken({ id: 3, account: 'c' });
        assert.equal(await tokens.revoke(first.token), true);
        assert.equal(await tokens.revoke(first.token), false);
        assert.equal(await tokens.resolve(first.token), undefined);
        assert.equal((await tokens.resolve(second.token))?.userId, 3);
      });

      it('revokes all tokens of a user and leaves other users alone', async () => {
        const { service } = await setup();
        const tokens = service();
        const mine = await Promise.all([1, 2, 3].map(() => tokens.loginToken({ id: 10, account: 'me' })));
        const theirs = await Promise.all([1, 2].map(() => tokens.loginToken({ id: 11, account: 'them' })));
        assert.equal(await tokens.revokeUser(10), 3);
        for (const { token } of mine) assert.equal(await tokens.resolve(token), undefined);
        for (const { token } of theirs) assert.equal((await tokens.resolve(token))?.userId, 11);
        assert.equal(await tokens.revokeUser(10), 0);
      });

      it('issues a token with admin power when asked, never from user.isAdmin, and every instance sees it', async () => {
        const { service, clock, openPeer } = await setup({ sliding: true });
        const one = service();
        const two = new FwTokenService({ store: await openPeer(), expireMinutes: 10, now: clock.now, sliding: true });
        const granted = await one.loginToken({ id: 50, account: 'ldap-admin' }, undefined, { admin: true });
        const stored = await one.loginToken({ id: 51, account: 'root', isAdmin: true });
        assert.equal((await two.resolve(granted.token))?.admin, true);
        assert.equal((await two.resolve(stored.token))?.admin, false);
        // A sliding renewal rewrites the record: the flag survives it.
        clock.advance(6 * MINUTE);
        assert.equal((await two.resolve(granted.token))?.admin, true);
        assert.equal((await one.resolve(granted.token))?.expiresAt.getTime(), START + 16 * MINUTE);
        assert.equal((await one.resolve(granted.token))?.admin, true);
        await assert.rejects(async () => one.loginToken({ id: 50, account: 'x' }, undefined, { admin: 1 as never }), TypeError);
      });

      it('revokes every other token of a user, keeping the one given, on every instance', async () => {
        const { service, clock, openPeer } = await setup();
        const one = service();
        const two = new FwTokenService({ store: await openPeer(), expireMinutes: 10, now: clock.now });
        const [a, b, c] = [await one.loginToken({ id: 40, account: 'pw' }), await two.loginToken({ id: 40, account: 'pw' }), await one.loginToken({ id: 40, account: 'pw' })];
        const other = await one.loginToken({ id: 41, account: 'other' });
        assert.equal(await two.revokeUser(40, { except: b!.token }), 2);
        assert.equal(await one.resolve(a!.token), undefined);
        assert.equal(await one.resolve(c!.token), undefined);
        assert.equal((await one.resolve(b!.token))?.userId, 40);
        assert.equal((await two.resolve(other.token))?.userId, 41);
        // Keeping another user's token, or something that is not a token, keeps nothing.
        assert.equal(await one.revokeUser(40, { except: other.token }), 1);
        assert.equal(await two.resolve(b!.token), undefined);
        const d = await one.loginToken({ id: 40, account: 'pw' });
        assert.equal(await one.revokeUser(40, { except: 'not a token' }), 1);
        assert.equal(await one.resolve(d.token), undefined);
        assert.equal((await one.resolve(other.token))?.userId, 41);
      });

      it('renews a sliding token once part of its lifetime has passed, not on every call', async () => {
        const { service, clock, calls } = await setup();
        const sliding = service({ expireMinutes: 10, sliding: true, renewAfter: 0.5 });
        const fixed = service({ expireMinutes: 10, sliding: false });
        const a = await sliding.loginToken({ id: 1, account: 'a' });
        const b = await fixed.loginToken({ id: 2, account: 'b' });

        clock.advance(2 * MINUTE);
        calls.length = 0;
        assert.equal((await sliding.resolve(a.token))?.expiresAt.getTime(), START + 10 * MINUTE);
        assert.ok(!calls.includes('extend'), 'renewed before renewAfter');

        clock.advance(4 * MINUTE);
        assert.equal((await sliding.resolve(a.token))?.expiresAt.getTime(), START + 16 * MINUTE);
        assert.deepEqual(
          calls.filter((c) => c === 'extend'),
          ['extend'],
        );
        assert.equal((await fixed.resolve(b.token))?.expiresAt.getTime(), START + 10 * MINUTE);

        clock.advance(5 * MINUTE); // START + 11 min: past the original expiry
        assert.equal(await fixed.resolve(b.token), undefined);
        assert.equal((await sliding.resolve(a.token))?.userId, 1);

        clock.advance(20 * MINUTE); // idle longer than a lifetime
        assert.equal(await sliding.resolve(a.token), undefined);
      });

      it('does not bring back a revoked token through sliding renewal', async () => {
        const { service, clock, store } = await setup();
        const sliding = service({ sliding: true });
        const { token } = await sliding.loginToken({ id: 4, account: 'd' });
        clock.advance(6 * MINUTE);
        assert.equal(await store.delete(hashToken(token)), true);
        assert.equal(await sliding.resolve(token), undefined);
        assert.equal(await store.find(hashToken(token), START), undefined);
      });

      it('shares tokens between instances: issued on one, resolved and revoked on another', async () => {
        const { service, clock, openPeer } = await setup();
        const one = service();
        const two = new FwTokenService({ store: await openPeer(), expireMinutes: 10, now: clock.now });
        const a = await one.loginToken({ id: 20, account: 'x' });
        const b = await one.loginToken({ id: 20, account: 'x' });
        const c = await two.loginToken({ id: 21, account: 'y' });
        assert.equal((await two.resolve(a.token))?.userId, 20);
        assert.equal((await one.resolve(c.token))?.userId, 21);
        assert.equal(await two.revoke(a.token), true);
        assert.equal(await one.resolve(a.token), undefined);
        assert.equal(await two.revokeUser(21), 1);
        assert.equal(await one.resolve(c.token), undefined);
        assert.equal(await two.revokeUser(20), 1);
        assert.equal(await one.resolve(b.token), undefined);
      });

      it('never lets a clear token reach the storage', async () => {
        const { service, clock, store } = await setup();
        const tokens = service({ sliding: true });
        const issued = [
          (await tokens.loginToken({ id: 30, account: 'p' })).token,
          (await tokens.loginToken({ id: 31, account: 'q' }, tokens.generateToken())).token,
          (await tokens.loginToken({ id: 31, account: 'q' })).token,
        ];
        const revoked = (await tokens.loginToken({ id: 32, account: 'r' })).token;
        await tokens.revoke(revoked);
        clock.advance(6 * MINUTE);
        for (const token of issued) assert.ok(await tokens.resolve(token)); // renews: a second write
        const raw = collectStrings(await inspect(store));
        for (const token of issued) {
          assert.ok(
            raw.some((s) => s.includes(hashToken(token))),
            'the inspection does not see the stored hashes, so it proves nothing',
          );
        }
        for (const token of [...issued, revoked]) {
          const forms = [token, Buffer.from(token).toString('hex'), Buffer.from(token).toString('base64'), Buffer.from(token).toString('base64url')];
          for (const form of forms) assert.ok(!raw.some((s) => s.includes(form)), 'a clear token was found in the storage');
        }
      });
    });

    sessionConformance(setup);
  });
}
