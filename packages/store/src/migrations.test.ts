import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { FwDialect } from './dialect.js';
import { BUILTIN_TABLES, compileMigrations, fwMigrationSource, MIGRATIONS } from './migrations.js';
import { createStore, type FwStore } from './store.js';

const NAMES = MIGRATIONS.map((m) => m.name);

/** The tables of the current database, read from the database's own catalog. */
async function listTables(knex: Knex, dialect: FwDialect): Promise<string[]> {
  let rows: Array<{ name: string }>;
  switch (dialect) {
    case 'sqlite':
      rows = await knex.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
      break;
    case 'postgres':
      rows = (await knex.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()')).rows;
      break;
    case 'mysql':
      rows = (await knex.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()'))[0];
      break;
    case 'mssql':
      rows = await knex.raw('SELECT name FROM sys.tables');
      break;
  }
  return rows.map((r) => r.name).sort();
}

describeEachSql('FwStore.migrate', (db, spec) => {
  let store: FwStore;
  before(function () {
    store = createStore(db().url);
  });
  after(async function () {
    await store?.destroy();
  });

  it('lists every migration as pending on an empty database', async function () {
    expect(await store.migrate.status()).to.deep.equal({ applied: [], pending: NAMES });
  });

  it('latest() creates every built-in table and records the migrations in fw_migrations', async function () {
    expect(await store.migrate.latest()).to.deep.equal(NAMES);
    const tables = await listTables(store.knex, spec.dialect);
    expect(tables).to.deep.equal([...BUILTIN_TABLES, 'fw_migrations', 'fw_migrations_lock'].sort());
    expect(await store.knex('fw_migrations').orderBy('id').pluck('name')).to.deep.equal(NAMES);
    expect(await store.migrate.status()).to.deep.equal({ applied: NAMES, pending: [] });
  });

  it('latest() again changes nothing', async function () {
    expect(await store.migrate.latest()).to.deep.equal([]);
  });

  it('a second store on the same database sees the migrations as applied', async function () {
    const other = createStore(db().url);
    try {
      expect(await other.migrate.status()).to.deep.equal({ applied: NAMES, pending: [] });
      expect(await other.migrate.latest()).to.deep.equal([]);
    } finally {
      await other.destroy();
    }
  });

  it('creates the columns the other packages rely on', async function () {
    const user = await store.knex('fw_user').columnInfo();
    expect(Object.keys(user).sort()).to.deep.equal(
      ['account', 'created_at', 'expire_date', 'id', 'is_admin', 'name', 'password_hash', 'password_salt', 'reset_pwd_time', 'status', 'updated_at', 'white_ip'].sort(),
    );
    // SQLite reports sizes as strings.
    expect(Number(user.account?.maxLength)).to.equal(64);
    expect(user.account?.nullable).to.equal(false);
    expect(user.password_hash?.nullable).to.equal(true);
    const token = await store.knex('fw_token').columnInfo();
    expect(Object.keys(token).sort()).to.deep.equal(['created_at', 'expires_at', 'is_admin', 'last_seen_at', 'token_hash', 'user_id']);
    expect(token.last_seen_at?.nullable).to.equal(true);
  });

  it('indexes the login log by token hash, for the session list (0013_token_last_seen)', async () => {
    const plan: Record<string, string> = {
      sqlite: `select name as index_name from pragma_index_list('fw_login_log')`,
      postgres: `select indexname as index_name from pg_indexes where tablename = 'fw_login_log'`,
      mysql: `select index_name as index_name from information_schema.statistics where table_schema = database() and table_name = 'fw_login_log'`,
      mssql: `select name as index_name from sys.indexes where object_id = object_id('fw_login_log')`,
    };
    const result = await store.knex.raw(plan[store.dialect]!);
    const rows: Array<Record<string, unknown>> = store.dialect === 'postgres' ? result.rows : store.dialect === 'mysql' ? result[0] : result;
    const names = rows.map((row) => String(row.index_name ?? row.INDEX_NAME));
    expect(names).to.include('fw_login_log_token_hash_index');
  });

  it('indexes the operate log by user, for the home page (0015_operate_log_user)', async () => {
    const plan: Record<string, string> = {
      sqlite: `select name as index_name from pragma_index_list('fw_operate_log')`,
      postgres: `select indexname as index_name from pg_indexes where tablename = 'fw_operate_log'`,
      mysql: `select index_name as index_name from information_schema.statistics where table_schema = database() and table_name = 'fw_operate_log'`,
      mssql: `select name as index_name from sys.indexes where object_id = object_id('fw_operate_log')`,
    };
    const result = await store.knex.raw(plan[store.dialect]!);
    const rows: Array<Record<string, unknown>> = store.dialect === 'postgres' ? result.rows : store.dialect === 'mysql' ? result[0] : result;
    expect(rows.map((row) => String(row.index_name ?? row.INDEX_NAME))).to.include('fw_operate_log_user_index');
  });

  it('fw_token keeps epoch milliseconds beyond 32 bits exactly', async function () {
    const expiresAt = 4_102_444_800_123; // 2100-01-01T00:00:00.123Z
    await store.knex('fw_token').insert({ token_hash: 'f'.repeat(64), user_id: 1, expires_at: expiresAt, created_at: expiresAt - 1 });
    const row = await store.knex('fw_token').where('token_hash', 'f'.repeat(64)).first();
    expect(Number(row.expires_at)).to.equal(expiresAt);
    expect(Number(row.created_at)).to.equal(expiresAt - 1);
    await store.knex('fw_token').delete();
  });

  it('fw_kv tells keys apart by case (binary collation where the default folds case)', async function () {
    await store.knex('fw_kv').insert([
      { key: 'login-fail:a:aB', value: '1', expires_at: Date.now() + 60_000 },
      { key: 'login-fail:a:Ab', value: '2', expires_at: Date.now() + 60_000 },
    ]);
    const row = await store.knex('fw_kv').where('key', 'login-fail:a:Ab').first();
    expect(row.value).to.equal('2');
    expect(await store.knex('fw_kv').where('key', 'login-fail:a:ab')).to.have.length(0);
    await store.knex('fw_kv').delete();
  });

  it('fills created_at / updated_at from the database clock when a writer leaves them out', async function () {
    const before = Date.now();
    await store.knex('fw_role').insert({ code: 'clock', name: 'Clock' });
    const role = await store.roles.findByCode('clock');
    expect(role?.createdAt).to.be.instanceOf(Date);
    // The database clock is this machine's; a generous window absorbs second-precision rounding.
    expect(Math.abs((role?.createdAt.getTime() ?? 0) - before)).to.be.below(5_000);
    await store.knex('fw_role').delete();
  });

  it('rollback() reverts every migration and leaves no built-in table', async function () {
    expect(await store.migrate.rollback()).to.deep.equal([...NAMES].reverse());
    expect(await listTables(store.knex, spec.dialect)).to.deep.equal(['fw_migrations', 'fw_migrations_lock']);
    expect(await store.migrate.status()).to.deep.equal({ applied: [], pending: NAMES });
  });

  it('migrates up again after a full rollback', async function () {
    expect(await store.migrate.latest()).to.deep.equal(NAMES);
    expect(await listTables(store.knex, spec.dialect)).to.include.members([...BUILTIN_TABLES]);
  });
});

describeEachSql('migration 0012_login_log_failures', (db) => {
  let store: FwStore;
  before(function () {
    store = createStore(db().url);
  });
  after(async function () {
    await store?.destroy();
  });

  it('keeps the rows written before it as successes, and adds what a failed row needs', async function () {
    const config = { migrationSource: fwMigrationSource(), tableName: 'fw_migrations' };
    // Up to the migration before it, one at a time, as a deployment of the previous version would be.
    while ((await store.migrate.status()).pending[0] !== '0012_login_log_failures') await store.knex.migrate.up(config);
    await store.knex('fw_login_log').insert({ user_id: 1, account: 'before', login_time: new Date(), method: 'password', is_admin: false });
    expect(await store.migrate.latest()).to.include('0012_login_log_failures');
    const [old] = await store.loginLogs.list({ limit: 1 });
    expect(old).to.include({ account: 'before', success: true, reason: null, accountTyped: null, attempts: 1 });
    const columns = await store.knex('fw_login_log').columnInfo();
    expect(Object.keys(columns)).to.include.members(['success', 'reason', 'account_typed', 'attempts']);
    expect(Number(columns.account_typed?.maxLength)).to.equal(128);
    expect(columns.success?.nullable).to.equal(false);
    // And back (through any later migration): the columns go, the rows stay.
    while (!(await store.migrate.status()).pending.includes('0012_login_log_failures')) await store.knex.migrate.down(config);
    expect(Object.keys(await store.knex('fw_login_log').columnInfo())).to.not.include('success');
    const counted = await store.knex('fw_login_log').count({ n: '*' });
    expect(Number(counted[0]?.n)).to.equal(1);
    expect(await store.migrate.latest()).to.include('0012_login_log_failures');
  });
});

describe('compileMigrations(dialect)', function () {
  it('compiles every migration for every dialect without a connection', async function () {
    for (const dialect of ['sqlite', 'postgres', 'mysql', 'mssql'] as const) {
      const compiled = await compileMigrations(dialect);
      expect(compiled.map((m) => m.name)).to.deep.equal(NAMES);
      for (const m of compiled) {
        expect(m.up.length, `${dialect} ${m.name} up`).to.be.above(0);
        expect(m.down.length, `${dialect} ${m.name} down`).to.be.above(0);
      }
    }
  });

  describe('mssql', function () {
    let up: string[];
    let down: string[];
    before(async function () {
      const compiled = await compileMigrations('mssql');
      up = compiled.flatMap((m) => m.up);
      down = compiled.flatMap((m) => m.down);
    });
    const create = (table: string): string => {
      const sql = up.find((s) => s.startsWith(`CREATE TABLE [${table}] (`));
      if (!sql) throw new Error(`no CREATE TABLE [${table}]`);
      return sql;
    };

    it('creates every built-in table', function () {
      for (const table of BUILTIN_TABLES) expect(create(table)).to.be.a('string');
    });

    it('uses identity primary keys, int for entities and bigint for logs', function () {
      expect(create('fw_user')).to.include('[id] int identity(1,1) not null primary key');
      expect(create('fw_login_log')).to.include('[id] bigint identity(1,1) not null primary key');
      expect(create('fw_operate_log')).to.include('[id] bigint identity(1,1) not null primary key');
    });

    it('makes account unique and not null, with the exact column sizes', function () {
      const user = create('fw_user');
      expect(user).to.include('[account] nvarchar(64) not null');
      expect(user).to.include('[password_hash] nvarchar(128) null');
      expect(user).to.include('[white_ip] nvarchar(1024) null');
      expect(user).to.match(/\[is_admin\] bit not null CONSTRAINT \[\w+\] DEFAULT '0'/);
      expect(user).to.match(/\[status\] nvarchar\(16\) not null CONSTRAINT \[\w+\] DEFAULT 'normal'/);
      expect(up).to.include('CREATE UNIQUE INDEX [fw_user_account_unique] ON [fw_user] ([account]) WHERE [account] IS NOT NULL');
    });

    it('lets several menus and orgs have no code (SQL Server treats NULLs as equal in a plain unique index)', function () {
      expect(up).to.include('CREATE UNIQUE INDEX [fw_menu_code_unique] ON [fw_menu] ([code]) WHERE [code] IS NOT NULL');
      expect(up).to.include('CREATE UNIQUE INDEX [fw_org_code_unique] ON [fw_org] ([code]) WHERE [code] IS NOT NULL');
    });

    it('stores datetimes as datetime2 defaulting to UTC now', function () {
      expect(create('fw_user')).to.match(/\[created_at\] datetime2 not null CONSTRAINT \[\w+\] DEFAULT SYSUTCDATETIME\(\)/);
      expect(create('fw_login_log')).to.include('[login_time] datetime2 not null');
      expect(up.join('\n')).not.to.include('CURRENT_TIMESTAMP(');
    });

    it('cascades deletes from users, roles, menus and orgs to their links', function () {
      expect(create('fw_user_role')).to.include('FOREIGN KEY ([user_id]) REFERENCES [fw_user] ([id]) ON DELETE CASCADE');
      expect(create('fw_user_role')).to.include('FOREIGN KEY ([role_id]) REFERENCES [fw_role] ([id]) ON DELETE CASCADE');
      expect(create('fw_user_role')).to.include('PRIMARY KEY ([user_id], [role_id])');
      expect(create('fw_role_menu')).to.include('FOREIGN KEY ([menu_id]) REFERENCES [fw_menu] ([id]) ON DELETE CASCADE');
      expect(create('fw_user_org')).to.include('FOREIGN KEY ([org_id]) REFERENCES [fw_org] ([id]) ON DELETE CASCADE');
      expect(create('fw_open_api')).to.include('FOREIGN KEY ([user_id]) REFERENCES [fw_user] ([id]) ON DELETE CASCADE');
    });

    it('keys fw_token by the hash, with bigint epoch-millisecond columns and no foreign key', function () {
      const token = create('fw_token');
      expect(token).to.include('[token_hash] char(64) not null');
      expect(token).to.include('[expires_at] bigint not null');
      expect(token).to.include('[created_at] bigint not null');
      expect(token).to.include('PRIMARY KEY ([token_hash])');
      expect(token).not.to.include('FOREIGN KEY');
      expect(up).to.include('CREATE INDEX [fw_token_expires_at_index] ON [fw_token] ([expires_at])');
    });

    it('keys fw_kv by a 191-character key with a bigint expiry', function () {
      const kv = create('fw_kv');
      expect(kv).to.include('[key] nvarchar(191) collate Latin1_General_BIN2 not null');
      expect(kv).to.include('[value] nvarchar(1024) not null');
      expect(kv).to.include('[expires_at] bigint not null');
      expect(kv).to.include('PRIMARY KEY ([key])');
      expect(up).to.include('CREATE INDEX [fw_kv_expires_at_index] ON [fw_kv] ([expires_at])');
    });

    it('indexes the logs for their list queries', function () {
      expect(up).to.include('CREATE INDEX [fw_login_log_user_id_index] ON [fw_login_log] ([user_id])');
      expect(up).to.include('CREATE INDEX [fw_login_log_login_time_index] ON [fw_login_log] ([login_time])');
      expect(up).to.include('CREATE INDEX [fw_operate_log_model_created_at_index] ON [fw_operate_log] ([model], [created_at])');
      expect(create('fw_operate_log')).to.include('[before_data] nvarchar(max) null');
    });

    it('adds the failed-sign-in columns to fw_login_log, old rows reading as successes (0012)', async function () {
      const m = (await compileMigrations('mssql')).find((c) => c.name === '0012_login_log_failures')!;
      expect(m.up[0]).to.match(/^ALTER TABLE \[fw_login_log\] ADD \[success\] bit not null CONSTRAINT \[\w+\] DEFAULT '1'/);
      expect(m.up[0]).to.include('[reason] nvarchar(32) null');
      expect(m.up[0]).to.include('[account_typed] nvarchar(128) null');
      expect(m.up[0]).to.match(/\[attempts\] int not null CONSTRAINT \[\w+\] DEFAULT '1'/);
      expect(m.up).to.include('CREATE INDEX [fw_login_log_success_login_time_index] ON [fw_login_log] ([success], [login_time])');
      // SQL Server refuses to drop a column its default constraint still names: the constraint goes first.
      expect(m.down[0]).to.equal('DROP INDEX [fw_login_log_success_login_time_index] ON [fw_login_log]');
      expect(m.down.filter((sql) => sql.includes('DROP CONSTRAINT'))).to.have.length(4);
      expect(m.down.at(-1)).to.equal('ALTER TABLE [fw_login_log] DROP COLUMN [success]');
    });

    it('drops every table on the way down, links before what they point to', function () {
      // Column-only migrations (0009 adds fw_token.is_admin) drop no table.
      const dropped = down.map((s) => /DROP TABLE \[(\w+)\]/.exec(s)?.[1]).filter((t) => t !== undefined);
      expect([...dropped].sort()).to.deep.equal([...BUILTIN_TABLES].sort());
      expect(dropped.indexOf('fw_user_role')).to.be.below(dropped.indexOf('fw_user'));
      expect(dropped.indexOf('fw_role_menu')).to.be.below(dropped.indexOf('fw_menu'));
    });
  });

  describe('mysql', function () {
    it('creates utf8mb4 tables, datetime(3) columns and UTC-now defaults', async function () {
      const up = (await compileMigrations('mysql')).flatMap((m) => m.up);
      const user = up.find((s) => s.startsWith('create table `fw_user`')) ?? '';
      expect(user).to.include('default character set utf8mb4');
      expect(user).to.include('`created_at` datetime(3) not null default CURRENT_TIMESTAMP(3)');
      // increments are INT UNSIGNED on MySQL: foreign keys to them must match.
      expect(up.find((s) => s.startsWith('create table `fw_user_role`'))).to.include('`user_id` int unsigned not null');
    });
  });
});
