import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { FwDefinitionError } from '@fw/core';
import { KnexTokenStore, createTokenService, hashToken } from '@fw/token';
import { tokenStoreConformance } from '@fw/token/conformance';
import { describeEachSql, type TestDatabase, knexConfigFor } from '@fw/test-utils';

/** A knex config for a `createTestDatabase` URL: `sqlite:<path>`, `postgres://…`, `mysql://…`, `mssql://…`. */
/** The token table exactly as `@fw/store`'s migration defines it. */
async function createTokenTable(knex: Knex, table = 'fw_token'): Promise<void> {
  await knex.schema.createTable(table, (t) => {
    t.specificType('token_hash', 'char(64)').primary();
    t.integer('user_id').notNullable().index();
    t.bigInteger('expires_at').notNullable().index();
    t.bigInteger('created_at').notNullable();
    t.boolean('is_admin').notNullable().defaultTo(false);
    t.bigInteger('last_seen_at').nullable();
  });
}

const NOW = Date.UTC(2031, 0, 1);

describeEachSql('KnexTokenStore', (db: () => TestDatabase) => {
  let knex: Knex;
  let other: Knex;

  before(async function () {
    knex = knexFactory(knexConfigFor(db().url));
    // A second pool plays the second app instance on the same database.
    other = knexFactory(knexConfigFor(db().url));
    await createTokenTable(knex);
  });

  after(async function () {
    await knex?.destroy();
    await other?.destroy();
  });

  tokenStoreConformance(
    async () => {
      await knex('fw_token').del();
      return new KnexTokenStore({ knex });
    },
    {
      inspect: (store) => store.knex(store.table).select('*'),
      peer: (store) => new KnexTokenStore({ knex: other, table: store.table }),
    },
  );

  describe('new KnexTokenStore(options)', () => {
    it('rejects a missing knex and a bad table name at construction', () => {
      expect(() => new KnexTokenStore({ knex: {} as Knex }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'KnexTokenStore.knex');
      for (const table of ['', 'fw token', 'x; drop table y', 'a.b.c', '1abc']) {
        expect(() => new KnexTokenStore({ knex, table }))
          .to.throw(FwDefinitionError)
          .with.property('key', 'KnexTokenStore.table');
      }
    });

    it('uses the table named by `table`', async () => {
      await createTokenTable(knex, 'custom_tokens');
      const service = createTokenService({ store: new KnexTokenStore({ knex, table: 'custom_tokens' }), now: () => NOW });
      const { token } = await service.loginToken({ id: 9, account: 'nine' });
      const rows = await knex('custom_tokens').select('token_hash', 'user_id');
      expect(rows).to.deep.equal([{ token_hash: hashToken(token), user_id: 9 }]);
      expect(await knex('fw_token').where('token_hash', hashToken(token)).first()).to.equal(undefined);
    });
  });

  it('reports a failed insert instead of calling it a duplicate', async () => {
    // A column the store does not fill makes the INSERT itself fail, after the cleanup DELETE.
    await createTokenTable(knex, 'strict_tokens');
    await knex.schema.alterTable('strict_tokens', (t) => {
      t.string('device', 20).notNullable();
    });
    const store = new KnexTokenStore({ knex, table: 'strict_tokens' });
    let caught: unknown;
    let result: boolean | undefined;
    try {
      result = await store.save({ hash: hashToken('x'), userId: 1, expiresAt: NOW + 1000, createdAt: NOW }, NOW);
    } catch (error) {
      caught = error;
    }
    expect(result).to.equal(undefined);
    expect(caught).to.be.instanceOf(Error);
    expect((caught as Error).message).to.match(/device/i);
  });
});
