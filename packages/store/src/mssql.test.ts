import { defineModel } from '@fw/core';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { TYPES } from 'tedious';
import { ModelTablesError } from './model-tables.js';
import { createStore, type FwStore } from './store.js';

/** A statement the store sent, as the tedious driver would have received it. */
interface Sent {
  sql: string;
  bindings: readonly unknown[];
}

type Responder = (sql: string) => unknown;

/**
 * A store on knex's real `mssql` client with the wire cut: every statement is compiled by the
 * SQL Server dialect exactly as in production, recorded, and answered from `respond` instead of a
 * server (none can run here). Transactions go through the dialect's own begin / commit calls.
 */
function recordingStore(respond: Responder = () => []): { store: FwStore; sent: Sent[]; knex: Knex } {
  const sent: Sent[] = [];
  const probe = knexFactory({ client: 'mssql' });
  const MssqlClient = probe.client.constructor as typeof Knex.Client;
  void probe.destroy();
  const connection = {
    inTransaction: true,
    state: { name: 'LoggedIn' },
    beginTransaction(done: (error?: Error) => void) {
      sent.push({ sql: 'BEGIN TRANSACTION', bindings: [] });
      done();
    },
    commitTransaction(done: (error?: Error) => void) {
      sent.push({ sql: 'COMMIT', bindings: [] });
      done();
    },
    rollbackTransaction(done: (error?: Error) => void) {
      sent.push({ sql: 'ROLLBACK', bindings: [] });
      done();
    },
  };
  class RecordingMssqlClient extends MssqlClient {
    override acquireConnection(): Promise<unknown> {
      return Promise.resolve(connection);
    }
    override releaseConnection(): Promise<void> {
      return Promise.resolve();
    }
    _query(_connection: unknown, query: { sql: string; bindings?: unknown[]; response?: unknown }): Promise<unknown> {
      sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
      query.response = respond(query.sql);
      return Promise.resolve(query);
    }
    processResponse(query: { method?: string; response?: unknown; output?: (this: unknown, response: unknown) => unknown }, runner: unknown): unknown {
      const rows = query.response;
      // Schema questions (hasTable, …) post-process their rows, as the real client lets them.
      if (typeof query.output === 'function') return query.output.call(runner, rows);
      return query.method === 'first' && Array.isArray(rows) ? rows[0] : rows;
    }
  }
  const knex = knexFactory({ client: RecordingMssqlClient, connection: { server: 'nowhere', database: 'fw' } });
  return { store: createStore({ knex }), sent, knex };
}

const NOW = new Date('2030-01-01T00:00:00.000Z');
const userRow = {
  id: 7,
  account: 'alice',
  name: null,
  password_hash: 'h',
  password_salt: 's',
  is_admin: true,
  status: 'normal',
  expire_date: null,
  white_ip: null,
  reset_pwd_time: null,
  created_at: NOW,
  updated_at: NOW,
};

describe('FwStore on SQL Server, compiled (no server)', function () {
  let stores: Knex[] = [];
  function setup(respond?: Responder): ReturnType<typeof recordingStore> {
    const recording = recordingStore(respond);
    stores.push(recording.knex);
    return recording;
  }
  afterEach(async function () {
    await Promise.all(stores.map((k) => k.destroy()));
    stores = [];
  });

  it('users.create inserts with OUTPUT inserted.[id] and reads the row back', async function () {
    const { store, sent } = setup((sql) => (sql.startsWith('insert') ? [{ id: 7 }] : [userRow]));
    const user = await store.users.create({ account: 'alice', isAdmin: true });
    expect(sent[0]?.sql).to.match(/^insert into \[fw_user\] \(.*\[account\].*\) output inserted\.\[id\] values \(@p0, /);
    expect(sent[0]?.bindings).to.include('alice');
    expect(sent[1]?.sql).to.equal('select [fw_user].* from [fw_user] where [fw_user].[id] = @p0');
    expect(user).to.include({ id: 7, account: 'alice', isAdmin: true, hasPassword: true });
    expect(user).not.to.have.any.keys('passwordHash', 'passwordSalt');
  });

  it('users.findByAccount and getCredentials select by account, the hash only for credentials', async function () {
    const { store, sent } = setup(() => [userRow]);
    await store.users.findByAccount('alice');
    expect(await store.users.getCredentials('alice')).to.deep.equal({ id: 7, hash: 'h', salt: 's' });
    expect(sent.map((s) => s.sql)).to.deep.equal([
      'select [fw_user].* from [fw_user] where [account] = @p0',
      'select [id], [account], [password_hash], [password_salt] from [fw_user] where [account] = @p0',
    ]);
  });

  it('users.setRoles replaces the links inside one transaction, then bumps the grants version', async function () {
    const { store, sent } = setup((sql) => (sql.includes('[fw_role]') ? [{ id: 2 }, { id: 3 }] : sql.startsWith('select') ? [{ id: 7 }] : 1));
    await store.users.setRoles(7, [3, 2]);
    expect(sent.map((s) => s.sql)).to.deep.equal([
      'BEGIN TRANSACTION',
      'select top (@p0) [id] from [fw_user] where [id] = @p1',
      'select [id] from [fw_role] where [id] in (@p0, @p1)',
      'delete from [fw_user_role] where [user_id] = @p0;select @@rowcount',
      'insert into [fw_user_role] ([role_id], [user_id]) values (@p0, @p1), (@p2, @p3)',
      'COMMIT',
      'update [fw_meta] set [value] = [value] + @p0 where [name] = @p1;select @@rowcount',
    ]);
  });

  it('menus.menusForUser joins the grants of normal roles and drops disabled menus', async function () {
    const { store, sent } = setup(() => []);
    await store.menus.menusForUser(7);
    expect(sent).to.have.length(1);
    expect(sent[0]?.sql).to.equal(
      'select [fw_menu].* from [fw_menu] where [id] in (select [fw_role_menu].[menu_id] from [fw_role_menu] ' +
        'inner join [fw_user_role] on [fw_user_role].[role_id] = [fw_role_menu].[role_id] ' +
        'inner join [fw_role] on [fw_role].[id] = [fw_role_menu].[role_id] ' +
        'where [fw_user_role].[user_id] = @p0 and [fw_role].[status] = @p1) and not [status] = @p2 order by [sort] asc, [id] asc',
    );
    expect(sent[0]?.bindings).to.deep.equal([7, 'normal', 'disabled']);
  });

  it('menus.createModelMenu looks each code up before inserting it', async function () {
    let nextId = 100;
    const { store, sent } = setup((sql) => {
      if (sql.startsWith('insert')) return [{ id: ++nextId }];
      const menu = { id: nextId, code: 'Book', name: 'Book', type: 'table', value: 'Book', icon: null, parent_id: null, sort: 0, status: 'open', created_at: NOW, updated_at: NOW };
      // Lookups by code find nothing; lookups by id find the row just inserted.
      return sql.includes('[code] =') ? [] : [menu];
    });
    const Book = defineModel({ name: 'Book', power: { delete: false, viewDetails: false, edit: false }, fields: { title: {} } });
    await store.menus.createModelMenu(Book);
    const inserts = sent.filter((s) => s.sql.startsWith('insert into [fw_menu]'));
    expect(inserts).to.have.length(2);
    expect(inserts[0]?.bindings).to.include.members(['Book', 'table']);
    expect(inserts[1]?.bindings).to.include.members(['Book@ADD', 'function', 101]);
    expect(inserts.every((s) => s.sql.includes('output inserted.[id]'))).to.equal(true);
  });

  it('loginLogs.list pages with TOP, newest first; insert returns the bigint id', async function () {
    const { store, sent } = setup((sql) => (sql.startsWith('insert') ? [{ id: '9007199254740' }] : []));
    const log = await store.loginLogs.insert({ userId: 7, account: 'alice', method: 'password', tokenHash: 'a'.repeat(64) });
    expect(log.id).to.equal(9_007_199_254_740);
    expect(sent[0]?.sql).to.match(/^insert into \[fw_login_log\] .* output inserted\.\[id\] values/);
    await store.loginLogs.list({ userId: 7, limit: 5 });
    expect(sent[1]?.sql).to.equal('select top (@p0) * from [fw_login_log] where [user_id] = @p1 order by [login_time] desc, [id] desc');
    expect(sent[1]?.bindings).to.deep.equal([5, 7]);
  });

  it('loginLogs writes a failed sign-in with its class and lists failures only (issue 19 §6)', async function () {
    const { store, sent } = setup((sql) => (sql.startsWith('insert') ? [{ id: '12' }] : []));
    const typed = `ad\u0000min${'🔑'.repeat(80)}`;
    const log = await store.loginLogs.insert({ userId: null, account: typed, accountTyped: typed, method: 'password', success: false, reason: 'bad-credentials' });
    expect(log).to.include({ id: 12, success: false, reason: 'bad-credentials', attempts: 1 });
    expect(sent[0]?.sql).to.match(/^insert into \[fw_login_log\] .* output inserted\.\[id\] values/);
    for (const column of ['[success]', '[reason]', '[account_typed]', '[attempts]']) expect(sent[0]?.sql).to.include(column);
    // nvarchar(n) counts UTF-16 code units: both account columns fit, no pair is split, no NUL is sent.
    const strings = sent[0]!.bindings.filter((b): b is string => typeof b === 'string');
    const account = strings.find((b) => b.startsWith('ad') && b.length <= 64);
    const accountTyped = strings.find((b) => b.startsWith('ad') && b.length > 64);
    expect(account).to.have.length.at.most(64);
    expect(accountTyped).to.have.length.at.most(128);
    for (const text of [account!, accountTyped!]) {
      expect(text).to.not.include('\u0000');
      expect(/[\uD800-\uDBFF]$/.test(text)).to.equal(false);
    }
    await store.loginLogs.list({ success: false, limit: 5 });
    expect(sent[1]?.sql).to.equal('select top (@p0) * from [fw_login_log] where [success] = @p1 order by [login_time] desc, [id] desc');
    expect(sent[1]?.bindings).to.deep.equal([5, false]);
  });

  it('openApis.verify looks the key up by app id and still hashes when it is unknown', async function () {
    const { store, sent } = setup(() => []);
    const started = process.hrtime.bigint();
    expect(await store.openApis.verify('nope', 'secret')).to.equal(undefined);
    expect(sent.map((s) => s.sql)).to.deep.equal(['select top (@p0) * from [fw_open_api] where [app_id] = @p1']);
    // A scrypt ran (tens of milliseconds), as it would have for a known app id.
    expect(Number(process.hrtime.bigint() - started) / 1e6).to.be.above(5);
  });

  it('createModelTables compiles identity keys and a composite-key join table', async function () {
    // Every hasTable answers "no such table".
    const { store, sent } = setup(() => []);
    const Tag = defineModel({ name: 'Tag', fields: { label: {} } });
    const Post = defineModel({
      name: 'Post',
      fields: {
        title: { edit: { type: 'INPUT' } },
        body: { edit: { type: 'TEXTAREA' } },
        done: { edit: { type: 'BOOLEAN' } },
        tags: { edit: { type: 'COLLECTION', collection: { model: 'Tag', joinTable: 'post_tag', ownKey: 'post_id', foreignKey: 'tag_id' } } },
      },
    });
    expect(await store.createModelTables([Tag, Post])).to.deep.equal(['tag', 'post', 'post_tag']);
    const creates = sent.map((s) => s.sql).filter((sql) => sql.startsWith('CREATE TABLE'));
    expect(creates).to.deep.equal([
      'CREATE TABLE [tag] ([id] int identity(1,1) not null primary key, [label] nvarchar(255))',
      'CREATE TABLE [post] ([id] int identity(1,1) not null primary key, [title] nvarchar(255), [body] nvarchar(max), [done] bit)',
      'CREATE TABLE [post_tag] ([post_id] int not null, [tag_id] int not null, CONSTRAINT [post_tag_pkey] PRIMARY KEY ([post_id], [tag_id]))',
    ]);
  });

  it('createModelTables creates declared indexes after a new table, and those missing on an existing one (issue 21 §3)', async function () {
    let exists = false;
    const { store, sent } = setup((sql) => {
      if (exists && sql.startsWith('SELECT TABLE_NAME')) return [{ TABLE_NAME: 'ticket' }];
      if (sql.includes('INFORMATION_SCHEMA.COLUMNS'))
        return [
          ['id', 'int'],
          ['status', 'nvarchar'],
          ['created_at', 'datetime2'],
        ].map((c) => [c[0], null, c[1], null, 'YES'].map((value) => ({ value })));
      // sys.indexes: the table already has its status index, under another name.
      if (sql.includes('sys.indexes')) return [{ name: 'by_hand', col: 'status' }];
      return [];
    });
    const Ticket = defineModel({
      name: 'Ticket',
      fields: { status: { index: true }, createdAt: { column: 'created_at', edit: { type: 'DATETIME' } } },
      indexes: [['createdAt', 'id']],
    });
    expect(await store.createModelTables([Ticket])).to.deep.equal(['ticket']);
    const creates = () => sent.map((s) => s.sql).filter((sql) => sql.startsWith('create index'));
    expect(creates()).to.deep.equal(['create index [fw_ix_ticket_status] on [ticket] ([status])', 'create index [fw_ix_ticket_created_at_id] on [ticket] ([created_at], [id])']);
    sent.length = 0;
    exists = true;
    expect(await store.createModelTables([Ticket])).to.deep.equal([]);
    expect(sent.some((s) => s.sql.includes('object_id(@p0)') && s.bindings[0] === 'ticket')).to.equal(true);
    expect(creates()).to.deep.equal(['create index [fw_ix_ticket_created_at_id] on [ticket] ([created_at], [id])']);
  });

  it('createModelTables leaves a declared index over an nvarchar(max) column as a note with the SQL to convert it', async function () {
    const { store, sent } = setup((sql) => {
      if (sql.startsWith('SELECT TABLE_NAME')) return [{ TABLE_NAME: 'memo' }];
      if (sql.includes('INFORMATION_SCHEMA.COLUMNS'))
        return [
          ['id', 'int', null],
          ['status', 'nvarchar', -1],
        ].map((c) => [c[0], null, c[1], c[2], 'YES'].map((value) => ({ value })));
      return [];
    });
    const Memo = defineModel({ name: 'Memo', fields: { status: { index: true } } });
    const plan = await store.planModelTables([Memo]);
    expect(plan.safe).to.deep.equal([]);
    expect(plan.notes.map((n) => [n.kind, n.index, n.column])).to.deep.equal([['indexNotPossible', 'fw_ix_memo_status', 'status']]);
    expect(plan.notes[0]!.sql).to.equal('alter table [memo] alter column [status] nvarchar(255);\ncreate index [fw_ix_memo_status] on [memo] ([status]);');
    expect(await store.createModelTables([Memo])).to.deep.equal([]);
    expect(sent.some((s) => s.sql.startsWith('create index'))).to.equal(false);
  });

  it("createModelTables adds a new field's column to an existing table, and reports a type change with SQL Server SQL", async function () {
    // INFORMATION_SCHEMA.COLUMNS rows as tedious gives them: [name, default, type, max length, nullable].
    const column = (name: string, type: string, maxLength: number | null = null) => [name, null, type, maxLength, 'YES'].map((value) => ({ value }));
    let titleType = 'nvarchar';
    const { store, sent } = setup((sql) => {
      if (sql.startsWith('SELECT TABLE_NAME')) return [{ TABLE_NAME: 'post' }];
      if (sql.includes('INFORMATION_SCHEMA.COLUMNS')) return [column('id', 'int'), column('title', titleType, 255), column('body', 'nvarchar', -1), column('done', 'bit')];
      return [];
    });
    const Post = defineModel({
      name: 'Post',
      fields: {
        title: { edit: { type: 'INPUT' } },
        body: { edit: { type: 'TEXTAREA' } },
        done: { edit: { type: 'BOOLEAN' } },
        views: { edit: { type: 'NUMBER', integer: true, defaultValue: 0 } },
        seen: { edit: { type: 'DATETIME' } },
      },
    });
    expect(await store.createModelTables([Post])).to.deep.equal([]);
    expect(sent.map((s) => s.sql).filter((sql) => sql.startsWith('ALTER TABLE'))).to.deep.equal([
      "ALTER TABLE [post] ADD [views] int CONSTRAINT [post_views_default] DEFAULT '0'",
      'ALTER TABLE [post] ADD [seen] datetime2',
    ]);
    titleType = 'int';
    const error = await store.createModelTables([Post]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ModelTablesError);
    expect((error as ModelTablesError).differences.map((d) => [d.kind, d.column, d.sql])).to.deep.equal([
      ['typeChanged', 'title', 'ALTER TABLE [post] ALTER COLUMN [title] nvarchar(255);'],
    ]);
  });

  it('binds Dates as DATETIME2 on a store opened from a URL, so no millisecond is rounded away', async function () {
    const store = createStore('mssql://sa:pw@127.0.0.1:1/fw?encrypt=false');
    try {
      const connection = store.knex.client.config.connection as { options?: { encrypt?: boolean; mapBinding?: (value: unknown) => unknown } };
      expect(connection.options?.encrypt).to.equal(false);
      const when = new Date('2030-01-01T00:00:00.001Z');
      expect(connection.options?.mapBinding?.(when)).to.deep.equal({ value: when, type: TYPES.DateTime2 });
      expect(connection.options?.mapBinding?.('text')).to.equal(undefined);
    } finally {
      await store.destroy();
    }
  });
});
