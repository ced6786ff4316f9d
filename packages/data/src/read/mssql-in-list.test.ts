import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { createRegistry, defineModel, type ConditionNode } from '@fw/core';
import { createStore } from '@fw/store';
import { DEFAULT_QUERY_LIMITS, MAX_CONDITION_VALUES, applyConditions, applyStoredConditions, slotConditions, storedConditions } from './query.js';
import { RowReader } from './rows.js';

// Red-team leftovers §2: SQL Server takes at most 2,100 parameters in one statement, and a table
// query may carry 10,000 in / notIn values (MAX_CONDITION_VALUES). No SQL Server runs here, so the
// SQL is compiled by knex's real mssql dialect and its bindings counted.
const Item = defineModel({
  name: 'Item',
  table: 'ms_item',
  fields: {
    code: {},
    qty: { edit: { type: 'NUMBER', integer: true } },
    price: { edit: { type: 'NUMBER' } },
    due: { edit: { type: 'DATE' } },
    at: { edit: { type: 'DATETIME' } },
    done: { edit: { type: 'BOOLEAN' } },
  },
});

const SQL_SERVER_PARAMETERS = 2100;

const clients = (): Record<string, Knex> => Object.fromEntries(['mssql', 'pg', 'better-sqlite3', 'mysql2'].map((client) => [client, knexFactory({ client, useNullAsDefault: true })]));

function compiled(knex: Knex, conditions: ConditionNode[]): { sql: string; bindings: readonly unknown[] } {
  return applyConditions(knex('ms_item').select('id'), Item, conditions).toSQL();
}

const numbers = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);
const texts = (n: number) => Array.from({ length: n }, (_, i) => `c-${i}'"]`);

/**
 * A knex on the real `mssql` client with the wire cut (as in @fw/store's mssql.test.ts): every
 * statement is compiled by the SQL Server dialect, recorded, and answered with no rows.
 */
function recordingMssql(): { knex: Knex; sent: Array<{ sql: string; bindings: readonly unknown[] }> } {
  const sent: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  const probe = knexFactory({ client: 'mssql' });
  const MssqlClient = probe.client.constructor as typeof Knex.Client;
  void probe.destroy();
  const connection = { inTransaction: false, state: { name: 'LoggedIn' } };
  class RecordingMssqlClient extends MssqlClient {
    override acquireConnection(): Promise<unknown> {
      return Promise.resolve(connection);
    }
    override releaseConnection(): Promise<void> {
      return Promise.resolve();
    }
    _query(_connection: unknown, query: { sql: string; bindings?: unknown[]; response?: unknown }): Promise<unknown> {
      sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
      query.response = [];
      return Promise.resolve(query);
    }
    processResponse(query: { method?: string; response?: unknown; output?: (this: unknown, response: unknown) => unknown }, runner: unknown): unknown {
      if (typeof query.output === 'function') return query.output.call(runner, query.response);
      return query.method === 'first' ? undefined : query.response;
    }
  }
  return { knex: knexFactory({ client: RecordingMssqlClient, connection: { server: 'nowhere', database: 'fw' } }), sent };
}

describe('in / notIn lists on SQL Server (compiled)', () => {
  it('sends a list of 10,000 numbers or texts as one JSON parameter, under 2,100 bindings', () => {
    const { mssql } = clients();
    const id = compiled(mssql!, [{ field: 'id', op: 'in', value: numbers(MAX_CONDITION_VALUES) }]);
    expect(id.bindings.length).to.be.below(SQL_SERVER_PARAMETERS);
    expect(id.bindings).to.have.length(1);
    expect(id.sql).to.equal('select [id] from [ms_item] where [ms_item].[id] IN (SELECT CAST([value] AS bigint) FROM OPENJSON(?))');
    expect(JSON.parse(String(id.bindings[0]))).to.deep.equal(numbers(MAX_CONDITION_VALUES));

    const code = compiled(mssql!, [{ field: 'code', op: 'notIn', value: texts(MAX_CONDITION_VALUES) }]);
    expect(code.bindings).to.have.length(1);
    expect(code.sql).to.equal('select [id] from [ms_item] where ([ms_item].[code] NOT IN (SELECT CAST([value] AS nvarchar(max)) FROM OPENJSON(?)) OR [ms_item].[code] IS NULL)');
    // Quotes and brackets travel inside the JSON text, never in the SQL.
    expect(JSON.parse(String(code.bindings[0]))).to.deep.equal(texts(MAX_CONDITION_VALUES));
  });

  it('casts each kind of field to its column type', () => {
    const { mssql } = clients();
    const cases: Array<[ConditionNode, string, unknown[]]> = [
      [{ field: 'qty', op: 'in', value: numbers(40) }, 'CAST([value] AS bigint)', numbers(40)],
      [{ field: 'price', op: 'in', value: numbers(40).map((n) => n + 0.5) }, 'CAST([value] AS float)', numbers(40).map((n) => n + 0.5)],
      [{ field: 'due', op: 'in', value: numbers(40).map((n) => `2026-01-${String((n % 28) + 1).padStart(2, '0')}`) }, 'CAST([value] AS date)', numbers(40).map((n) => `2026-01-${String((n % 28) + 1).padStart(2, '0')}`)],
      [{ field: 'at', op: 'in', value: numbers(40).map((n) => new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString()) }, 'CAST(CAST([value] AS datetimeoffset) AS datetime2)', numbers(40).map((n) => new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString())],
      [{ field: 'done', op: 'notIn', value: Array.from({ length: 40 }, (_, i) => i % 2 === 0) }, 'CAST([value] AS bit)', Array.from({ length: 40 }, (_, i) => i % 2 === 0)],
    ];
    for (const [condition, cast, values] of cases) {
      const { sql, bindings } = compiled(mssql!, [condition]);
      expect(sql, JSON.stringify(condition)).to.include(`(SELECT ${cast} FROM OPENJSON(?))`);
      expect(bindings).to.have.length(1);
      expect(JSON.parse(String(bindings[0]))).to.deep.equal(values);
    }
  });

  it('keeps a short list inline, and every other dialect unchanged', () => {
    const all = clients();
    const short = compiled(all.mssql!, [{ field: 'id', op: 'in', value: [1, 2, 3] }]);
    expect(short.sql).to.equal('select [id] from [ms_item] where [ms_item].[id] in (?, ?, ?)');
    expect(short.bindings).to.deep.equal([1, 2, 3]);
    for (const client of ['pg', 'better-sqlite3', 'mysql2']) {
      const { sql, bindings } = compiled(all[client]!, [{ field: 'id', op: 'in', value: numbers(1000) }]);
      expect(bindings, client).to.have.length(1000);
      expect(sql, client).to.not.include('OPENJSON');
    }
  });

  it('stays under the bound for a whole tree: groups, ten lists of a thousand, and the other conditions', () => {
    const { mssql } = clients();
    const lists: ConditionNode[] = Array.from({ length: 10 }, (_, i) => ({ field: i % 2 ? 'code' : 'qty', op: i % 3 ? 'in' : 'notIn', value: i % 2 ? texts(1000) : numbers(1000, i * 1000) }) as ConditionNode);
    const tree: ConditionNode[] = [{ or: lists.slice(0, 5) }, { and: [{ or: lists.slice(5) }, { field: 'price', op: 'between', value: [1, 2] }] }, ...Array.from({ length: 30 }, () => ({ field: 'qty', op: 'in' as const, value: numbers(16) }))];
    const { sql, bindings } = compiled(mssql!, tree);
    expect(bindings.length).to.be.below(SQL_SERVER_PARAMETERS);
    expect(sql.match(/OPENJSON/g)).to.have.length(10);
  });

  it('a table page of 10,000 in / notIn values through RowReader (page plan and count) sends no statement of 2,100 bindings', async () => {
    const { knex, sent } = recordingMssql();
    const store = createStore({ knex });
    try {
      const reader = new RowReader({ store, registry: createRegistry([Item]), limits: { ...DEFAULT_QUERY_LIMITS, maxInValues: 5000 } });
      const actor = { user: { id: 1, account: 'admin', isAdmin: true }, ip: null, source: 'http' as const };
      const conditions = [{ field: 'id', op: 'in', value: numbers(5000) }, { or: [{ field: 'code', op: 'notIn', value: texts(5000) }, { field: 'qty', op: 'isNull' }] }];
      const page = await reader.page(Item, actor, { conditions, size: 20, count: 'exact' });
      expect(page.rows).to.deep.equal([]);
      const reads = sent.filter((s) => s.sql.includes('[ms_item]'));
      expect(reads.length).to.be.greaterThan(0);
      for (const s of reads) {
        expect(s.bindings.length, s.sql.slice(0, 120)).to.be.below(SQL_SERVER_PARAMETERS);
        expect(s.sql.match(/OPENJSON\(@p\d+\)/g), s.sql.slice(0, 120)).to.have.length(2);
      }
      // The same shape again reuses the plan and binds the new values.
      sent.length = 0;
      await reader.page(Item, actor, { conditions: [{ field: 'id', op: 'in', value: numbers(5000, 7) }, conditions[1]], size: 20, count: 'none' });
      const again = sent.find((s) => s.sql.includes('[ms_item]'))!;
      expect(JSON.parse(String(again.bindings.find((b) => typeof b === 'string' && b.startsWith('[7,'))))).to.deep.equal(numbers(5000, 7));
    } finally {
      await store.destroy();
    }
  });

  it('compiled once with slots (the page plans of rows.ts), the JSON list takes one slot', () => {
    const { mssql, pg } = clients();
    const conditions: ConditionNode[] = [{ field: 'id', op: 'in', value: numbers(5000) }, { field: 'code', op: 'in', value: ['a', 'b'] }];
    const values: unknown[] = [];
    const slotted = slotConditions(storedConditions(Item, conditions, 'mssql'), (v) => (values.push(v), `slot-${values.length - 1}`));
    const { sql, bindings } = applyStoredConditions(mssql!('ms_item').select('id'), Item, slotted).toSQL();
    expect(bindings).to.deep.equal(['slot-0', 'slot-1', 'slot-2']);
    expect(sql).to.include('[ms_item].[id] IN (SELECT CAST([value] AS bigint) FROM OPENJSON(?))');
    expect(JSON.parse(String(values[0]))).to.deep.equal(numbers(5000));
    expect(values.slice(1)).to.deep.equal(['a', 'b']);
    // Without the dialect (PostgreSQL, SQLite, MariaDB) a value per slot, as before.
    const plain: unknown[] = [];
    const slottedPlain = slotConditions(storedConditions(Item, conditions, 'postgres'), (v) => (plain.push(v), `slot-${plain.length - 1}`));
    expect(applyStoredConditions(pg!('ms_item').select('id'), Item, slottedPlain).toSQL().bindings).to.have.length(5002);
  });
});
