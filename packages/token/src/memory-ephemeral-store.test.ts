import { expect } from 'chai';
import { FwDefinitionError } from '@fw/core';
import { MemoryEphemeralStore } from '@fw/token';
import { ephemeralStoreConformance } from '@fw/token/conformance';

const NOW = Date.UTC(2031, 0, 1);
const MINUTE = 60_000;

/** A store of `maxEntries` on a clock the test moves. */
function setup(maxEntries?: number) {
  let t = NOW;
  const store = new MemoryEphemeralStore({ now: () => t, ...(maxEntries === undefined ? {} : { maxEntries }) });
  return { store, advance: (ms: number) => void (t += ms) };
}

describe('MemoryEphemeralStore', () => {
  ephemeralStoreConformance((now) => new MemoryEphemeralStore({ now }));

  describe('new MemoryEphemeralStore(options)', () => {
    it('defaults to 100,000 entries and the wall clock', async () => {
      const store = new MemoryEphemeralStore();
      expect(store.maxEntries).to.equal(100_000);
      await store.set('k', 'v', MINUTE);
      expect(await store.ttl('k')).to.be.within(MINUTE - 1000, MINUTE);
    });

    it('rejects a bad maxEntries or clock at construction, naming the option', () => {
      for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '10']) {
        expect(() => new MemoryEphemeralStore({ maxEntries: bad as number }))
          .to.throw(FwDefinitionError)
          .with.property('key', 'MemoryEphemeralStore.maxEntries');
      }
      expect(() => new MemoryEphemeralStore({ now: 5 as unknown as () => number }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'MemoryEphemeralStore.now');
      expect(() => new MemoryEphemeralStore(null as unknown as object))
        .to.throw(FwDefinitionError)
        .with.property('key', 'MemoryEphemeralStore');
    });

    it('leaves the caller’s options object as it was', () => {
      const options = Object.freeze({ maxEntries: 5 });
      expect(new MemoryEphemeralStore(options).maxEntries).to.equal(5);
      expect(options).to.deep.equal({ maxEntries: 5 });
    });

    it('refuses a broken clock when it is read', async () => {
      const store = new MemoryEphemeralStore({ now: () => Number.NaN });
      let caught: unknown;
      try {
        await store.get('k');
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(TypeError);
    });
  });

  describe('bounded size', () => {
    it('evicts the entries that expire soonest when a new key arrives at a full store', async () => {
      const { store } = setup(3);
      await store.set('late', 'l', 30 * MINUTE);
      await store.increment('soon', 5 * MINUTE);
      await store.set('middle', 'm', 20 * MINUTE);
      await store.set('new', 'n', 10 * MINUTE);
      expect(store.size).to.equal(3);
      expect(await store.get('soon')).to.equal(undefined);
      for (const kept of ['late', 'middle', 'new']) expect(await store.get(kept)).to.be.a('string');
    });

    it('drops expired entries before live ones', async () => {
      const { store, advance } = setup(2);
      await store.set('short', 's', MINUTE);
      await store.set('long', 'l', 60 * MINUTE);
      advance(2 * MINUTE);
      await store.set('fresh', 'f', 5 * MINUTE); // expires before 'long', but 'short' is already over
      expect(await store.get('long')).to.equal('l');
      expect(await store.get('fresh')).to.equal('f');
      expect(store.size).to.equal(2);
    });

    it('evicts by the current expiry of an overwritten key, the oldest write first on a tie', async () => {
      const { store } = setup(2);
      await store.set('a', '1', 5 * MINUTE);
      await store.set('b', '1', 10 * MINUTE);
      await store.set('a', '2', 60 * MINUTE); // an overwrite: no eviction, and 'a' now expires last
      expect(store.size).to.equal(2);
      await store.set('c', '1', 20 * MINUTE);
      expect(await store.get('a')).to.equal('2');
      expect(await store.get('b')).to.equal(undefined);

      const tie = setup(2).store;
      await tie.set('first', '1', MINUTE);
      await tie.set('second', '1', MINUTE);
      await tie.set('third', '1', MINUTE);
      expect(await tie.get('first')).to.equal(undefined);
      expect(await tie.get('second')).to.equal('1');
    });

    it('stays within maxEntries, heap included, under a long stream of counters, values and takes', async () => {
      const { store, advance } = setup(500);
      for (let i = 0; i < 20_000; i++) {
        advance(1);
        await store.increment(`ip:${i % 3000}`, MINUTE + (i % 997));
        if (i % 3 === 0) await store.set(`captcha:${i}`, 'x', 2 * MINUTE);
        if (i % 7 === 0) await store.take(`captcha:${i - 3}`);
        if (i % 11 === 0) await store.set(`ip:${i % 3000}`, '1', MINUTE); // overwrites leave stale heap entries
        expect(store.size).to.be.at.most(500);
      }
      // The lazily-cleaned expiry heap is rebuilt once stale entries outnumber live ones.
      const heap = Reflect.get(store, 'heap') as { length: number };
      expect(heap.length).to.be.at.most(2 * 500 + 1024 + 1);
    });
  });
});
