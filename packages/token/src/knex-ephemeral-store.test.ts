import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { FwDefinitionError } from '@fw/core';
import { KnexEphemeralStore } from '@fw/token';
import { ephemeralStoreConformance } from '@fw/token/conformance';
import { describeEachSql, type SqlBackendSpec, type TestDatabase, knexConfigFor } from '@fw/test-utils';

/** A knex config for a `createTestDatabase` URL: `sqlite:<path>`, `postgres://…`, `mysql://…`, `mssql://…`. */
/**
 * The `fw_kv` table as `@fw/store`'s migration is to define it. On MySQL/MariaDB the key gets a
 * binary collation: the default utf8mb4 collations compare case-insensitively.
 */
async function createKvTable(knex: Knex, spec: SqlBackendSpec, table = 'fw_kv'): Promise<void> {
  await knex.schema.createTable(table, (t) => {
    const key = t.string('key', 191).primary();
    if (spec.dialect === 'mysql') key.collate('utf8mb4_bin');
    t.string('value', 1024).notNullable();
    t.bigInteger('expires_at').notNullable().index();
  });
}

const NOW = Date.UTC(2031, 0, 1);

describeEachSql('KnexEphemeralStore', (db: () => TestDatabase, spec: SqlBackendSpec) => {
  let knex: Knex;
  let other: Knex;

  before(async function () {
    knex = knexFactory(knexConfigFor(db().url));
    // A second pool plays the second app instance on the same database.
    other = knexFactory(knexConfigFor(db().url));
    await createKvTable(knex, spec);
  });

  after(async function () {
    await knex?.destroy();
    await other?.destroy();
  });

  ephemeralStoreConformance(
    async (now) => {
      await knex('fw_kv').del();
      return new KnexEphemeralStore({ knex, now });
    },
    {
      inspect: (store) => store.knex(store.table).select('*'),
      // Both instances read the suite's clock, as two servers kept in step by NTP would.
      peer: (store, now) => new KnexEphemeralStore({ knex: other, table: store.table, now }),
    },
  );

  describe('increment(key, ttlMs) under racing instances', () => {
    it('counts every one of many increments racing on an expired or missing key, a deadlock among them tried again', async function () {
      // Issue 19 §6's failed-sign-in flood met this on MariaDB: restarts and inserts of one key
      // racing in InnoDB deadlock now and then ("Deadlock found when trying to get lock").
      const a = new KnexEphemeralStore({ knex, now: () => NOW });
      const b = new KnexEphemeralStore({ knex: other, now: () => NOW });
      // Two keys at once, as the per-address and the global counter of a sign-in flood are.
      const n = 100;
      for (let round = 0; round < 6; round++) {
        await knex('fw_kv').del();
        const keys = [`race:${round}:ip`, `race:${round}:all`];
        if (round % 2 === 1) await knex('fw_kv').insert(keys.map((key) => ({ key, value: '7', expires_at: NOW - 1 })));
        const counts = await Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? a : b).increment(keys[i % 4 < 2 ? 0 : 1]!, 60_000)));
        for (const [k, key] of keys.entries()) {
          const mine = counts.filter((_, i) => (i % 4 < 2 ? 0 : 1) === k);
          expect(
            [...mine].sort((x, y) => x - y),
            `round ${round}, ${key}`,
          ).to.deep.equal(Array.from({ length: n / 2 }, (_, i) => i + 1));
        }
      }
    });
  });

  describe('new KnexEphemeralStore(options)', () => {
    it('rejects a missing knex, a bad table name and a bad clock at construction', () => {
      expect(() => new KnexEphemeralStore({ knex: {} as Knex }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'KnexEphemeralStore.knex');
      for (const table of ['', 'fw kv', 'x; drop table y', 'a.b.c', '1abc']) {
        expect(() => new KnexEphemeralStore({ knex, table }))
          .to.throw(FwDefinitionError)
          .with.property('key', 'KnexEphemeralStore.table');
      }
      expect(() => new KnexEphemeralStore({ knex, now: 'now' as unknown as () => number }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'KnexEphemeralStore.now');
    });

    it('defaults to the fw_kv table and uses the one named by `table`', async () => {
      expect(new KnexEphemeralStore({ knex }).table).to.equal('fw_kv');
      await createKvTable(knex, spec, 'custom_kv');
      const store = new KnexEphemeralStore({ knex, table: 'custom_kv', now: () => NOW });
      expect(await store.increment('custom', 5000)).to.equal(1);
      const rows = await knex('custom_kv').select('key', 'value', 'expires_at');
      // pg and mysql2 read bigints as strings.
      expect(rows.map((r: { key: string; value: string; expires_at: number | string }) => ({ ...r, expires_at: Number(r.expires_at) }))).to.deep.equal([
        { key: 'custom', value: '1', expires_at: NOW + 5000 },
      ]);
      expect(await knex('fw_kv').where('key', 'custom').first()).to.equal(undefined);
    });
  });

  it('reports a failed insert instead of retrying it', async () => {
    // A column the store does not fill makes the INSERT itself fail.
    await createKvTable(knex, spec, 'strict_kv');
    await knex.schema.alterTable('strict_kv', (t) => {
      t.string('device', 20).notNullable();
    });
    const store = new KnexEphemeralStore({ knex, table: 'strict_kv' });
    for (const write of [() => store.set('k', 'v', 1000), () => store.increment('k', 1000)]) {
      let caught: unknown;
      try {
        await write();
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(Error);
      expect((caught as Error).message).to.match(/device/i);
    }
  });
});
