import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { describeRoutes } from '@fw/http';
import { Book, Ledger, setupData, type DataFixture } from '../test-setup.js';
import { VIEW_LIMITS } from '../views/saved-views.js';
import { VIEW_ROUTES } from './view-routes.js';

const api = '/fw-api';

// Saved views (issue 23 §1): GET / POST /views/{fw}, DELETE /views/{fw}/{id}. Alice holds the
// editor role (every Book menu), bob the reader role (query on Book and Note), carol no role.
describeEachSql('fwData saved views: /views/{fw}', (db) => {
  let f: DataFixture;
  let t: Record<'admin' | 'alice' | 'bob' | 'carol', string>;

  before(async () => {
    f = await setupData(db().url);
    t = { admin: await f.token('admin'), alice: await f.token('alice'), bob: await f.token('bob'), carol: await f.token('carol') };
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    await f.store.knex('fw_saved_view_role').delete();
    await f.store.knex('fw_saved_view').delete();
    await f.store.users.setRoles(f.users.carol.id, []);
  });

  const list = (model: string, token: string) => f.agent.get(`${api}/views/${model}`).set('token', token);
  const save = (model: string, token: string, body: unknown) => f.agent.post(`${api}/views/${model}`).set('token', token).send(body as object);
  const remove = (model: string, token: string, id: unknown) => f.agent.delete(`${api}/views/${model}/${String(id)}`).set('token', token);
  const cheapNovels = {
    name: 'Cheap novels',
    conditions: [{ field: 'genre', value: 'novel' }, { or: [{ field: 'price', op: 'lt', value: 5 }, { field: 'price', op: 'isNull' }] }],
    sort: 'price,desc',
    size: 10,
    columns: ['title', 'price'],
  };

  it('creates, lists, replaces and deletes a view of its owner', async () => {
    const created = await save('Book', t.alice, cheapNovels);
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(created.body).to.include({ name: 'Cheap novels', mine: true, size: 10 });
    expect(created.body.owner).to.deep.equal({ id: f.users.alice.id, account: f.users.alice.account });
    expect(created.body.roles).to.deep.equal([]);
    expect(created.body.sort).to.deep.equal([{ field: 'price', order: 'desc' }]);
    expect(created.body.conditions).to.deep.equal([{ field: 'genre', op: 'eq', value: 'novel' }, cheapNovels.conditions[1]]);
    expect(created.body.columns).to.deep.equal(['title', 'price']);
    expect(created.body).not.to.have.property('broken');
    // What a view holds is a table query the table route takes as it is.
    const page = await f.agent.post(`${api}/data/table/Book`).set('token', t.alice).send({ conditions: created.body.conditions, sort: created.body.sort, size: created.body.size });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);

    const listed = await list('Book', t.alice).expect(200);
    expect(listed.headers['cache-control']).to.equal('no-store');
    expect(listed.body.views.map((v: { id: number }) => v.id)).to.deep.equal([created.body.id]);

    const replaced = await save('Book', t.alice, { id: created.body.id, name: 'All novels', conditions: [{ field: 'genre', value: 'novel' }] });
    expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
    expect(replaced.body).to.include({ id: created.body.id, name: 'All novels', size: null, columns: null });
    expect(replaced.body.sort).to.deep.equal([]);
    expect((await list('Book', t.alice)).body.views.map((v: { name: string }) => v.name)).to.deep.equal(['All novels']);
    // Views belong to one model: alice's Book view is not among her Note views.
    expect((await list('Note', t.alice).expect(200)).body.views).to.deep.equal([]);

    expect((await remove('Book', t.alice, created.body.id)).body).to.deep.equal({ id: created.body.id, deleted: true });
    expect((await list('Book', t.alice)).body.views).to.deep.equal([]);
    expect((await remove('Book', t.alice, created.body.id).expect(404)).body.error.code).to.equal('NOT_FOUND');
  });

  it('checks a view with the table query parser when it is saved', async () => {
    const refused = async (body: unknown, status: number, code: string, path: string) => {
      const res = await save('Book', t.alice, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.error.details[0].path).to.equal(path);
    };
    await refused({ name: 'x', conditions: [{ or: [{ field: 'price', op: 'eq', value: 'cheap' }] }] }, 400, 'BAD_QUERY', 'conditions[0].or[0].value');
    await refused({ name: 'x', conditions: [{ and: [{ field: 'secret', value: 'a' }] }] }, 400, 'BAD_QUERY', 'conditions[0].and[0].field');
    await refused({ name: 'x', sort: [{ field: 'nope' }] }, 400, 'UNKNOWN_FIELD', 'sort[0].field');
    await refused({ name: 'x', size: 100_000 }, 400, 'BAD_QUERY', 'size');
    await refused({ name: 'x', columns: ['title', 'nope'] }, 400, 'UNKNOWN_FIELD', 'columns[1]');
    await refused({ name: '' }, 400, 'BAD_REQUEST', 'name');
    await refused({ name: 'x'.repeat(VIEW_LIMITS.nameLength + 1) }, 400, 'BAD_REQUEST', 'name');
    await refused({ name: 'a\u0000b' }, 400, 'BAD_REQUEST', 'name');
    await refused({ name: 'x', owner: f.users.admin.id }, 400, 'BAD_REQUEST', 'owner');
    await refused({ name: 'x', roles: ['1'] }, 400, 'BAD_REQUEST', 'roles[0]');
    await refused({ name: 'x', id: -1 }, 400, 'BAD_REQUEST', 'id');
    expect(await f.store.knex('fw_saved_view')).to.have.length(0);
  });

  it('shares with roles by the who-may-grant rule, from the attacker’s side', async () => {
    // Alice holds the editor role, not the reader role.
    const denied = await save('Book', t.alice, { ...cheapNovels, roles: [f.roles.editor, f.roles.reader] });
    expect(denied.status, JSON.stringify(denied.body)).to.equal(403);
    expect(denied.body.error.code).to.equal('GRANT_DENIED');
    expect(denied.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['roles[1]']);
    expect(await f.store.knex('fw_saved_view')).to.have.length(0);

    const shared = await save('Book', t.alice, { ...cheapNovels, roles: [f.roles.editor] });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(200);
    expect(shared.body.roles).to.deep.equal([f.roles.editor]);
    // Nor may she widen an existing view's sharing to a role she lacks.
    expect((await save('Book', t.alice, { ...cheapNovels, id: shared.body.id, roles: [f.roles.reader] })).status).to.equal(403);

    // Bob (reader) does not see it; carol, once she holds the editor role, does, but not its roles.
    expect((await list('Book', t.bob).expect(200)).body.views).to.deep.equal([]);
    await f.store.users.setRoles(f.users.carol.id, [f.roles.editor]);
    const seen = (await list('Book', t.carol).expect(200)).body.views;
    expect(seen.map((v: { id: number; mine: boolean }) => [v.id, v.mine])).to.deep.equal([[shared.body.id, false]]);
    expect(seen[0]).not.to.have.property('roles');
    expect(seen[0].owner).to.deep.equal({ id: f.users.alice.id, account: f.users.alice.account });

    // Carol may not change or delete it: it is not found among her views.
    const taken = await save('Book', t.carol, { ...cheapNovels, id: shared.body.id, name: 'Mine now' });
    expect(taken.status).to.equal(404);
    expect(taken.body.error.code).to.equal('NOT_FOUND');
    expect((await remove('Book', t.carol, shared.body.id)).status).to.equal(404);
    // Nor through another model's path.
    expect((await remove('Note', t.alice, shared.body.id)).status).to.equal(404);
    const stored = await f.store.views.findOwn(f.users.alice.id, shared.body.id);
    expect(stored?.name).to.equal('Cheap novels');

    // An administrator may share with any role that exists.
    const byAdmin = await save('Book', t.admin, { name: 'For readers', roles: [f.roles.reader] });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).to.equal(200);
    expect((await list('Book', t.bob)).body.views.map((v: { name: string }) => v.name)).to.deep.equal(['For readers']);
    const unknown = await save('Book', t.admin, { name: 'Nobody', roles: [2_000_000_000] });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.error.details[0].path).to.equal('roles[0]');

    // A locked role shares nothing.
    await f.store.roles.update(f.roles.reader, { status: 'locked' });
    try {
      expect((await f.store.views.listFor(f.users.bob.id, 'Book')).map((v) => v.name)).to.deep.equal([]);
    } finally {
      await f.store.roles.update(f.roles.reader, { status: 'normal' });
    }
  });

  it('needs query on the model for every route (403), a token (401) and a known model (404)', async () => {
    // Bob has no menu of Ledger; carol has no role at all.
    for (const [model, token] of [
      [Ledger.name, t.bob],
      [Book.name, t.carol],
    ] as const) {
      for (const res of [await list(model, token), await save(model, token, { name: 'x' }), await remove(model, token, 1)]) {
        expect(res.status, `${model} ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.error.code).to.equal('POWER_DENIED');
      }
    }
    expect((await f.agent.get(`${api}/views/Book`)).status).to.equal(401);
    expect((await f.agent.post(`${api}/views/Book`).send({ name: 'x' })).status).to.equal(401);
    expect((await list('Nope', t.alice)).body.error.code).to.equal('MODEL_NOT_FOUND');
    // The body is read before the model's power is asked (the order of every data route).
    const malformed = await f.agent.post(`${api}/views/${Ledger.name}`).set('token', t.bob).set('content-type', 'application/json').send('{"name":');
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal('INVALID_JSON');
    for (const id of ['0', 'abc', '99999999999', '1.5']) expect((await remove('Book', t.alice, id)).status, id).to.equal(404);
  });

  it('bounds the body and the views per user and model', async () => {
    const big = await save('Book', t.alice, { name: 'big', conditions: [{ field: 'title', op: 'in', value: Array.from({ length: 900 }, (_, i) => `title number ${i} ${'x'.repeat(60)}`) }] });
    expect(big.status).to.equal(413);
    for (let i = 0; i < VIEW_LIMITS.perUserAndModel; i++) {
      await f.store.views.create(f.users.alice.id, 'Book', { name: `v${i}`, conditions: [], sort: [], pageSize: null, columns: null, roleIds: [] });
    }
    const over = await save('Book', t.alice, { name: 'one more' });
    expect(over.status).to.equal(409);
    expect(over.body.error.code).to.equal('CONFLICT');
    // Replacing one still works, and another user's count is their own.
    const first = (await list('Book', t.alice)).body.views[0];
    expect((await save('Book', t.alice, { id: first.id, name: 'renamed' })).status).to.equal(200);
    expect((await save('Book', t.admin, { name: 'admin view' })).status).to.equal(200);
  });

  it('holds the per-user limit when many saves arrive at once', async () => {
    // Red-team leftover: the count and the insert were two steps, so concurrent saves all read
    // the same count and each inserted. Five places left, twenty saves racing for them.
    const free = 5;
    for (let i = 0; i < VIEW_LIMITS.perUserAndModel - free; i++) {
      await f.store.views.create(f.users.alice.id, 'Book', { name: `v${i}`, conditions: [], sort: [], pageSize: null, columns: null, roleIds: [] });
    }
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => save('Book', t.alice, { name: `racer ${i}` })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200), JSON.stringify(answers.filter((r) => r.status !== 200 && r.status !== 409).map((r) => r.body))).to.have.length(free);
    expect(statuses.filter((s) => s === 409)).to.have.length(20 - free);
    expect(await f.store.views.countOwn(f.users.alice.id, 'Book')).to.equal(VIEW_LIMITS.perUserAndModel);
  });

  it('shares a view only while its owner still holds the role (or is still an administrator) and may sign in', async () => {
    const names = async (token: string) => (await list('Book', token).expect(200)).body.views.map((v: { name: string }) => v.name);
    await f.store.users.setRoles(f.users.carol.id, [f.roles.editor]);
    const stamp = Date.now();
    // An owner of our own, so the fixture's users keep their roles and status.
    const dave = await f.store.users.create({ account: `dave-${stamp}`, password: 'x-password-1', mustChangePassword: false });
    await f.store.users.setRoles(dave.id, [f.roles.editor]);
    await f.store.views.create(dave.id, 'Book', { name: 'By dave', conditions: [], sort: [], pageSize: null, columns: null, roleIds: [f.roles.editor] });
    expect(await names(t.carol)).to.deep.equal(['By dave']);
    // Dave loses the role: what he shared with it is no longer shared.
    await f.store.users.setRoles(dave.id, []);
    expect(await names(t.carol)).to.deep.equal([]);
    await f.store.users.setRoles(dave.id, [f.roles.editor]);
    expect(await names(t.carol)).to.deep.equal(['By dave']);
    // A locked or expired account shares nothing; a deleted one takes its views along.
    await f.store.users.update(dave.id, { status: 'locked' });
    expect(await names(t.carol)).to.deep.equal([]);
    await f.store.users.update(dave.id, { status: 'normal', expireDate: new Date(Date.now() - 60_000) });
    expect(await names(t.carol)).to.deep.equal([]);
    await f.store.users.update(dave.id, { expireDate: new Date(Date.now() + 3_600_000) });
    expect(await names(t.carol)).to.deep.equal(['By dave']);
    await f.store.users.delete(dave.id);
    expect(await names(t.carol)).to.deep.equal([]);

    // An administrator shares with roles they do not hold, for as long as they are one.
    const erin = await f.store.users.create({ account: `erin-${stamp}`, password: 'x-password-1', isAdmin: true, mustChangePassword: false });
    await f.store.views.create(erin.id, 'Book', { name: 'By erin', conditions: [], sort: [], pageSize: null, columns: null, roleIds: [f.roles.reader] });
    expect(await names(t.bob)).to.deep.equal(['By erin']);
    await f.store.users.update(erin.id, { isAdmin: false });
    expect(await names(t.bob)).to.deep.equal([]);
    // The owner still sees their own view, whatever they hold.
    expect((await f.store.views.listFor(erin.id, 'Book')).map((v) => v.name)).to.deep.equal(['By erin']);
    await f.store.users.delete(erin.id);
  });

  it('returns a view whose fields are gone as broken, not as a failure', async () => {
    const gone = await f.store.views.create(f.users.alice.id, 'Book', {
      name: 'Old',
      conditions: [{ or: [{ field: 'shelf', op: 'eq', value: 3 }, { field: 'title', op: 'like', value: 'a' }] }],
      sort: [{ field: 'weight', order: 'asc' }],
      pageSize: 20,
      columns: ['title', 'cover'],
      roleIds: [],
    });
    const stale = await f.store.views.create(f.users.alice.id, 'Book', { name: 'Poems', conditions: [{ field: 'genre', op: 'eq', value: 'poem' }], sort: [], pageSize: null, columns: null, roleIds: [] });
    await save('Book', t.alice, { name: 'Fine' });
    const res = await list('Book', t.alice).expect(200);
    const byName = Object.fromEntries(res.body.views.map((v: { name: string }) => [v.name, v]));
    expect(byName.Old.id).to.equal(gone.id);
    expect(byName.Old.broken.fields).to.deep.equal(['cover', 'shelf', 'weight']);
    expect(byName.Poems.id).to.equal(stale.id);
    expect(byName.Poems.broken.fields).to.deep.equal([]);
    expect(byName.Poems.broken.message).to.include('conditions[0].value');
    expect(byName.Fine).not.to.have.property('broken');
  });

  it('declares its routes for the OpenAPI description, once per model that allows query', () => {
    const paths = describeRoutes(VIEW_ROUTES, [Book, Ledger]);
    expect(Object.keys(paths).sort()).to.deep.equal(['/views/Book', '/views/Book/{id}', '/views/Ledger', '/views/Ledger/{id}']);
    expect(Object.keys(paths['/views/Book']!).sort()).to.deep.equal(['get', 'post']);
    expect(paths['/views/Book']!.post!.operationId).to.equal('saveViewBook');
  });
});
