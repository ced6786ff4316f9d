import { expect } from 'chai';
import { FwDefinitionError } from '@fw/core';
import { MemoryTokenStore, hashToken } from '@fw/token';
import { tokenStoreConformance } from '@fw/token/conformance';

const NOW = Date.UTC(2031, 0, 1);
const MINUTE = 60_000;

function rec(label: string, userId: number, expiresAt: number) {
  return { hash: hashToken(label), userId, expiresAt, createdAt: NOW };
}

describe('MemoryTokenStore', () => {
  tokenStoreConformance(() => new MemoryTokenStore());

  describe('new MemoryTokenStore(options)', () => {
    it('defaults to 100,000 entries', () => {
      expect(new MemoryTokenStore().maxEntries).to.equal(100_000);
    });

    it('rejects a bad maxEntries at construction, naming the option', () => {
      for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '10']) {
        expect(() => new MemoryTokenStore({ maxEntries: bad as number }))
          .to.throw(FwDefinitionError)
          .with.property('key', 'MemoryTokenStore.maxEntries');
      }
    });

    it('leaves the caller’s options object as it was', () => {
      const options = Object.freeze({ maxEntries: 5 });
      expect(new MemoryTokenStore(options).maxEntries).to.equal(5);
      expect(options).to.deep.equal({ maxEntries: 5 });
    });
  });

  describe('bounded size', () => {
    it('evicts the entries that expire soonest when full', async () => {
      const store = new MemoryTokenStore({ maxEntries: 3 });
      await store.save(rec('late', 1, NOW + 30 * MINUTE), NOW);
      await store.save(rec('soon', 1, NOW + 5 * MINUTE), NOW);
      await store.save(rec('middle', 2, NOW + 20 * MINUTE), NOW);
      await store.save(rec('new', 3, NOW + 10 * MINUTE), NOW);
      expect(store.size).to.equal(3);
      expect(await store.find(hashToken('soon'), NOW)).to.equal(undefined);
      for (const kept of ['late', 'middle', 'new']) expect(await store.find(hashToken(kept), NOW)).to.not.equal(undefined);
      // The evicted record left the per-user index too.
      expect(await store.deleteByUser(1)).to.equal(1);
    });

    it('evicts by the extended expiry, not the original one', async () => {
      const store = new MemoryTokenStore({ maxEntries: 2 });
      await store.save(rec('a', 1, NOW + 5 * MINUTE), NOW);
      await store.save(rec('b', 1, NOW + 10 * MINUTE), NOW);
      expect(await store.extend(hashToken('a'), NOW + 60 * MINUTE, NOW)).to.equal(true);
      await store.save(rec('c', 1, NOW + 20 * MINUTE), NOW);
      expect(await store.find(hashToken('a'), NOW)).to.not.equal(undefined);
      expect(await store.find(hashToken('b'), NOW)).to.equal(undefined);
    });

    it('evicts the oldest first among equal expiries', async () => {
      const store = new MemoryTokenStore({ maxEntries: 2 });
      await store.save(rec('first', 1, NOW + MINUTE), NOW);
      await store.save(rec('second', 1, NOW + MINUTE), NOW);
      await store.save(rec('third', 1, NOW + MINUTE), NOW);
      expect(await store.find(hashToken('first'), NOW)).to.equal(undefined);
      expect(await store.find(hashToken('second'), NOW)).to.not.equal(undefined);
    });

    it('stays within maxEntries under a long stream of logins, renewals and logouts', async () => {
      const store = new MemoryTokenStore({ maxEntries: 500 });
      for (let i = 0; i < 20_000; i++) {
        const now = NOW + i;
        await store.save(rec(`t${i}`, i % 50, now + MINUTE + (i % 997)), now);
        if (i % 3 === 0) await store.extend(hashToken(`t${i - 1}`), now + 2 * MINUTE, now);
        if (i % 7 === 0) await store.delete(hashToken(`t${i - 2}`));
        expect(store.size).to.be.at.most(500);
      }
      // The lazily-cleaned expiry heap is bounded too (rebuilt past twice the live count).
      // It is held in three parallel arrays (expiry, write version, hash), always of one length.
      const lengths = ['heapExpiry', 'heapVersion', 'heapHash'].map((name) => (Reflect.get(store, name) as unknown[]).length);
      expect(new Set(lengths).size).to.equal(1);
      expect(lengths[0]).to.be.at.most(2 * 500 + 1024 + 1);
    });
  });

  it('forgets users whose tokens are all gone (the per-user index does not grow)', async () => {
    const store = new MemoryTokenStore();
    for (let user = 0; user < 100; user++) await store.save(rec(`u${user}`, user, NOW + MINUTE), NOW);
    expect(await store.purgeExpired(NOW + MINUTE)).to.equal(100);
    await store.save(rec('x', 1, NOW + 3 * MINUTE), NOW + 2 * MINUTE);
    await store.delete(hashToken('x'));
    const byUser = Reflect.get(store, 'byUser') as Map<number, Set<string>>;
    expect(byUser.size).to.equal(0);
    expect(store.size).to.equal(0);
  });
});
