/// <reference types="mocha" />
// Shared by the token tests (not built): revoke-all against concurrent saves, run on a single Redis and on a Redis Cluster.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { RedisTokenStore, type FwRedisClient, type TokenRecord } from '@fw/token';

const MINUTE = 60_000;

function hash(): string {
  return randomBytes(32).toString('hex');
}

function record(userId: number, now: number): TokenRecord {
  return { hash: hash(), userId, createdAt: now, expiresAt: now + 30 * MINUTE };
}

/**
 * A client whose token writes (the last step of a save or a renewal) wait until `release()`: a
 * save caught between registering its hash with the user and writing its token, or a renewal
 * between raising the set entry and extending the token, as on a slow instance.
 */
function holdingWrites(redis: FwRedisClient, tokenPrefix: string): { client: FwRedisClient; held: () => number; release: () => void } {
  let open: () => void = () => undefined;
  let gate: Promise<void> | undefined = new Promise<void>((resolve) => (open = resolve));
  let waiting = 0;
  const client = new Proxy(redis, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'evalsha' && property !== 'eval') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Array<string | number>) => {
        // The token step of a save or a renewal: one key, a token key, three arguments.
        if (gate && args[1] === 1 && String(args[2]).startsWith(tokenPrefix) && args.length === 6) {
          waiting += 1;
          await gate;
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return {
    client,
    held: () => waiting,
    release() {
      gate = undefined;
      open();
    },
  };
}

/**
 * The revoke-all rule, tested on the stores `open(prefix)` returns (each its own connection, as
 * separate app instances): a token whose save had returned when `deleteByUser` was called is
 * gone on every instance once it resolves; a token saved after it resolved stays valid; a save
 * running meanwhile ends the same on every instance and stays that way.
 */
export function revokeRaceTests(open: () => { a: FwRedisClient; b: FwRedisClient; c: FwRedisClient; prefix: () => string }): void {
  describe('revoke-all while other instances save tokens of the same user', () => {
    it('kills every token saved before the call, keeps every token saved after it, and settles each overlapping one for good', async function () {
      this.timeout(30_000);
      const { a, b, c, prefix } = open();
      const p = prefix();
      const revoker = new RedisTokenStore({ redis: a, prefix: p });
      const savers = [new RedisTokenStore({ redis: b, prefix: p }), new RedisTokenStore({ redis: c, prefix: p })];
      const readers = [revoker, ...savers];
      const userId = 42;
      let overlapping = 0;
      for (let round = 0; round < 6; round++) {
        const before: string[] = [];
        const during: string[] = [];
        const after: string[] = [];
        let phase: 'before' | 'revoking' | 'after' = 'before';
        let stop = false;
        const loops = savers.map(async (store) => {
          while (!stop) {
            const startedIn = phase;
            const r = record(userId, Date.now());
            expect(await store.save(r, Date.now())).to.equal(true);
            // Sorted by what the caller can know: returned before the revoke was called, called
            // after it returned, or overlapping it.
            if (startedIn === 'after') after.push(r.hash);
            else if (phase === 'before') before.push(r.hash);
            else during.push(r.hash);
          }
        });
        while (before.length < 10) await new Promise((resolve) => setImmediate(resolve));
        phase = 'revoking';
        const removed = await revoker.deleteByUser(userId);
        phase = 'after';
        while (after.length < 10) await new Promise((resolve) => setImmediate(resolve));
        stop = true;
        await Promise.all(loops);
        expect(removed).to.be.at.least(before.length);
        const now = Date.now();
        for (const h of before) for (const store of readers) expect(await store.find(h, now), 'a token saved before revoke-all survived').to.equal(undefined);
        for (const h of after) for (const store of readers) expect((await store.find(h, now))?.userId, 'a token saved after revoke-all is not valid').to.equal(userId);
        const first = new Map<string, boolean>();
        for (const h of during) {
          const seen = await Promise.all(readers.map(async (store) => (await store.find(h, now)) !== undefined));
          expect(new Set(seen).size, 'instances disagree on an overlapping token').to.equal(1);
          first.set(h, seen[0]!);
        }
        overlapping += during.length;
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (const [h, alive] of first) expect((await revoker.find(h, Date.now())) !== undefined, 'an overlapping token changed state after the revoke').to.equal(alive);
        // A second revoke-all reaches every token still alive: none fell out of the user's index
        // (which also gives the next round a clean user).
        await revoker.deleteByUser(userId);
        for (const h of [...during, ...after]) expect(await savers[0]!.find(h, Date.now()), 'a token escaped the user index').to.equal(undefined);
      }
      // Six rounds of two busy savers always overlap the revoke somewhere; if not, the test did
      // not exercise what it claims to.
      expect(overlapping).to.be.greaterThan(0);
    });

    it('revokes a save caught between registering its hash and writing its token, and a renewal caught halfway', async () => {
      const { a, b, prefix } = open();
      const p = prefix();
      const slow = holdingWrites(b, `${p}token:`);
      const slowStore = new RedisTokenStore({ redis: slow.client, prefix: p });
      const revoker = new RedisTokenStore({ redis: a, prefix: p });
      const now = Date.now();
      const r = record(7, now);
      const saving = slowStore.save(r, now);
      while (slow.held() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      // Registered but not written: revoke-all sees the hash and leaves a tombstone.
      expect(await revoker.deleteByUser(7)).to.equal(0);
      slow.release();
      expect(await saving).to.equal(true);
      expect(await revoker.find(r.hash, now)).to.equal(undefined);
      expect(await slowStore.find(r.hash, now)).to.equal(undefined);
      expect(await revoker.extend(r.hash, now + 60 * MINUTE, now)).to.equal(false);
      // A sliding renewal caught between raising the set entry and extending the token loses too.
      const renewed = record(7, now);
      expect(await revoker.save(renewed, now)).to.equal(true);
      const slowRenew = holdingWrites(b, `${p}token:`);
      const extending = new RedisTokenStore({ redis: slowRenew.client, prefix: p }).extend(renewed.hash, now + 60 * MINUTE, now);
      while (slowRenew.held() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await revoker.deleteByUser(7)).to.equal(1);
      slowRenew.release();
      expect(await extending).to.equal(false);
      expect(await revoker.find(renewed.hash, now)).to.equal(undefined);
      // A new login of the same user afterwards is valid.
      const fresh = record(7, now);
      expect(await revoker.save(fresh, now)).to.equal(true);
      expect((await slowStore.find(fresh.hash, now))?.userId).to.equal(7);
    });
  });
}
