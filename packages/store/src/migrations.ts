import knexFactory, { type Knex } from 'knex';
import { logIndexes } from './0016_log_indexes.js';
import { savedViews } from './0017_saved_views.js';
import { trash } from './0018_trash.js';
import { operateLogBatch } from './0019_operate_log_batch.js';
import { dialectOfKnex, KNEX_CLIENT, nowDefault, type FwDialect } from './dialect.js';

/** knex's bookkeeping table for Fw's migrations (its lock table is `fw_migrations_lock`). */
export const MIGRATION_TABLE = 'fw_migrations';

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

export type { FwMigration } from './migration-type.js';
import type { FwMigration } from './migration-type.js';

// Datetimes keep milliseconds everywhere (MySQL's DATETIME would otherwise round them away);
// on SQLite the column holds epoch milliseconds.
function datetime(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return t.datetime(name, { precision: 3 });
}

function timestamps(knex: Knex, t: Knex.CreateTableBuilder): void {
  datetime(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
  datetime(t, 'updated_at').notNullable().defaultTo(nowDefault(knex));
}

// `unsigned` matters on MySQL only, where `increments` is INT UNSIGNED and a foreign key must
// match it exactly; the other dialects ignore it.
function userId(t: Knex.CreateTableBuilder): Knex.ColumnBuilder {
  return t.integer('user_id').unsigned();
}

function cascade(column: Knex.ColumnBuilder, table: string): void {
  column.notNullable().references('id').inTable(table).onDelete('CASCADE');
}

// Long JSON bodies do not fit MySQL's 64 KiB TEXT; the other dialects' text types are unbounded.
function longText(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return t.text(name, 'mediumtext');
}

function createTable(knex: Knex, schema: Knex.SchemaBuilder, name: BuiltinTable, build: (t: Knex.CreateTableBuilder) => void): Knex.SchemaBuilder {
  const mysql = dialectOfKnex(knex) === 'mysql';
  return schema.createTable(name, (t) => {
    // A database created with a legacy charset would otherwise truncate non-Latin names.
    if (mysql) t.charset('utf8mb4');
    build(t);
  });
}

function joinTable(knex: Knex, schema: Knex.SchemaBuilder, name: BuiltinTable, left: [string, BuiltinTable], right: [string, BuiltinTable]): Knex.SchemaBuilder {
  return createTable(knex, schema, name, (t) => {
    cascade(t.integer(left[0]).unsigned(), left[1]);
    cascade(t.integer(right[0]).unsigned(), right[1]);
    t.primary([left[0], right[0]]);
    // The primary key serves lookups by the left column; this one serves the reverse direction.
    t.index([right[0]]);
  });
}

function dropAll(knex: Knex, tables: readonly BuiltinTable[]): Knex.SchemaBuilder {
  let schema = knex.schema;
  for (const table of [...tables].reverse()) schema = schema.dropTableIfExists(table);
  return schema;
}

const builtinTables: FwMigration = {
  name: '0001_builtin_tables',
  up(knex) {
    let s = knex.schema;
    s = createTable(knex, s, 'fw_user', (t) => {
      t.increments('id');
      t.string('account', 64).notNullable().unique();
      t.string('name', 128).nullable();
      // Null hash: no local password (directory or sign-on users).
      t.string('password_hash', 128).nullable();
      t.string('password_salt', 64).nullable();
      t.boolean('is_admin').notNullable().defaultTo(false);
      t.string('status', 16).notNullable().defaultTo('normal');
      datetime(t, 'expire_date').nullable();
      t.string('white_ip', 1024).nullable();
      datetime(t, 'reset_pwd_time').nullable();
      timestamps(knex, t);
    });
    s = createTable(knex, s, 'fw_role', (t) => {
      t.increments('id');
      t.string('code', 64).notNullable().unique();
      t.string('name', 128).notNullable();
      t.string('status', 16).notNullable().defaultTo('normal');
      t.string('remark', 512).nullable();
      timestamps(knex, t);
    });
    s = joinTable(knex, s, 'fw_user_role', ['user_id', 'fw_user'], ['role_id', 'fw_role']);
    s = createTable(knex, s, 'fw_org', (t) => {
      t.increments('id');
      t.string('code', 64).nullable().unique();
      t.string('name', 128).notNullable();
      t.integer('parent_id').unsigned().nullable().index();
      t.integer('sort').notNullable().defaultTo(0);
      timestamps(knex, t);
    });
    s = joinTable(knex, s, 'fw_user_org', ['user_id', 'fw_user'], ['org_id', 'fw_org']);
    s = createTable(knex, s, 'fw_menu', (t) => {
      t.increments('id');
      t.string('code', 128).nullable().unique();
      t.string('name', 128).notNullable();
      t.string('type', 16).notNullable();
      t.string('value', 255).nullable();
      t.string('icon', 64).nullable();
      t.integer('parent_id').unsigned().nullable().index();
      t.integer('sort').notNullable().defaultTo(0);
      t.string('status', 16).notNullable().defaultTo('open');
      timestamps(knex, t);
    });
    s = joinTable(knex, s, 'fw_role_menu', ['role_id', 'fw_role'], ['menu_id', 'fw_menu']);
    return s;
  },
  down(knex) {
    return dropAll(knex, ['fw_user', 'fw_role', 'fw_user_role', 'fw_org', 'fw_user_org', 'fw_menu', 'fw_role_menu']);
  },
};

const logs: FwMigration = {
  name: '0002_logs',
  up(knex) {
    let s = knex.schema;
    s = createTable(knex, s, 'fw_login_log', (t) => {
      t.bigIncrements('id');
      // No foreign key: a log row outlives the user it names.
      userId(t).nullable().index();
      t.string('account', 64).notNullable();
      datetime(t, 'login_time').notNullable().index();
      t.string('ip', 64).nullable();
      t.string('user_agent', 512).nullable();
      t.string('method', 64).notNullable();
      t.specificType('token_hash', 'char(64)').nullable();
    });
    s = createTable(knex, s, 'fw_operate_log', (t) => {
      t.bigIncrements('id');
      userId(t).nullable();
      t.string('account', 64).nullable();
      t.string('ip', 64).nullable();
      t.string('model', 64).notNullable();
      t.string('action', 32).notNullable();
      t.string('source', 16).notNullable().defaultTo('http');
      t.string('target_id', 64).nullable();
      longText(t, 'before_data').nullable();
      longText(t, 'request').nullable();
      t.string('status', 16).notNullable();
      longText(t, 'error').nullable();
      t.integer('duration_ms').notNullable().defaultTo(0);
      datetime(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
      t.index(['model', 'created_at']);
    });
    return s;
  },
  down(knex) {
    return dropAll(knex, ['fw_login_log', 'fw_operate_log']);
  },
};

const openApi: FwMigration = {
  name: '0003_open_api',
  up(knex) {
    return createTable(knex, knex.schema, 'fw_open_api', (t) => {
      t.increments('id');
      t.string('app_id', 64).notNullable().unique();
      t.string('secret_hash', 128).notNullable();
      t.string('secret_salt', 64).notNullable();
      t.string('name', 128).notNullable();
      cascade(userId(t), 'fw_user');
      datetime(t, 'expire_date').nullable();
      t.string('status', 16).notNullable().defaultTo('normal');
      timestamps(knex, t);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_open_api']);
  },
};

const token: FwMigration = {
  name: '0004_token',
  up(knex) {
    return createTable(knex, knex.schema, 'fw_token', (t) => {
      t.specificType('token_hash', 'char(64)').notNullable().primary();
      // No foreign key: the token store is also used with hosts' own user tables.
      userId(t).notNullable().index();
      // Epoch milliseconds, so expiry checks compare numbers the same way on every dialect.
      t.bigInteger('expires_at').notNullable().index();
      t.bigInteger('created_at').notNullable();
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_token']);
  },
};

const ephemeral: FwMigration = {
  name: '0005_ephemeral',
  up(knex) {
    // Short-lived values of @fw/token's KnexEphemeralStore: failed-login counters, lockouts and
    // captcha answers, shared by every instance on this database.
    const dialect = dialectOfKnex(knex);
    return createTable(knex, knex.schema, 'fw_kv', (t) => {
      // Keys are case-sensitive (base64url hashes among them): MySQL's and SQL Server's default
      // collations would fold "aB" and "Ab" into one row.
      if (dialect === 'mssql') t.specificType('key', 'nvarchar(191) collate Latin1_General_BIN2').notNullable().primary();
      else {
        const key = t.string('key', 191).notNullable().primary();
        if (dialect === 'mysql') key.collate('utf8mb4_bin');
      }
      t.string('value', 1024).notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_kv']);
  },
};

const meta: FwMigration = {
  name: '0006_meta',
  up(knex) {
    // Small counters of the framework itself, such as the grants version that power caches key on.
    return createTable(knex, knex.schema, 'fw_meta', (t) => {
      t.string('name', 64).notNullable().primary();
      t.bigInteger('value').notNullable().defaultTo(0);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_meta']);
  },
};

const aiConfig: FwMigration = {
  name: '0007_ai_config',
  up(knex) {
    // Plain configuration rows for AI features: language models, embedding models, agents and
    // BI data sources. Keys and connection strings are kept as written (the server needs them
    // back) and are never returned by the data API.
    let s = createTable(knex, knex.schema, 'fw_llm', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('provider', 64).nullable();
      t.string('api_domain', 255).notNullable();
      t.string('api_key', 512).nullable();
      t.string('model', 128).nullable();
      t.boolean('enabled').notNullable().defaultTo(true);
      timestamps(knex, t);
    });
    s = createTable(knex, s, 'fw_embedding_model', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('api_domain', 255).notNullable();
      t.string('api_key', 512).nullable();
      t.string('model', 128).nullable();
      t.integer('dimensions').nullable();
      timestamps(knex, t);
    });
    s = createTable(knex, s, 'fw_agent', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('url', 512).notNullable();
      t.string('description', 1024).nullable();
      t.boolean('enabled').notNullable().defaultTo(true);
      timestamps(knex, t);
    });
    return createTable(knex, s, 'fw_bi_datasource', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('dialect', 32).nullable();
      t.string('connection_string', 1024).notNullable();
      timestamps(knex, t);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_bi_datasource', 'fw_agent', 'fw_embedding_model', 'fw_llm']);
  },
};

const session: FwMigration = {
  name: '0008_session',
  up(knex) {
    // Server-side browser sessions (koa-session's external store, used by the sign-on bridge):
    // the OAuth exchange state outgrows a cookie, and several instances must share it.
    return createTable(knex, knex.schema, 'fw_session', (t) => {
      t.string('id', 128).notNullable().primary();
      longText(t, 'data').notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_session']);
  },
};

const tokenAdmin: FwMigration = {
  name: '0009_token_admin',
  up(knex) {
    // A login hook may make a sign-in an administrator (an LDAP group, say) without touching the
    // stored user: the token carries that power for its life, on every instance (issue 10 §7).
    return knex.schema.alterTable('fw_token', (t) => {
      t.boolean('is_admin').notNullable().defaultTo(false);
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_token', (t) => {
      t.dropColumn('is_admin');
    });
  },
};

const loginLogAdmin: FwMigration = {
  name: '0010_login_log_admin',
  up(knex) {
    // Whether a sign-in was an administrator's. A login hook may make one without touching the
    // stored flag; the grant rules read this to keep such accounts out of non-administrators'
    // hands after the token is gone (a new password would make its setter an administrator).
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.boolean('is_admin').notNullable().defaultTo(false);
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.dropColumn('is_admin');
    });
  },
};

const file: FwMigration = {
  name: '0011_file',
  up(knex) {
    // Uploaded files of ATTACHMENT fields. `id` is the storage key (random, made by the server);
    // `row_id` stays null while the upload is pending, until a save of the row claims it.
    return createTable(knex, knex.schema, 'fw_file', (t) => {
      t.string('id', 64).notNullable().primary();
      t.string('model', 128).notNullable();
      t.string('field', 128).notNullable();
      t.string('row_id', 64).nullable();
      t.string('name', 255).notNullable();
      t.string('type', 255).notNullable();
      t.bigInteger('size').notNullable();
      t.integer('created_by').unsigned().nullable();
      datetime(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
      t.index(['model', 'row_id']);
      t.index(['created_at']);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_file']);
  },
};

const loginLogFailures: FwMigration = {
  name: '0012_login_log_failures',
  up(knex) {
    // Failed sign-ins are login-log rows too (issue 19 §6). Rows written before are successes,
    // hence the default. `reason` is a class (`bad-credentials`, `locked`, …), never a hook's own
    // text; `account_typed` is what the client sent, cleaned; `attempts` is 1 except on a summary
    // row, which counts the failures beyond the write caps.
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.boolean('success').notNullable().defaultTo(true);
      t.string('reason', 32).nullable();
      t.string('account_typed', 128).nullable();
      t.integer('attempts').notNullable().defaultTo(1);
      // The login-log page's filter "failed, newest first".
      t.index(['success', 'login_time']);
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.dropIndex(['success', 'login_time']);
      t.dropColumn('attempts');
      t.dropColumn('account_typed');
      t.dropColumn('reason');
      t.dropColumn('success');
    });
  },
};

const tokenLastSeen: FwMigration = {
  name: '0013_token_last_seen',
  up(knex) {
    // Live sessions a person can see and end (issue 19 §6): when each token was last used
    // (written at most about once a minute per token), and a lookup of a token's sign-in row (IP,
    // user agent, method) that does not scan the whole login log.
    return knex.schema
      .alterTable('fw_token', (t) => {
        t.bigInteger('last_seen_at').nullable();
      })
      .alterTable('fw_login_log', (t) => {
        t.index(['token_hash'], 'fw_login_log_token_hash_index');
      });
  },
  down(knex) {
    return knex.schema
      .alterTable('fw_login_log', (t) => {
        t.dropIndex(['token_hash'], 'fw_login_log_token_hash_index');
      })
      .alterTable('fw_token', (t) => {
        t.dropColumn('last_seen_at');
      });
  },
};

const userPrefs: FwMigration = {
  name: '0014_user_prefs',
  up(knex) {
    // Per-user UI preferences (issue 20 §5: a table's columns, widths, order, density), kept on
    // the server so they follow the person across browsers. One row per user and key; the value
    // is a small JSON document the prefs routes bound and validate.
    return createTable(knex, knex.schema, 'fw_user_pref', (t) => {
      cascade(userId(t), 'fw_user');
      // Keys name models (`table:Book`), whose names are case-sensitive: a binary collation where
      // the default one folds case (MariaDB/MySQL, SQL Server).
      const dialect = dialectOfKnex(knex);
      if (dialect === 'mssql') t.specificType('key', 'nvarchar(128) collate Latin1_General_BIN2').notNullable();
      else {
        const key = t.string('key', 128).notNullable();
        if (dialect === 'mysql') key.collate('utf8mb4_bin');
      }
      t.text('value').notNullable();
      datetime(t, 'updated_at').notNullable().defaultTo(nowDefault(knex));
      t.primary(['user_id', 'key']);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_user_pref']);
  },
};

const operateLogUser: FwMigration = {
  name: '0015_operate_log_user',
  up(knex) {
    // A person's own recent edits on the home page (issue 20 §6), read without scanning the log.
    return knex.schema.alterTable('fw_operate_log', (t) => {
      t.index(['user_id', 'created_at'], 'fw_operate_log_user_index');
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_operate_log', (t) => {
      t.dropIndex(['user_id', 'created_at'], 'fw_operate_log_user_index');
    });
  },
};

/** The built-in migrations, oldest first. */
export const MIGRATIONS: readonly FwMigration[] = Object.freeze([
  builtinTables,
  logs,
  openApi,
  token,
  ephemeral,
  meta,
  aiConfig,
  session,
  tokenAdmin,
  loginLogAdmin,
  file,
  loginLogFailures,
  tokenLastSeen,
  userPrefs,
  operateLogUser,
  logIndexes,
  savedViews,
  trash,
  operateLogBatch,
]);

/**
 * The in-code migration source handed to knex's migrator: no migration files to locate at run
 * time, so the package works the same bundled, from `dist/` or from source.
 */
export function fwMigrationSource(): Knex.MigrationSource<FwMigration> {
  return {
    getMigrations: async () => [...MIGRATIONS],
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => ({
      up: (knex: Knex) => migration.up(knex),
      down: (knex: Knex) => migration.down(knex),
      ...(migration.transaction === false ? { config: { transaction: false } } : {}),
    }),
  };
}

/** The SQL of one migration for one dialect. */
export interface CompiledMigration {
  /** The migration's name, as recorded in `fw_migrations`. */
  name: string;
  /** Statements `latest()` runs, in order. */
  up: string[];
  /** Statements `rollback()` runs, in order. */
  down: string[];
}

function statements(knex: Knex, builder: Knex.SchemaBuilder): string[] {
  return builder.toSQL().map((q) => (q.bindings && q.bindings.length > 0 ? knex.raw(q.sql, q.bindings).toQuery() : q.sql));
}

/**
 * The SQL every built-in migration runs on `dialect`, compiled by a knex of that client with no
 * connection: how the SQL Server schema is checked where no SQL Server can run.
 * @example compileMigrations('mssql')[0].up[0] // 'CREATE TABLE [fw_user] (…)'
 */
export async function compileMigrations(dialect: FwDialect): Promise<CompiledMigration[]> {
  const knex = knexFactory({ client: KNEX_CLIENT[dialect], useNullAsDefault: true });
  try {
    return MIGRATIONS.map((m) => ({ name: m.name, up: statements(knex, m.up(knex)), down: statements(knex, m.down(knex)) }));
  } finally {
    await knex.destroy();
  }
}
