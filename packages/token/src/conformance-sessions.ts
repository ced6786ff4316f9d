/// <reference types="mocha" />
import assert from 'node:assert/strict';
import { isFwError } from '@fw/core';
import { MINUTE, START } from './conformance-shared.js';
import { hashToken, isTokenShape } from './generate.js';
import { FwTokenService, type FwTokenServiceOptions } from './service.js';
import { isSessionId } from './sessions.js';
import type { TokenRecord, TokenSessionStore, TokenStore } from './store.js';

/** What {@link sessionConformance} needs from the suite's `setup()`. */
export interface SessionConformanceSetup {
  store: TokenStore;
  calls: string[];
  clock: { now: () => number; advance: (ms: number) => void };
  service: (extra?: Partial<FwTokenServiceOptions>) => FwTokenService;
  openPeer: () => Promise<TokenStore>;
}

function record(hash: string, userId: number, expiresAt: number, createdAt = START): TokenRecord {
  return { hash, userId, expiresAt, createdAt };
}

function fakeHash(label: string): string {
  return hashToken(`conformance-sessions:${label}`);
}

/** The session methods of a store, failing the test when one is missing. */
function sessionsOf(store: TokenStore): TokenSessionStore {
  for (const name of ['listByUser', 'touch', 'listUsers'] as const) assert.equal(typeof store[name], 'function', `the store has no ${name}()`);
  return store as TokenSessionStore;
}

/**
 * The session-listing part of the token store conformance suite (issue 19 §6): `listByUser`,
 * `touch`, `listUsers` and the service's `listSessions`, `revokeSession`, `onlineUsers` and
 * `markSeen` on top of them. Declared inside `tokenStoreConformance`.
 * @internal
 */
export function sessionConformance(setup: () => Promise<SessionConformanceSetup>): void {
  describe('sessions', () => {
    it('lists a user’s live records only, newest first, and forgets deleted and expired ones', async () => {
      const { store } = await setup();
      const s = sessionsOf(store);
      await store.save(record(fakeHash('a1'), 70, START + 10 * MINUTE, START - 3), START);
      await store.save({ ...record(fakeHash('a2'), 70, START + 20 * MINUTE, START - 1), admin: true }, START);
      await store.save(record(fakeHash('a3'), 70, START + 2 * MINUTE, START - 2), START);
      await store.save(record(fakeHash('b1'), 71, START + 10 * MINUTE), START);
      assert.deepEqual(await s.listByUser(70, START), [
        { hash: fakeHash('a2'), userId: 70, expiresAt: START + 20 * MINUTE, createdAt: START - 1, admin: true },
        { hash: fakeHash('a3'), userId: 70, expiresAt: START + 2 * MINUTE, createdAt: START - 2 },
        { hash: fakeHash('a1'), userId: 70, expiresAt: START + 10 * MINUTE, createdAt: START - 3 },
      ]);
      // Expired by the caller's clock: gone from the list.
      assert.deepEqual(
        (await s.listByUser(70, START + 2 * MINUTE)).map((r) => r.hash),
        [fakeHash('a2'), fakeHash('a1')],
      );
      assert.equal(await store.delete(fakeHash('a1')), true);
      assert.deepEqual(
        (await s.listByUser(70, START)).map((r) => r.hash),
        [fakeHash('a2'), fakeHash('a3')],
      );
      assert.equal(await store.deleteByUser(70), 2);
      assert.deepEqual(await s.listByUser(70, START), []);
      assert.deepEqual((await s.listByUser(71, START)).length, 1);
      assert.deepEqual(await s.listByUser(72, START), []);
      await assert.rejects(async () => s.listByUser(1.5, START), TypeError);
    });

    it('records "last seen" forward only, on live records only, and every instance sees it', async () => {
      const { store, openPeer } = await setup();
      const s = sessionsOf(store);
      const peer = sessionsOf(await openPeer());
      const hash = fakeHash('seen');
      await store.save(record(hash, 73, START + 10 * MINUTE), START);
      assert.equal((await s.listByUser(73, START))[0]?.lastSeenAt, undefined);
      await peer.touch(hash, START + 2 * MINUTE);
      assert.equal((await s.listByUser(73, START))[0]?.lastSeenAt, START + 2 * MINUTE);
      await s.touch(hash, START + MINUTE);
      assert.equal((await peer.listByUser(73, START))[0]?.lastSeenAt, START + 2 * MINUTE, 'touch moved last seen back');
      // Extending keeps it; an expired, deleted, unknown or malformed hash is left alone and never created.
      await store.extend(hash, START + 30 * MINUTE, START + 3 * MINUTE);
      assert.equal((await s.listByUser(73, START))[0]?.lastSeenAt, START + 2 * MINUTE);
      await s.touch(fakeHash('never'), START);
      await s.touch('not a hash', START);
      assert.equal(await store.find(fakeHash('never'), START), undefined);
      const old = fakeHash('seen-expired');
      await store.save(record(old, 73, START + MINUTE), START);
      await s.touch(old, START + MINUTE);
      assert.equal((await s.listByUser(73, START)).find((r) => r.hash === old)?.lastSeenAt, undefined, 'touch recorded use of an expired token');
      await store.delete(hash);
      await s.touch(hash, START + 4 * MINUTE);
      assert.equal(await store.find(hash, START), undefined, 'touch brought a deleted token back');
      assert.ok(!(await s.listByUser(73, START)).some((r) => r.hash === hash));
    });

    it('pages the users holding live tokens, latest expiry first, with counts and last seen', async () => {
      const { store, openPeer } = await setup();
      const s = sessionsOf(store);
      const peer = sessionsOf(await openPeer());
      await store.save(record(fakeHash('u80-1'), 80, START + 10 * MINUTE, START - 5), START);
      await store.save(record(fakeHash('u80-2'), 80, START + 30 * MINUTE, START - 4), START);
      await store.save(record(fakeHash('u81-1'), 81, START + 20 * MINUTE, START - 3), START);
      await store.save(record(fakeHash('u82-1'), 82, START + MINUTE, START - 2), START);
      await store.save(record(fakeHash('u83-1'), 83, START + 40 * MINUTE, START - 1), START);
      await s.touch(fakeHash('u80-1'), START + 30_000);
      assert.deepEqual(await peer.listUsers(START, { offset: 0, limit: 10 }), {
        total: 4,
        users: [
          { userId: 83, sessions: 1, lastSeenAt: START - 1, expiresAt: START + 40 * MINUTE },
          { userId: 80, sessions: 2, lastSeenAt: START + 30_000, expiresAt: START + 30 * MINUTE },
          { userId: 81, sessions: 1, lastSeenAt: START - 3, expiresAt: START + 20 * MINUTE },
          { userId: 82, sessions: 1, lastSeenAt: START - 2, expiresAt: START + MINUTE },
        ],
      });
      const second = await s.listUsers(START, { offset: 1, limit: 2 });
      assert.equal(second.total, 4);
      assert.deepEqual(
        second.users.map((u) => u.userId),
        [80, 81],
      );
      // Expired (82), revoked (83) and one token of two revoked (80): only live tokens count.
      await store.deleteByUser(83);
      await store.delete(fakeHash('u80-2'));
      const later = await s.listUsers(START + MINUTE, { offset: 0, limit: 10 });
      assert.deepEqual(later, {
        total: 2,
        users: [
          { userId: 81, sessions: 1, lastSeenAt: START - 3, expiresAt: START + 20 * MINUTE },
          { userId: 80, sessions: 1, lastSeenAt: START + 30_000, expiresAt: START + 10 * MINUTE },
        ],
      });
      assert.deepEqual(await s.listUsers(START + MINUTE, { offset: 5, limit: 10 }), { total: 2, users: [] });
      for (const page of [
        { offset: -1, limit: 10 },
        { offset: 0, limit: 0 },
        { offset: 0, limit: 1001 },
        { offset: 0.5, limit: 10 },
      ]) {
        await assert.rejects(async () => s.listUsers(START, page), TypeError);
      }
    });

    it('lists sessions with opaque ids, marks the current one, and ends only the owner’s, on every instance', async () => {
      const { service, clock, openPeer } = await setup();
      const one = service();
      const two = new FwTokenService({ store: await openPeer(), expireMinutes: 10, now: clock.now, seenIntervalMs: 0 });
      const a = await one.loginToken({ id: 90, account: 'ann' });
      clock.advance(1000);
      const b = await two.loginToken({ id: 90, account: 'ann' });
      const other = await one.loginToken({ id: 91, account: 'bob' });
      const sessions = await two.listSessions(90, b.token);
      assert.deepEqual(
        sessions.map((x) => [x.hash, x.current]),
        [
          [hashToken(b.token), true],
          [hashToken(a.token), false],
        ],
      );
      for (const x of sessions) {
        assert.ok(isSessionId(x.id));
        assert.equal(isTokenShape(x.id), false);
        for (const token of [a.token, b.token]) assert.ok(!hashToken(token).includes(x.id) && !x.id.includes(hashToken(token).slice(0, 8)));
      }
      assert.equal(sessions[0]?.createdAt.getTime(), START + 1000);
      assert.equal(sessions[0]?.lastSeenAt.getTime(), START + 1000);
      assert.equal(sessions[0]?.expiresAt.getTime(), START + 1000 + 10 * MINUTE);
      const [otherSession] = await one.listSessions(91);
      // Another user's session id, a malformed one, a huge one: nothing happens, all alike.
      for (const id of [otherSession!.id, 'x', `${sessions[1]!.id}0`, 'f'.repeat(10_000), hashToken(a.token), a.token, 42, null]) {
        assert.equal(await one.revokeSession(90, id), false);
      }
      assert.equal((await one.resolve(other.token))?.userId, 91);
      assert.equal(await one.revokeSession(90, sessions[1]!.id), true);
      assert.equal(await two.resolve(a.token), undefined);
      assert.equal(await one.revokeSession(90, sessions[1]!.id), false);
      assert.equal((await one.resolve(b.token))?.userId, 90);
      const online = await two.onlineUsers({ offset: 0, limit: 10 });
      assert.equal(online.total, 2);
      assert.deepEqual(
        online.users.map((u) => [u.userId, u.sessions]).sort((x, y) => x[0]! - y[0]!),
        [
          [90, 1],
          [91, 1],
        ],
      );
    });

    it('writes "last seen" at most once per interval per token, and never fails the caller', async () => {
      const { service, clock, calls, store } = await setup();
      const tokens = service({ seenIntervalMs: MINUTE });
      const { token } = await tokens.loginToken({ id: 95, account: 'eve' });
      calls.length = 0;
      for (let i = 0; i < 5; i++) await tokens.markSeen(token);
      assert.deepEqual(calls, ['touch']);
      clock.advance(MINUTE - 1);
      await tokens.markSeen(hashToken(token));
      assert.deepEqual(calls, ['touch']);
      clock.advance(1);
      await tokens.markSeen(token);
      assert.deepEqual(calls, ['touch', 'touch']);
      assert.equal((await sessionsOf(store).listByUser(95, clock.now()))[0]?.lastSeenAt, START + MINUTE);
      await tokens.markSeen('not a token');
      assert.deepEqual(calls, ['touch', 'touch']);
    });

    it('answers SESSIONS_NOT_SUPPORTED over a store written before session listing, and keeps working otherwise', async () => {
      const { store, clock } = await setup();
      const legacy: TokenStore = {
        save: (r, now) => store.save(r, now),
        find: (h, now) => store.find(h, now),
        delete: (h) => store.delete(h),
        deleteByUser: (u, k) => store.deleteByUser(u, k),
        extend: (h, e, now) => store.extend(h, e, now),
        purgeExpired: (now) => store.purgeExpired(now),
      };
      const tokens = new FwTokenService({ store: legacy, expireMinutes: 10, now: clock.now });
      assert.equal(tokens.sessionsSupported, false);
      const { token } = await tokens.loginToken({ id: 96, account: 'old' });
      assert.equal((await tokens.resolve(token))?.userId, 96);
      await tokens.markSeen(token);
      const unsupported = (error: unknown) => isFwError(error) && error.code === 'SESSIONS_NOT_SUPPORTED' && error.status === 501;
      await assert.rejects(tokens.listSessions(96), unsupported);
      await assert.rejects(tokens.revokeSession(96, 'a'.repeat(24)), unsupported);
      await assert.rejects(tokens.onlineUsers({ offset: 0, limit: 10 }), unsupported);
    });
  });
}
