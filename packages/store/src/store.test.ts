import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { FwDefinitionError, isUnavailableError } from '@fw/core';
import { expect } from 'chai';
import { thrown } from '@fw/test-utils';
import knexFactory, { type Knex } from 'knex';
import { createStore } from './store.js';

function setup(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fw-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function definitionError(fn: () => unknown): FwDefinitionError {
  return thrown(fn, FwDefinitionError);
}

async function pragma(knex: Knex | Knex.Transaction, name: string): Promise<unknown> {
  const rows: Array<Record<string, unknown>> = await knex.raw(`PRAGMA ${name}`);
  return rows[0]?.[name];
}

describe('createStore(urlOrOptions)', function () {
  it('creates the parent directory of a SQLite file and opens it in WAL mode with foreign keys on', async function () {
    const { dir, cleanup } = setup();
    const file = join(dir, 'nested', 'deeper', 'fw.db');
    const store = createStore(`sqlite:${file}`);
    try {
      expect(existsSync(join(dir, 'nested', 'deeper'))).to.equal(true);
      expect(store.dialect).to.equal('sqlite');
      expect(await pragma(store.knex, 'journal_mode')).to.equal('wal');
      expect(await pragma(store.knex, 'foreign_keys')).to.equal(1);
      expect(existsSync(file)).to.equal(true);
    } finally {
      await store.destroy();
      cleanup();
    }
  });

  it('turns foreign keys on for every pooled connection, not only the first', async function () {
    const { dir, cleanup } = setup();
    const store = createStore({ url: `sqlite:${join(dir, 'fw.db')}`, pool: { min: 2, max: 2 } });
    try {
      // Two open transactions hold two distinct connections at once.
      const first = await store.knex.transaction();
      const second = await store.knex.transaction();
      expect([await pragma(first, 'foreign_keys'), await pragma(second, 'foreign_keys')]).to.deep.equal([1, 1]);
      await first.rollback();
      await second.rollback();
    } finally {
      await store.destroy();
      cleanup();
    }
  });

  it('keeps one in-memory database for the life of the store', async function () {
    const store = createStore('sqlite::memory:');
    try {
      await store.knex.schema.createTable('probe', (t) => t.integer('n'));
      await store.knex('probe').insert({ n: 7 });
      expect(await store.knex('probe').pluck('n')).to.deep.equal([7]);
      expect(await pragma(store.knex, 'foreign_keys')).to.equal(1);
    } finally {
      await store.destroy();
    }
  });

  it('gives two in-memory stores two separate databases', async function () {
    const a = createStore('sqlite::memory:');
    const b = createStore('sqlite::memory:');
    try {
      await a.migrate.latest();
      expect((await a.migrate.status()).pending).to.deep.equal([]);
      expect((await b.migrate.status()).applied).to.deep.equal([]);
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
    }
  });

  it('uses a host-owned knex and leaves it open on destroy()', async function () {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    try {
      const store = createStore({ knex });
      expect(store.knex).to.equal(knex);
      expect(store.dialect).to.equal('sqlite');
      await store.migrate.latest();
      await store.destroy();
      // Still usable: the store did not close the host's pool.
      expect(await knex('fw_user').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    } finally {
      await knex.destroy();
    }
  });

  it('reports the dialect of each supported URL without connecting', async function () {
    const stores = [createStore('postgres://app:pw@127.0.0.1:1/fw'), createStore('mariadb://app:pw@127.0.0.1:1/fw'), createStore('mssql://sa:pw@127.0.0.1:1/fw?encrypt=false')];
    try {
      expect(stores.map((s) => s.dialect)).to.deep.equal(['postgres', 'mysql', 'mssql']);
    } finally {
      await Promise.all(stores.map((s) => s.destroy()));
    }
  });

  it('throws a start-up error naming store.url for a bad URL, without the password', function () {
    const error = definitionError(() => createStore('oracle://scott:tiger@db/orcl'));
    expect(error.key).to.equal('store.url');
    expect(error.message).to.include('oracle:').and.not.include('tiger');
    expect(definitionError(() => createStore({ url: 'nonsense' })).key).to.equal('store.url');
  });

  it('checks pool bounds and debug at start-up', function () {
    expect(definitionError(() => createStore({ url: 'sqlite::memory:', pool: { max: 2 } })).key).to.equal('store.pool.max');
    expect(definitionError(() => createStore({ url: 'postgres://a@db/fw', pool: { min: 5, max: 2 } })).key).to.equal('store.pool.min');
    expect(definitionError(() => createStore({ url: 'postgres://a@db/fw', pool: { max: 0 } })).key).to.equal('store.pool.max');
    expect(definitionError(() => createStore({ url: 'postgres://a@db/fw', pool: { min: -1 } })).key).to.equal('store.pool.min');
    const options: { url: string; debug: unknown } = { url: 'sqlite::memory:', debug: 'yes' };
    expect(definitionError(() => createStore(options as Parameters<typeof createStore>[0])).key).to.equal('store.debug');
  });

  it('checks the connect and acquire timeouts at start-up', function () {
    expect(definitionError(() => createStore({ url: 'postgres://a@db/fw', connectTimeoutMs: 0 })).key).to.equal('store.connectTimeoutMs');
    expect(definitionError(() => createStore({ url: 'postgres://a@db/fw', acquireTimeoutMs: 1.5 })).key).to.equal('store.acquireTimeoutMs');
    const options: { url: string; connectTimeoutMs: unknown } = { url: 'postgres://a@db/fw', connectTimeoutMs: '2s' };
    expect(definitionError(() => createStore(options as Parameters<typeof createStore>[0])).key).to.equal('store.connectTimeoutMs');
  });

  // Issue 10 §5: a server that accepts the connection and then never answers (a host gone behind
  // a routed address) must fail the query in seconds, not after the drivers' 10 s or knex's 60 s.
  for (const [scheme, dialect] of [
    ['postgres', 'pg'],
    ['mysql', 'mysql2'],
  ] as const) {
    it(`fails fast, as an outage, when a ${dialect} server never answers (connectTimeoutMs, defaults)`, async function () {
      const silent = createServer((socket) => socket.on('error', () => undefined));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      const store = createStore(`${scheme}://app:pw@127.0.0.1:${port}/fw`);
      try {
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 8_000)));
        const outcome = await Promise.race([
          store.knex.raw('select 1').then(
            () => 'answered',
            (error: unknown) => error,
          ),
          bound,
        ]);
        clearTimeout(timer);
        expect(outcome).to.be.instanceOf(Error);
        expect(isUnavailableError(outcome), String(outcome)).to.equal(true);
      } finally {
        await store.destroy();
        silent.close();
      }
    });
  }

  it('refuses a knex client it does not support', async function () {
    const knex = knexFactory({ client: 'oracledb' });
    try {
      expect(definitionError(() => createStore({ knex })).key).to.equal('store.knex');
    } finally {
      await knex.destroy();
    }
  });
});
