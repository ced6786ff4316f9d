import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { compileMigrations } from './migrations.js';
import { createStore, type FwStore } from './store.js';
import type { SavedViewInput } from './views.js';

const view = (name: string, roleIds: number[] = []): SavedViewInput => ({
  name,
  conditions: [{ or: [{ field: 'title', op: 'like', value: 'ü' }] }],
  sort: [{ field: 'title', order: 'asc' }],
  pageSize: 25,
  columns: ['title'],
  roleIds,
});

describeEachSql('store.views (migration 0017_saved_views)', (db) => {
  let store: FwStore;
  let ann: number;
  let ben: number;
  let role: number;
  before(async function () {
    store = createStore(db().url);
    await store.migrate.latest();
    ann = (await store.users.create({ account: 'ann', password: 'x-password-1' })).id;
    ben = (await store.users.create({ account: 'ben', password: 'x-password-1' })).id;
    role = (await store.roles.create({ code: 'team', name: 'Team' })).id;
    await store.users.setRoles(ben, [role]);
    // Sharing counts only with a role the owner holds too.
    await store.users.setRoles(ann, [role]);
  });
  after(async function () {
    await store?.destroy();
  });

  it('stores a view with its JSON and roles, and gives it back to its owner and to holders of its roles', async function () {
    const created = await store.views.create(ann, 'Book', view('Mine', [role, role]));
    expect(created).to.include({ model: 'Book', userId: ann, name: 'Mine', pageSize: 25 });
    expect(created.conditions).to.deep.equal(view('x').conditions);
    expect(created.roleIds).to.deep.equal([role]);
    expect(created.createdAt).to.be.instanceOf(Date);
    expect((await store.views.listFor(ann, 'Book')).map((v) => v.id)).to.deep.equal([created.id]);
    expect((await store.views.listFor(ben, 'Book')).map((v) => v.id)).to.deep.equal([created.id]);
    // Model names are case-sensitive, on every dialect.
    expect(await store.views.listFor(ann, 'book')).to.deep.equal([]);
    expect(await store.views.countOwn(ann, 'Book')).to.equal(1);
    expect(await store.views.countOwn(ben, 'Book')).to.equal(0);
  });

  it('changes and deletes only the owner’s views', async function () {
    const created = await store.views.create(ann, 'Note', view('Private'));
    expect(await store.views.update(ben, 'Note', created.id, view('Stolen'))).to.equal(undefined);
    expect(await store.views.delete(ben, 'Note', created.id)).to.equal(false);
    expect(await store.views.delete(ann, 'Book', created.id)).to.equal(false);
    const renamed = await store.views.update(ann, 'Note', created.id, { ...view('Renamed', [role]), columns: null });
    expect(renamed).to.include({ name: 'Renamed', columns: null });
    expect(renamed?.roleIds).to.deep.equal([role]);
    expect(await store.views.delete(ann, 'Note', created.id)).to.equal(true);
    expect(await store.knex('fw_saved_view_role').where('view_id', created.id)).to.have.length(0);
    expect(await store.views.findOwn(ann, created.id)).to.equal(undefined);
  });

  it('createWithin: twenty saves at once never pass the limit', async function () {
    const dora = (await store.users.create({ account: 'dora', password: 'x-password-1' })).id;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.views.createWithin(dora, 'Book', view(`race ${i}`), 3)));
    expect(results.filter((r) => r.ok)).to.have.length(3);
    expect(results.filter((r) => !r.ok).map((r) => (r.ok ? -1 : r.count))).to.deep.equal(Array.from({ length: 17 }, () => 3));
    expect(await store.views.countOwn(dora, 'Book')).to.equal(3);
    // Another model has its own count.
    expect((await store.views.createWithin(dora, 'Note', view('other'), 3)).ok).to.equal(true);
    await store.users.delete(dora);
  });

  it('shares only what the owner still holds', async function () {
    const created = await store.views.create(ann, 'Plan', view('Team plan', [role]));
    expect((await store.views.listFor(ben, 'Plan')).map((v) => v.id)).to.deep.equal([created.id]);
    await store.users.setRoles(ann, []);
    try {
      expect(await store.views.listFor(ben, 'Plan')).to.deep.equal([]);
      expect((await store.views.listFor(ann, 'Plan')).map((v) => v.id)).to.deep.equal([created.id]);
    } finally {
      await store.users.setRoles(ann, [role]);
    }
  });

  it('drops a user’s views and their role links with the user', async function () {
    const carl = (await store.users.create({ account: 'carl', password: 'x-password-1' })).id;
    const created = await store.views.create(carl, 'Book', view('Gone soon', [role]));
    await store.users.delete(carl);
    expect(await store.knex('fw_saved_view').where('id', created.id)).to.have.length(0);
    expect(await store.knex('fw_saved_view_role').where('view_id', created.id)).to.have.length(0);
  });
});

describe('Migration 0017_saved_views, compiled for SQL Server', function () {
  it('creates both tables with a case-sensitive model column, cascades and the lookup indexes, and drops them', async function () {
    const migration = (await compileMigrations('mssql')).find((m) => m.name === '0017_saved_views')!;
    const view = migration.up.find((s) => s.startsWith('CREATE TABLE [fw_saved_view] ('))!;
    expect(view).to.include('[model] nvarchar(64) collate Latin1_General_BIN2 not null');
    expect(view).to.include('FOREIGN KEY ([user_id]) REFERENCES [fw_user] ([id]) ON DELETE CASCADE');
    const link = migration.up.find((s) => s.startsWith('CREATE TABLE [fw_saved_view_role] ('))!;
    expect(link).to.include('PRIMARY KEY ([view_id], [role_id])');
    expect(link).to.include('FOREIGN KEY ([role_id]) REFERENCES [fw_role] ([id]) ON DELETE CASCADE');
    expect(migration.up).to.include('CREATE INDEX [fw_saved_view_role_role_index] ON [fw_saved_view_role] ([role_id])');
    expect(migration.up).to.include('CREATE INDEX [fw_saved_view_user_model_index] ON [fw_saved_view] ([user_id], [model])');
    // The link table goes first: it points at the views.
    expect(migration.down.map((s) => /DROP TABLE \[(\w+)\]/.exec(s)?.[1])).to.deep.equal(['fw_saved_view_role', 'fw_saved_view']);
  });
});
