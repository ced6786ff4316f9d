// Table names (`schema.table`), existence checks, DDL as text and row checks shared by the
// model-table planner.
import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';

export function splitTable(name: string): { schema: string | undefined; table: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { schema: undefined, table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

export function schemaFor(knex: Knex, name: string): { builder: Knex.SchemaBuilder; table: string } {
  const { schema, table } = splitTable(name);
  return { builder: schema === undefined ? knex.schema : knex.schema.withSchema(schema), table };
}

export function hasTable(knex: Knex, name: string): Promise<boolean> {
  const { builder, table } = schemaFor(knex, name);
  return builder.hasTable(table);
}

export async function createIfMissing(knex: Knex, name: string, build: (t: Knex.CreateTableBuilder) => void): Promise<boolean> {
  if (await hasTable(knex, name)) return false;
  const mysql = dialectOfKnex(knex) === 'mysql';
  const { builder, table } = schemaFor(knex, name);
  try {
    await builder.createTable(table, (t) => {
      if (mysql) t.charset('utf8mb4');
      build(t);
    });
    return true;
  } catch (error) {
    // Another instance created it between our check and our CREATE: that is the same outcome.
    if (await hasTable(knex, name)) return false;
    throw error;
  }
}

export function statements(sql: string): string {
  return sql
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s.length > 0)
    .map((s) => `${s};`)
    .join('\n');
}

export function createSql(knex: Knex, name: string, build: (t: Knex.CreateTableBuilder) => void): string {
  const mysql = dialectOfKnex(knex) === 'mysql';
  const { builder, table } = schemaFor(knex, name);
  return statements(
    builder
      .createTable(table, (t) => {
        if (mysql) t.charset('utf8mb4');
        build(t);
      })
      .toString(),
  );
}

export function blocksInserts(info: Knex.ColumnInfo | undefined): boolean {
  return info !== undefined && !info.nullable && (info.defaultValue === null || info.defaultValue === undefined);
}

export async function hasRows(knex: Knex, name: string, column?: string): Promise<boolean> {
  const query = knex(name).select(knex.raw('1 as present')).limit(1);
  if (column !== undefined) query.whereNotNull(column);
  return (await query).length > 0;
}
