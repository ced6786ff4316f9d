import { expect } from 'chai';
import { Redis } from 'ioredis';
import { FwDefinitionError } from '@fw/core';
import { thrown } from '@fw/test-utils';
import { FW_REDIS_DEFAULTS, createRedis, fwRedisRetryStrategy, redisOutageRisks } from './redis-client.js';
import { RedisEphemeralStore } from './redis-ephemeral-store.js';
import { RedisTokenStore } from './redis-store.js';

/** The FW_REDIS_CLIENT warnings emitted while `fn` runs. */
async function warningsDuring(fn: () => void): Promise<string[]> {
  const seen: string[] = [];
  const listener = (warning: Error & { code?: string }) => {
    if (warning.code === 'FW_REDIS_CLIENT') seen.push(warning.message);
  };
  process.on('warning', listener);
  try {
    fn();
    // process.emitWarning delivers on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

describe('createRedis(url, options)', () => {
  it('starts from the fail-fast settings: no offline queue, a command timeout, reconnecting forever; options win', () => {
    const redis = createRedis('redis://127.0.0.1:1/2', { lazyConnect: true, commandTimeout: 250 });
    try {
      expect(redis.options).to.include({ enableOfflineQueue: false, commandTimeout: 250, connectTimeout: FW_REDIS_DEFAULTS.connectTimeout, db: 2, port: 1 });
      expect(redisOutageRisks(redis)).to.deep.equal([]);
      // Never gives up (a number, not null), and never waits more than a second between tries.
      const delays = [1, 2, 5, 10, 1000, 1e6].map((times) => redis.options.retryStrategy!(times));
      expect(delays.every((d) => typeof d === 'number' && d > 0 && d <= 1000)).to.equal(true);
      expect(fwRedisRetryStrategy(1)).to.be.below(fwRedisRetryStrategy(4));
    } finally {
      redis.disconnect();
    }
  });

  it('refuses anything but a redis:// or rediss:// URL, without showing its password', () => {
    const error = thrown(() => createRedis('http://user:s3cret@cache:6379'), FwDefinitionError);
    expect(error.key).to.equal('createRedis.url');
    expect(error.message).to.not.contain('s3cret');
    expect(thrown(() => createRedis(undefined as unknown as string), FwDefinitionError).key).to.equal('createRedis.url');
  });
});

describe('Redis stores and their client settings', () => {
  it('warn once per client whose offline queue or missing command timeout would hang requests through an outage', async () => {
    const queuing = new Redis({ lazyConnect: true });
    const safe = createRedis('redis://127.0.0.1:1', { lazyConnect: true });
    try {
      expect(redisOutageRisks(queuing)).to.have.length(2);
      const warnings = await warningsDuring(() => {
        new RedisTokenStore({ redis: queuing });
        new RedisEphemeralStore({ redis: queuing });
        new RedisTokenStore({ redis: safe });
        new RedisEphemeralStore({ redis: safe });
      });
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(/^RedisTokenStore: .*enableOfflineQueue.*commandTimeout.*createRedis\(url\)/);
    } finally {
      queuing.disconnect();
      safe.disconnect();
    }
  });
});
