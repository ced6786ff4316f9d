import type { FwRedisClient } from '@fw/token';
import type { Knex } from 'knex';
import { FwDefinitionError } from '@fw/core';
import { warnOnRedisOutageRisks } from '@fw/token';

/**
 * A server-side session store in the shape koa-session's `store` option takes. The cookie then
 * holds only a random session id; grant's exchange state (state, PKCE verifier, the provider's
 * response) stays on the server, where it fits and where every instance sharing the store sees it.
 */
export interface FwSessionStore {
  get(key: string, maxAge: number | 'session' | undefined, options?: unknown): Promise<Record<string, unknown> | undefined>;
  set(key: string, session: Record<string, unknown>, maxAge: number | 'session' | undefined, options?: unknown): Promise<void>;
  destroy(key: string, options?: unknown): Promise<void>;
}

/** Lifetime of a session whose cookie lives "for the browser session": a day on the server. */
const SESSION_TTL = 24 * 60 * 60 * 1000;

function ttlOf(maxAge: number | 'session' | undefined): number {
  return typeof maxAge === 'number' && Number.isFinite(maxAge) && maxAge > 0 ? maxAge : SESSION_TTL;
}

/** Sessions in this process only (one instance, tests); bounded, oldest evicted first. */
export class MemorySessionStore implements FwSessionStore {
  readonly #entries = new Map<string, { json: string; expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    const max = options.maxEntries ?? 10_000;
    if (!Number.isInteger(max) || max < 1) throw new FwDefinitionError('MemorySessionStore.maxEntries', 'must be a positive whole number');
    this.#maxEntries = max;
    this.#now = options.now ?? Date.now;
  }

  async get(key: string, _maxAge?: number | 'session'): Promise<Record<string, unknown> | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return JSON.parse(entry.json) as Record<string, unknown>;
  }

  async set(key: string, session: Record<string, unknown>, maxAge: number | 'session' | undefined): Promise<void> {
    this.#entries.delete(key);
    // Maps keep insertion order: the first key is the least recently written.
    while (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { json: JSON.stringify(session), expiresAt: this.#now() + ttlOf(maxAge) });
  }

  async destroy(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  /** How many sessions are held. */
  get size(): number {
    return this.#entries.size;
  }
}

/** Sessions in the `fw_session` table (migration `0008_session` of @fw/store), shared by every instance on the database. */
export class KnexSessionStore implements FwSessionStore {
  readonly #knex: Knex;
  readonly #table: string;
  readonly #now: () => number;
  #writes = 0;

  constructor(options: { knex: Knex; table?: string; now?: () => number }) {
    if (!options?.knex) throw new FwDefinitionError('KnexSessionStore.knex', 'a knex instance is required');
    const table = options.table ?? 'fw_session';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new FwDefinitionError('KnexSessionStore.table', 'must be an identifier');
    this.#knex = options.knex;
    this.#table = table;
    this.#now = options.now ?? Date.now;
  }

  async get(key: string, _maxAge?: number | 'session'): Promise<Record<string, unknown> | undefined> {
    const row: { data: string } | undefined = await this.#knex(this.#table).where('id', key).andWhere('expires_at', '>', this.#now()).first('data');
    return row ? (JSON.parse(row.data) as Record<string, unknown>) : undefined;
  }

  async set(key: string, session: Record<string, unknown>, maxAge: number | 'session' | undefined): Promise<void> {
    const row = { data: JSON.stringify(session), expires_at: this.#now() + ttlOf(maxAge) };
    // Expired rows are swept now and then by the writers themselves: no scheduler to forget.
    this.#writes += 1;
    if (this.#writes % 200 === 0) void this.purgeExpired().catch(() => undefined);
    const updated = await this.#knex(this.#table).where('id', key).update(row);
    if (updated > 0) return;
    try {
      await this.#knex(this.#table).insert({ id: key, ...row });
    } catch {
      // Another request of the same browser inserted first: write over it.
      await this.#knex(this.#table).where('id', key).update(row);
    }
  }

  async destroy(key: string): Promise<void> {
    await this.#knex(this.#table).where('id', key).delete();
  }

  /** Deletes expired sessions; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.#knex(this.#table).where('expires_at', '<=', this.#now()).delete();
  }
}

/** Sessions in Redis (`<prefix>sess:<id>`, expiring on their own), shared by every instance. */
export class RedisSessionStore implements FwSessionStore {
  readonly #redis: FwRedisClient;
  readonly #prefix: string;

  constructor(options: { redis: FwRedisClient; prefix?: string }) {
    if (!options?.redis) throw new FwDefinitionError('RedisSessionStore.redis', 'an ioredis client is required');
    warnOnRedisOutageRisks(options.redis, 'RedisSessionStore');
    this.#redis = options.redis;
    this.#prefix = options.prefix ?? 'fw:';
  }

  async get(key: string, _maxAge?: number | 'session'): Promise<Record<string, unknown> | undefined> {
    const json = await this.#redis.get(`${this.#prefix}sess:${key}`);
    return json === null ? undefined : (JSON.parse(json) as Record<string, unknown>);
  }

  async set(key: string, session: Record<string, unknown>, maxAge: number | 'session' | undefined): Promise<void> {
    await this.#redis.set(`${this.#prefix}sess:${key}`, JSON.stringify(session), 'PX', ttlOf(maxAge));
  }

  async destroy(key: string): Promise<void> {
    await this.#redis.del(`${this.#prefix}sess:${key}`);
  }
}
