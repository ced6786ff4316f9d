// Issue 19 §4: every query of a store has a time limit (queryTimeoutMs); migrations do not; an
// exhausted pool while the database answers is an overload, not an outage.
import { FwDefinitionError, isFwError, isUnavailableError } from '@fw/core';
import { describeEachSql, startTcpProxy, thrown } from '@fw/test-utils';
import { expect } from 'chai';
import { createStore, type FwStore } from './store.js';
import { DatabaseHealth, QueryTimeoutError, limitRawQueries } from './query-limit.js';

/** A statement that takes `seconds` on the server, in each dialect's words. */
function sleep(store: FwStore, seconds: number): Promise<unknown> {
  return store.dialect === 'postgres' ? store.knex.raw('SELECT pg_sleep(?)', [seconds]) : store.knex.raw('SELECT SLEEP(?)', [seconds]);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('limitRawQueries(connection, …)', function () {
  it('bounds execute as well as query, and a call the driver refuses at once leaves no timer to close the connection later', async function () {
    let destroyed = 0;
    const pending: Array<(error: Error | null, rows?: unknown) => void> = [];
    const connection: { query: (...args: unknown[]) => unknown; execute?: (...args: unknown[]) => unknown; __knex__disposed?: unknown } = {
      query: (...args: unknown[]) => {
        if (args[0] === 'refused') throw new TypeError('Bind parameters must not contain undefined');
        pending.push(args[args.length - 1] as (error: Error | null) => void);
      },
      execute: (...args: unknown[]) => {
        if (args[0] === 'refused') throw new TypeError('Bind parameters must not contain undefined');
        pending.push(args[args.length - 1] as (error: Error | null) => void);
      },
    };
    limitRawQueries(connection, 50, new DatabaseHealth(false), () => ({ destroy: () => (destroyed += 1) }), 'stream');
    for (const method of ['query', 'execute'] as const) {
      expect(() => connection[method]!('refused', [undefined], () => undefined), method).to.throw(TypeError);
    }
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(destroyed, 'connections closed after a refused call').to.equal(0);
    expect(connection.__knex__disposed).to.equal(undefined);
    // A call that never gets an answer still ends in QueryTimeoutError and a closed connection, on either method.
    for (const method of ['query', 'execute'] as const) {
      const error = await new Promise((resolve) => connection[method]!('SELECT 1', [], (e: unknown) => resolve(e)));
      expect(error, method).to.be.instanceOf(QueryTimeoutError);
    }
    expect(destroyed).to.equal(2);
  });
});

describe('createStore({ queryTimeoutMs })', function () {
  it('refuses a limit that is not a positive whole number of milliseconds', function () {
    for (const bad of [0, -1, 1.5, '5000', Number.NaN]) {
      const error = thrown(() => createStore({ url: 'sqlite::memory:', queryTimeoutMs: bad as number }), FwDefinitionError);
      expect(error.key).to.equal('store.queryTimeoutMs');
    }
  });

  it('SQLite: the busy timeout (how long a write waits for another process) is the query limit, 5000 ms by default', async function () {
    const defaults = createStore('sqlite::memory:');
    const short = createStore({ url: 'sqlite::memory:', queryTimeoutMs: 750 });
    try {
      const value = async (store: FwStore) => ((await store.knex.raw('PRAGMA busy_timeout')) as Array<Record<string, unknown>>)[0]?.['timeout'];
      expect(await value(defaults)).to.equal(5000);
      expect(await value(short)).to.equal(750);
    } finally {
      await defaults.destroy();
      await short.destroy();
    }
  });
});

describeEachSql(
  'the query limit of a server store',
  (db, spec) => {
    it('the server cancels a slow statement past queryTimeoutMs (503 UNAVAILABLE), and the connection serves the next query', async function () {
      this.timeout(20_000);
      const store = createStore({ url: db().url, queryTimeoutMs: 300, pool: { min: 0, max: 1 } });
      try {
        const started = performance.now();
        const error = await rejection(sleep(store, 3));
        expect(performance.now() - started, 'waited').to.be.below(1500);
        expect(isUnavailableError(error), String(error)).to.equal(true);
        // The server's own cancel came first: not the client's timeout, which closes the connection.
        expect(error).to.not.be.instanceOf(QueryTimeoutError);
        expect(((await store.knex.raw('SELECT 1 AS one')) as unknown) !== undefined).to.equal(true);
      } finally {
        await store.destroy();
      }
    });

    it('the client stops waiting for a server that holds the traffic, drops that connection, and recovers when it answers', async function () {
      this.timeout(30_000);
      const target = new URL(spec.serverUrl!);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || (spec.dialect === 'postgres' ? 5432 : 3306)));
      const store = createStore({ url: proxy.via(db().url), queryTimeoutMs: 500, pool: { min: 0, max: 3 } });
      try {
        // Three connections open before the hold (the three calls below each find one).
        const pause = spec.dialect === 'postgres' ? 'SELECT pg_sleep(0.1)' : 'SELECT SLEEP(0.1)';
        await Promise.all([store.knex.raw(pause), store.knex.raw(pause), store.knex.raw(pause)]);
        await proxy.hold();
        const started = performance.now();
        const errors = await Promise.all([
          rejection(store.knex.raw('SELECT 1')),
          rejection(store.knex.transaction(async (trx) => trx.raw('SELECT 2'))),
          // The token lookup skips knex: a prepared statement (pg's named query, mysql2's execute).
          rejection(store.sessions.lookup('0'.repeat(64), Date.now())),
        ]);
        expect(performance.now() - started, 'waited').to.be.below(3000);
        for (const error of errors) expect(isUnavailableError(error), String(error)).to.equal(true);
        expect(errors[0]).to.be.instanceOf(QueryTimeoutError);
        expect(errors[2]).to.be.instanceOf(QueryTimeoutError);
        await proxy.up();
        const again = (await store.knex.raw('SELECT 7 AS seven')) as unknown;
        expect(JSON.stringify(again)).to.contain('7');
      } finally {
        await store.destroy();
        await proxy.close();
      }
    });

    it('migrations and model tables run without the limit (their own connection)', async function () {
      this.timeout(60_000);
      // One millisecond would cancel nearly every DDL statement, on the server and on the client.
      const store = createStore({ url: db().url, queryTimeoutMs: 1 });
      try {
        await store.migrate.latest();
        expect((await store.migrate.status()).pending).to.deep.equal([]);
        // ... while the store's own queries are held to it.
        expect(isUnavailableError(await rejection(sleep(store, 0.5)))).to.equal(true);
      } finally {
        await store.migrate.rollback();
        await store.destroy();
      }
    });

    it('a pool-acquire timeout while the database answers is 503 OVERLOADED, not UNAVAILABLE', async function () {
      this.timeout(20_000);
      const store = createStore({ url: db().url, acquireTimeoutMs: 300, pool: { min: 0, max: 1 } });
      try {
        // The one connection is busy with a stream of quick, answered queries.
        const busy = store.knex.transaction(async (trx) => {
          for (let i = 0; i < 12; i++) await trx.raw(spec.dialect === 'postgres' ? 'SELECT pg_sleep(0.05)' : 'SELECT SLEEP(0.05)');
        });
        const error = await rejection(store.knex.raw('SELECT 1'));
        expect(isFwError(error) && error.code, String(error)).to.equal('OVERLOADED');
        expect(isFwError(error) && error.headers?.['Retry-After']).to.match(/^\d+$/);
        await busy;
      } finally {
        await store.destroy();
      }
    });
  },
  ['postgres', 'mysql'],
);
