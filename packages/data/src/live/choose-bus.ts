import type { FwStore } from '@fw/store';
import type { FwRedisClient } from '@fw/token';
import { memoryBus, type LiveBus } from './bus.js';
import { pgBus } from './pg-bus.js';
import { redisBus } from './redis-bus.js';

export interface LiveBusChoice {
  /** The application's Redis client or Cluster, when it has one. */
  redis?: FwRedisClient;
  /** Put before the Redis channel's name. Default `fw:`. */
  redisPrefix?: string;
  store: FwStore;
  onError?: (error: Error) => void;
}

/**
 * The bus that reaches every instance of the application with what it already runs: Redis (one
 * server or a Cluster) when it has one, PostgreSQL LISTEN/NOTIFY when that is its database and
 * there is no Redis, otherwise the process alone (SQLite, MariaDB or SQL Server without Redis:
 * one instance, or instances that do not see each other's changes live).
 */
export function liveBusFor(choice: LiveBusChoice): LiveBus {
  const onError = choice.onError ? { onError: choice.onError } : {};
  if (choice.redis) return redisBus({ client: choice.redis, ...(choice.redisPrefix === undefined ? {} : { prefix: choice.redisPrefix }), ...onError });
  if (choice.store.dialect === 'postgres') return pgBus({ knex: choice.store.knex, ...onError });
  return memoryBus();
}
