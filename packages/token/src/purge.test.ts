import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { FwDefinitionError } from '@fw/core';
import { MemoryEphemeralStore, schedulePurge, type Purgeable } from '@fw/token';

/** A target that counts its purges. */
function counter(result = 1): Purgeable & { calls: number } {
  const target = {
    calls: 0,
    async purgeExpired() {
      target.calls += 1;
      return result;
    },
  };
  return target;
}

/** Resolves once `condition` holds, checking every few milliseconds (the test's own timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

describe('schedulePurge(targets, options)', () => {
  it('purges every target on each interval, skips targets without purgeExpired, and keeps going after an error', async () => {
    const a = counter();
    const errors: unknown[] = [];
    const failing = {
      async purgeExpired(): Promise<number> {
        throw new Error('database is down');
      },
    };
    const b = counter();
    const purge = schedulePurge([a, {}, failing, b], { intervalMs: 10, onError: (e) => errors.push(e) });
    try {
      await until(() => a.calls >= 3 && b.calls >= 3);
      expect(errors.length).to.be.at.least(3);
      expect(String(errors[0])).to.contain('database is down');
    } finally {
      purge.stop();
    }
  });

  it('stops for good on stop()', async () => {
    const a = counter();
    const purge = schedulePurge([a], { intervalMs: 10 });
    await until(() => a.calls >= 1);
    expect(purge.active).to.equal(true);
    purge.stop();
    purge.stop();
    expect(purge.active).to.equal(false);
    const after = a.calls;
    await sleep(100); // ten intervals: a live timer would have purged again
    expect(a.calls).to.equal(after);
  });

  it('never overlaps two runs, and run() purges at once', async () => {
    let release!: () => void;
    let calls = 0;
    const slow = {
      purgeExpired: () => {
        calls += 1;
        return new Promise<number>((resolve) => (release = () => resolve(2)));
      },
    };
    const purge = schedulePurge([slow], { intervalMs: 86_400_000 });
    try {
      const first = purge.run();
      expect(await purge.run()).to.equal(0);
      expect(calls).to.equal(1);
      release();
      expect(await first).to.equal(2);
      const second = purge.run();
      release();
      expect(await second).to.equal(2);
      expect(calls).to.equal(2);
    } finally {
      purge.stop();
    }
  });

  it('removes expired entries of a real ephemeral store', async () => {
    const clock = { now: Date.UTC(2031, 0, 1) };
    const store = new MemoryEphemeralStore({ now: () => clock.now });
    await store.set('captcha:old', 'abcd', 1000);
    await store.set('captcha:new', 'efgh', 60_000);
    clock.now += 5000;
    const purge = schedulePurge([store], { intervalMs: 86_400_000 });
    try {
      expect(await purge.run()).to.equal(1);
      expect(await store.get('captcha:new')).to.equal('efgh');
    } finally {
      purge.stop();
    }
  });

  it('refuses a bad interval at once', () => {
    for (const intervalMs of [0, -1, 1.5, 86_400_001, Number.NaN]) expect(() => schedulePurge([], { intervalMs })).to.throw(FwDefinitionError, /intervalMs/);
  });
});
