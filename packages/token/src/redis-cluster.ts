import { createRequire } from 'node:module';
import { FwDefinitionError } from '@fw/core';
import type { Cluster } from 'ioredis';
import { FW_REDIS_DEFAULTS, fwRedisRetryStrategy, type FwRedisClient } from './redis-client.js';

const requireCjs = createRequire(import.meta.url);

const NODE_URL = /^(rediss?):\/\/(?:([^:@/\s]*)(?::([^@/\s]*))?@)?([^:/\s@]+|\[[0-9a-fA-F:]+\]):(\d{1,5})\/?$/i;

function redact(url: unknown): string {
  return typeof url === 'string' ? JSON.stringify(url.replace(/\/\/[^@/]*@/, '//***@')) : typeof url;
}

/** One node of {@link parseRedisClusterNodes}. */
export interface RedisClusterNode {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
}

/**
 * The nodes of `redis://[user:password@]host:port` (or `rediss://`) URLs, checked the way
 * {@link createRedisCluster} checks them; for start-up code that validates before connecting.
 * @throws {FwDefinitionError} key `createRedisCluster.nodes` for an empty list, a URL of another
 * shape (passwords are not shown) or URLs that disagree on scheme, user or password.
 */
export function parseRedisClusterNodes(nodes: readonly string[]): RedisClusterNode[] {
  if (!Array.isArray(nodes) || nodes.length === 0) throw new FwDefinitionError('createRedisCluster.nodes', 'must be a non-empty array of redis:// URLs');
  const parsed = nodes.map((url: unknown): RedisClusterNode => {
    const match = typeof url === 'string' ? NODE_URL.exec(url) : null;
    if (!match) throw new FwDefinitionError('createRedisCluster.nodes', `each must be redis://[user:password@]host:port or rediss://…, got ${redact(url)}`);
    const [, scheme = '', username, password, host = '', port = ''] = match;
    return {
      tls: scheme.toLowerCase() === 'rediss',
      username: username ? decodeURIComponent(username) : undefined,
      password: password ? decodeURIComponent(password) : undefined,
      host: host.replace(/^\[|\]$/g, ''),
      port: Number(port),
    };
  });
  const first = parsed[0]!;
  if (parsed.some((node) => node.tls !== first.tls || node.username !== first.username || node.password !== first.password)) {
    throw new FwDefinitionError('createRedisCluster.nodes', 'every URL must use the same scheme, user and password');
  }
  return parsed;
}

/**
 * An ioredis `Cluster` for Fw's Redis stores, with the fail-fast settings of
 * {@link FW_REDIS_DEFAULTS} (no offline queue, a one-second command timeout, reconnecting
 * forever) under your `options` (any ioredis `ClusterOptions`; yours win). Every node URL names
 * one master or replica the client starts from; it discovers the rest from the cluster. The
 * credentials and TLS (`rediss://`) of the URLs apply to every node, so they must agree.
 *
 * @param nodes `redis://[user:password@]host:port` (or `rediss://`) of one or more cluster nodes.
 * @throws {FwDefinitionError} key `createRedisCluster.nodes` for an empty list, a URL of another
 * shape (passwords are not shown) or URLs that disagree on credentials or TLS.
 * @example
 * const redis = createRedisCluster(['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379', 'redis://10.0.0.3:6379']);
 * const store = new RedisTokenStore({ redis, prefix: 'myapp:' });
 */
export function createRedisCluster(nodes: readonly string[], options: Record<string, unknown> = {}): FwRedisClient {
  if (typeof options !== 'object' || options === null) throw new FwDefinitionError('createRedisCluster.options', 'must be an object of ioredis ClusterOptions');
  const parsed = parseRedisClusterNodes(nodes);
  const first = parsed[0]!;
  const { retryStrategy: _perNode, enableOfflineQueue, ...perNode } = FW_REDIS_DEFAULTS;
  const yours = options as { redisOptions?: Record<string, unknown> };
  const redisOptions: Record<string, unknown> = { ...perNode, ...yours.redisOptions };
  if (first.username) redisOptions.username = first.username;
  if (first.password) redisOptions.password = first.password;
  if (first.tls) redisOptions.tls = { ...(redisOptions.tls as object | undefined) };
  // Loaded here, not imported: ioredis is an optional peer of @fw/token.
  const { Cluster: ClusterClient } = requireCjs('ioredis') as { Cluster: new (nodes: object[], options: object) => Cluster };
  const cluster: FwRedisClient = new ClusterClient(
    parsed.map(({ host, port }) => ({ host, port })),
    { enableOfflineQueue, clusterRetryStrategy: fwRedisRetryStrategy, ...options, redisOptions },
  );
  return cluster;
}
