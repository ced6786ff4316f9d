/// <reference types="mocha" />
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MINUTE, START, collectStrings } from './conformance-shared.js';
import { EPHEMERAL_KEY_MAX, EPHEMERAL_VALUE_MAX, type EphemeralStore } from './ephemeral-store.js';

/** Backend hooks for {@link ephemeralStoreConformance}. */
export interface EphemeralStoreConformanceOptions<S extends EphemeralStore = EphemeralStore> {
  /**
   * The store keeps time by itself and ignores the clock `makeStore` is given (Redis): the expiry
   * tests then use lifetimes of a few hundred milliseconds and really wait (under a second in
   * all), with a little slack on `ttl`, and check through `inspect` that expired entries leave
   * the backend by themselves.
   * @default false
   */
  realTime?: boolean;
  /**
   * Everything the backend holds for `store`, raw (table rows, Redis keys and values, …), in any
   * shape; every string in it is searched. Used to check that purged or expired entries are gone
   * from the backend, not just hidden.
   * @default the store object itself, walked property by property (right for in-process stores)
   */
  inspect?: (store: S) => unknown;
  /**
   * A second store over the same storage, opened the way another app instance would (its own
   * connection), reading time from `now` like the first. The concurrency tests split their calls
   * between the two.
   * @default the same store object
   */
  peer?: (store: S, now: () => number) => EphemeralStore | Promise<EphemeralStore>;
  /** Called after each test with every store `makeStore` and `peer` returned for it. */
  dispose?: (stores: EphemeralStore[]) => void | Promise<void>;
}

/**
 * Declares a mocha suite that checks an {@link EphemeralStore} implementation: every method's
 * contract, expiry (by the injected clock, or by short real lifetimes with `realTime`), the fixed
 * window of `increment`, input checks, two instances sharing the storage, 50 concurrent
 * increments from two instances counting exactly, and concurrent takes of one value giving it to
 * exactly one caller. Call it inside a `describe` of a mocha test file, once per backend.
 *
 * @param makeStore returns a new, empty store for each test (a fresh instance, a truncated
 * table, a new key prefix, …) that reads time from `now` when it can.
 * @example
 * describe('MyEphemeralStore', () => {
 *   ephemeralStoreConformance((now) => new MyEphemeralStore({ now }), { inspect: (store) => store.dumpAll() });
 * });
 */
export function ephemeralStoreConformance<S extends EphemeralStore>(makeStore: (now: () => number) => S | Promise<S>, options: EphemeralStoreConformanceOptions<S> = {}): void {
  const { realTime = false, inspect = (store: S): unknown => store, peer, dispose } = options;
  // Redis rounds and its clock is not ours: `ttl` may be this much below the exact figure.
  const slack = realTime ? 100 : 0;
  // With real time, how much longer than asked the test's waits took since setup (a busy machine
  // sleeps late): a ttl may be that much lower too, never higher.
  let late = 0;
  let opened: EphemeralStore[] = [];

  async function setup() {
    let t = START;
    late = 0;
    const now = realTime ? Date.now : () => t;
    const store = await makeStore(now);
    opened.push(store);
    /** Lets `ms` pass: on the injected clock at once, else for real. */
    const wait = async (ms: number): Promise<void> => {
      if (realTime) {
        const started = Date.now();
        await sleep(ms);
        late += Math.max(0, Date.now() - started - ms);
      } else t += ms;
    };
    const openPeer = async (): Promise<EphemeralStore> => {
      if (!peer) return store;
      const other = await peer(store, now);
      opened.push(other);
      return other;
    };
    return { store, wait, openPeer };
  }

  /** Asserts a `ttl` answer of `expected` ms, or up to `slack` (and what the waits overslept) less. */
  function assertTtl(actual: number | undefined, expected: number): void {
    if (typeof actual !== 'number') assert.fail(`ttl is ${String(actual)}, expected about ${expected}`);
    const low = expected - slack - late;
    assert.ok(actual <= expected && actual >= low, `ttl is ${actual}, expected ${low < expected ? `${low}–` : ''}${expected}`);
  }

  async function rawStrings(store: S): Promise<string[]> {
    return collectStrings(await inspect(store));
  }

  describe('EphemeralStore conformance', function () {
    this.timeout(60_000);

    afterEach(async function () {
      const stores = opened;
      opened = [];
      if (dispose) await dispose(stores);
    });

    describe('values', () => {
      it('gets what set stored, exactly, and nothing for an unknown key', async () => {
        const { store } = await setup();
        const longKey = `k${'~'.repeat(EPHEMERAL_KEY_MAX - 1)}`;
        const samples: Array<[string, string]> = [
          ['captcha:Ab3_x-9', 'q7k2'],
          ['empty', ''],
          ['unicode', 'é€😀 and spaces  '],
          ['number-like', '007'],
          ['long', 'é'.repeat(EPHEMERAL_VALUE_MAX)],
          [longKey, 'at the longest key'],
        ];
        for (const [key, value] of samples) await store.set(key, value, MINUTE);
        for (const [key, value] of samples) assert.equal(await store.get(key), value, `value of ${key.slice(0, 20)}`);
        assert.equal(await store.get('unknown'), undefined);
      });

      it('treats keys as exact strings: case and every character count', async () => {
        const { store } = await setup();
        await store.set('Case:Key', 'upper', MINUTE);
        await store.set('case:key', 'lower', MINUTE);
        await store.set('a%', 'percent', MINUTE);
        assert.equal(await store.get('Case:Key'), 'upper');
        assert.equal(await store.get('case:key'), 'lower');
        assert.equal(await store.get('CASE:KEY'), undefined);
        assert.equal(await store.get('ab'), undefined);
        assert.equal(await store.get('a_'), undefined);
        assert.equal(await store.increment('Count', MINUTE), 1);
        assert.equal(await store.increment('count', MINUTE), 1);
        await store.delete('case:key');
        assert.equal(await store.get('Case:Key'), 'upper');
      });

      it('overwrites the value and the expiry on set, longer or shorter', async () => {
        const { store } = await setup();
        await store.set('over', 'first', 5 * MINUTE);
        await store.set('over', 'second', MINUTE);
        assert.equal(await store.get('over'), 'second');
        assertTtl(await store.ttl('over'), MINUTE);
        await store.set('over', 'third', 10 * MINUTE);
        assertTtl(await store.ttl('over'), 10 * MINUTE);
        // set overwrites a counter like any other value.
        await store.increment('counter', MINUTE);
        await store.set('counter', 'plain', 2 * MINUTE);
        assert.equal(await store.get('counter'), 'plain');
        assertTtl(await store.ttl('counter'), 2 * MINUTE);
      });

      it('takes a value once: returned, then gone', async () => {
        const { store } = await setup();
        await store.set('captcha:one', 'answer', MINUTE);
        assert.equal(await store.take('captcha:one'), 'answer');
        assert.equal(await store.take('captcha:one'), undefined);
        assert.equal(await store.get('captcha:one'), undefined);
        assert.equal(await store.ttl('captcha:one'), undefined);
        assert.equal(await store.take('never-set'), undefined);
        await store.set('captcha:one', 'again', MINUTE);
        assert.equal(await store.take('captcha:one'), 'again');
      });

      it('deletes one key and leaves the others; deleting an unknown key is no error', async () => {
        const { store } = await setup();
        await store.set('del:a', 'a', MINUTE);
        await store.set('del:b', 'b', MINUTE);
        await store.increment('del:n', MINUTE);
        await store.increment('del:n', MINUTE);
        await store.delete('del:a');
        await store.delete('del:n');
        await store.delete('del:unknown');
        assert.equal(await store.get('del:a'), undefined);
        assert.equal(await store.ttl('del:a'), undefined);
        assert.equal(await store.get('del:b'), 'b');
        // A deleted counter starts over.
        assert.equal(await store.increment('del:n', MINUTE), 1);
      });

      it('rejects malformed keys, values and lifetimes, and stores nothing', async () => {
        const { store } = await setup();
        const badKeys: unknown[] = ['', 'x'.repeat(EPHEMERAL_KEY_MAX + 1), 'with space', 'tab\there', 'trailing ', 'é', 'line\n', 5, undefined, null];
        for (const key of badKeys) {
          const k = key as string;
          const label = JSON.stringify(key);
          await assert.rejects(async () => store.get(k), TypeError, `get(${label})`);
          await assert.rejects(async () => store.set(k, 'v', MINUTE), TypeError, `set(${label})`);
          await assert.rejects(async () => store.increment(k, MINUTE), TypeError, `increment(${label})`);
          await assert.rejects(async () => store.take(k), TypeError, `take(${label})`);
          await assert.rejects(async () => store.delete(k), TypeError, `delete(${label})`);
          await assert.rejects(async () => store.ttl(k), TypeError, `ttl(${label})`);
        }
        const badValues: unknown[] = ['x'.repeat(EPHEMERAL_VALUE_MAX + 1), 'nul\0inside', 'half \uD83D pair', 42, undefined, { toString: () => 'v' }];
        for (const value of badValues) await assert.rejects(async () => store.set('bad-value', value as string, MINUTE), TypeError, JSON.stringify(value));
        for (const ttl of [1.5, Number.NaN, Infinity, '1000', undefined]) {
          await assert.rejects(async () => store.set('bad-ttl', 'v', ttl as number), TypeError, `set ttl ${String(ttl)}`);
          await assert.rejects(async () => store.increment('bad-ttl', ttl as number), TypeError, `increment ttl ${String(ttl)}`);
        }
        for (const ttl of [0, -1]) {
          await assert.rejects(async () => store.set('bad-ttl', 'v', ttl), RangeError, `set ttl ${ttl}`);
          await assert.rejects(async () => store.increment('bad-ttl', ttl), RangeError, `increment ttl ${ttl}`);
        }
        assert.equal(await store.get('bad-value'), undefined);
        assert.equal(await store.get('bad-ttl'), undefined);
      });
    });

    describe('increment', () => {
      it('counts from 1 and reads back as a decimal string', async () => {
        const { store } = await setup();
        assert.equal(await store.increment('fails', MINUTE), 1);
        assert.equal(await store.increment('fails', MINUTE), 2);
        assert.equal(await store.increment('fails', MINUTE), 3);
        assert.equal(await store.get('fails'), '3');
        assert.equal(await store.increment('other', MINUTE), 1);
      });

      it('keeps a fixed window from the first increment, then starts a new one', async () => {
        const { store, wait, openPeer } = await setup();
        const other = await openPeer();
        assert.equal(await store.increment('window', 300), 1);
        assertTtl(await store.ttl('window'), 300);
        await wait(150);
        // A later increment with a longer lifetime still does not move the window's end.
        assert.equal(await store.increment('window', 10 * MINUTE), 2);
        assertTtl(await store.ttl('window'), 150);
        assert.equal(await store.get('window'), '2');
        await wait(200);
        assert.equal(await store.get('window'), undefined);
        // The window is over: concurrent increments on both instances restart it exactly once.
        const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : other).increment('window', 300)));
        assert.deepEqual(
          [...counts].sort((a, b) => a - b),
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        assertTtl(await store.ttl('window'), 300);
        assert.equal(await other.get('window'), '20');
      });

      it('continues a count written by set and keeps its expiry', async () => {
        const { store } = await setup();
        await store.set('preset', '41', MINUTE);
        assert.equal(await store.increment('preset', 60 * MINUTE), 42);
        assert.equal(await store.get('preset'), '42');
        assertTtl(await store.ttl('preset'), MINUTE);
      });

      it('counts exactly under 50 concurrent increments from two instances', async () => {
        const { store, openPeer } = await setup();
        const other = await openPeer();
        // A key nobody has written yet: the first increments also race to create it.
        const counts = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? store : other).increment('race', MINUTE)));
        assert.deepEqual(
          [...counts].sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => i + 1),
          'every caller must get its own count',
        );
        assert.equal(await store.get('race'), '50');
        assert.equal(await other.get('race'), '50');
        assertTtl(await other.ttl('race'), MINUTE);
      });
    });

    describe('take under concurrency', () => {
      it('gives each value to exactly one of two concurrent takes on two instances', async () => {
        const { store, openPeer } = await setup();
        const other = await openPeer();
        const keys = Array.from({ length: 20 }, (_, i) => `captcha:race-${i}`);
        await Promise.all(keys.map((key, i) => store.set(key, `answer-${i}`, MINUTE)));
        const taken = await Promise.all(keys.flatMap((key) => [store.take(key), other.take(key)]));
        keys.forEach((key, i) => {
          const pair = [taken[2 * i], taken[2 * i + 1]];
          assert.deepEqual(
            pair.filter((v) => v !== undefined),
            [`answer-${i}`],
            `${key}: takes returned ${JSON.stringify(pair)}`,
          );
        });
        for (const key of keys) assert.equal(await other.get(key), undefined);
      });
    });

    describe('expiry', () => {
      it('hides an entry from every method once its lifetime is over', async () => {
        const { store, wait } = await setup();
        await store.set('exp:get', 'a', 300);
        await store.set('exp:take', 'b', 300);
        await store.increment('exp:count', 300);
        await store.increment('exp:count', 300);
        await wait(150);
        assert.equal(await store.get('exp:get'), 'a');
        assertTtl(await store.ttl('exp:get'), 150);
        if (!realTime) {
          // The boundary, by the injected clock: live 1 ms before the expiry, gone at it.
          await wait(149);
          assert.equal(await store.get('exp:get'), 'a');
          assert.equal(await store.ttl('exp:get'), 1);
          await wait(1);
          assert.equal(await store.get('exp:get'), undefined);
        }
        await wait(200);
        assert.equal(await store.get('exp:get'), undefined);
        assert.equal(await store.ttl('exp:get'), undefined);
        assert.equal(await store.take('exp:take'), undefined);
        assert.equal(await store.get('exp:count'), undefined);
        assert.equal(await store.ttl('exp:count'), undefined);
        // An expired counter starts over with a window of its own.
        assert.equal(await store.increment('exp:count', MINUTE), 1);
        assertTtl(await store.ttl('exp:count'), MINUTE);
        if (realTime) {
          const raw = await rawStrings(store);
          assert.ok(
            raw.some((s) => s.includes('exp:count')),
            'the inspection does not see live entries, so it proves nothing',
          );
          assert.ok(!raw.some((s) => s.includes('exp:get') || s.includes('exp:take')), 'the backend still holds an expired entry');
        }
      });

      it('purges expired entries from the backend, or drops them by itself', async () => {
        const { store, wait } = await setup();
        if (!store.purgeExpired) {
          assert.ok(realTime, 'a store without purgeExpired must expire entries by itself (realTime)');
          return;
        }
        await store.set('purge:a', 'a', 100);
        await store.increment('purge:b', 100);
        await store.set('purge:c', 'c', 300);
        await wait(100);
        assert.equal(await store.purgeExpired(), 2);
        assert.equal(await store.purgeExpired(), 0);
        assert.equal(await store.get('purge:c'), 'c');
        const raw = await rawStrings(store);
        assert.ok(
          raw.some((s) => s.includes('purge:c')),
          'the inspection does not see live entries, so it proves nothing',
        );
        assert.ok(!raw.some((s) => s.includes('purge:a') || s.includes('purge:b')), 'a purged entry is still in the backend');
      });
    });

    describe('several instances', () => {
      it('sees every write of another instance at once', async () => {
        const { store, openPeer } = await setup();
        const other = await openPeer();
        await store.set('shared:v', 'from one', MINUTE);
        assert.equal(await other.get('shared:v'), 'from one');
        assertTtl(await other.ttl('shared:v'), MINUTE);
        assert.equal(await other.increment('shared:n', MINUTE), 1);
        assert.equal(await store.increment('shared:n', MINUTE), 2);
        await other.delete('shared:n');
        assert.equal(await store.get('shared:n'), undefined);
        assert.equal(await other.take('shared:v'), 'from one');
        assert.equal(await store.take('shared:v'), undefined);
      });
    });
  });
}
