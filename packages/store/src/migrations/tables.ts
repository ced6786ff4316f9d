// The tables the built-in migrations create, and the column and table builders they share, so a
// column means the same on every dialect (datetimes with milliseconds, MySQL's utf8mb4 and
// unsigned keys, long text).
import type { Knex } from 'knex';
import { dialectOfKnex, nowDefault } from '../dialect.js';

/** Every table the built-in migrations create, in creation order. */
export const BUILTIN_TABLES = Object.freeze([
  'fw_user',
  'fw_role',
  'fw_user_role',
  'fw_org',
  'fw_user_org',
  'fw_menu',
  'fw_role_menu',
  'fw_login_log',
  'fw_operate_log',
  'fw_open_api',
  'fw_token',
  'fw_kv',
  'fw_meta',
  'fw_llm',
  'fw_embedding_model',
  'fw_agent',
  'fw_bi_datasource',
  'fw_session',
  'fw_file',
  'fw_user_pref',
  'fw_saved_view',
  'fw_saved_view_role',
  'fw_trash',
] as const);

/** The name of one built-in table. */
export type BuiltinTable = (typeof BUILTIN_TABLES)[number];

// Datetimes keep milliseconds everywhere (MySQL's DATETIME would otherwise round them away);
// on SQLite the column holds epoch milliseconds.
export function datetime(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return t.datetime(name, { precision: 3 });
}

export function timestamps(knex: Knex, t: Knex.CreateTableBuilder): void {
  datetime(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
  datetime(t, 'updated_at').notNullable().defaultTo(nowDefault(knex));
}

// `unsigned` matters on MySQL only, where `increments` is INT UNSIGNED and a foreign key must
// match it exactly; the other dialects ignore it.
export function userId(t: Knex.CreateTableBuilder): Knex.ColumnBuilder {
  return t.integer('user_id').unsigned();
}

export function cascade(column: Knex.ColumnBuilder, table: string): void {
  column.notNullable().references('id').inTable(table).onDelete('CASCADE');
}

// Long JSON bodies do not fit MySQL's 64 KiB TEXT; the other dialects' text types are unbounded.
export function longText(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return t.text(name, 'mediumtext');
}

export function createTable(knex: Knex, schema: Knex.SchemaBuilder, name: BuiltinTable, build: (t: Knex.CreateTableBuilder) => void): Knex.SchemaBuilder {
  const mysql = dialectOfKnex(knex) === 'mysql';
  return schema.createTable(name, (t) => {
    // A database created with a legacy charset would otherwise truncate non-Latin names.
    if (mysql) t.charset('utf8mb4');
    build(t);
  });
}

export function joinTable(knex: Knex, schema: Knex.SchemaBuilder, name: BuiltinTable, left: [string, BuiltinTable], right: [string, BuiltinTable]): Knex.SchemaBuilder {
  return createTable(knex, schema, name, (t) => {
    cascade(t.integer(left[0]).unsigned(), left[1]);
    cascade(t.integer(right[0]).unsigned(), right[1]);
    t.primary([left[0], right[0]]);
    // The primary key serves lookups by the left column; this one serves the reverse direction.
    t.index([right[0]]);
  });
}

export function dropAll(knex: Knex, tables: readonly BuiltinTable[]): Knex.SchemaBuilder {
  let schema = knex.schema;
  for (const table of [...tables].reverse()) schema = schema.dropTableIfExists(table);
  return schema;
}
