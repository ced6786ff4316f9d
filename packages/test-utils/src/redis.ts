import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** A Redis client plus a key prefix no other test uses; `cleanup()` deletes every key under it. */
export interface RedisNamespace {
  redis: Redis;
  /** A second connection to the same server, as another app instance would have. */
  peer: Redis;
  prefix: string;
  cleanup(): Promise<void>;
}

// The fail-fast settings Fw's Redis stores ask for (see createRedis in @fw/token), with a command
// timeout generous enough for a busy test machine.
const CLIENT_OPTIONS = { lazyConnect: true, enableOfflineQueue: false, commandTimeout: 10_000, maxRetriesPerRequest: 2 } as const;

/** Connects to `url` and reserves a fresh key prefix. */
export async function createRedisNamespace(url: string): Promise<RedisNamespace> {
  const redis = new Redis(url, CLIENT_OPTIONS);
  await redis.connect();
  const prefix = `fw-test:${Date.now().toString(36)}${randomBytes(4).toString('hex')}:`;
  // Ready before use: without an offline queue, a command sent while connecting fails.
  const peer = new Redis(url, CLIENT_OPTIONS);
  await peer.connect();
  return {
    redis,
    peer,
    prefix,
    async cleanup() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
      peer.disconnect();
    },
  };
}

/**
 * Declares `body` inside `describe('<title> on Redis')` when `FW_TEST_REDIS_URL` is set; otherwise
 * one pending test saying it was skipped.
 */
export function describeRedis(title: string, body: (ns: () => RedisNamespace) => void): void {
  describe(`${title} on Redis`, function () {
    const url = process.env.FW_TEST_REDIS_URL;
    if (!url) {
      it('skipped: FW_TEST_REDIS_URL is not set, so the Redis suite did not run', function () {
        this.skip();
      });
      return;
    }
    let ns: RedisNamespace | undefined;
    before(async function () {
      ns = await createRedisNamespace(url);
    });
    after(async function () {
      await ns?.cleanup();
    });
    body(() => {
      if (!ns) throw new Error('the Redis namespace is not ready (before hook failed?)');
      return ns;
    });
  });
}
