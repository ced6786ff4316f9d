import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from '../http/router.js';

const api = '/fw-api';

/** Authors; a hidden one is seen by administrators only (its name must not leak through a label). */
const Author = defineModel({
  name: 'Author',
  table: 'ra_author',
  fields: {
    name: { edit: { notNull: true } },
    email: {},
    hidden: { edit: { type: 'BOOLEAN', notNull: true, defaultValue: false } },
  },
  dataProxy: { beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'hidden', op: 'eq', value: false }]) },
});

/** A tree of categories. */
const Category = defineModel({
  name: 'Category',
  table: 'ra_category',
  treeParentField: 'parentId',
  fields: {
    title: { edit: { notNull: true } },
    parentId: { column: 'parent_id', edit: { type: 'REFERENCE_TREE', reference: { model: 'Category' } } },
  },
});

/** Labels whose label field is not one of the default names. */
const Label = defineModel({ name: 'Label', table: 'ra_label', fields: { text: {}, code: {} } });

/** Rows named by nothing but their key. */
const Counter = defineModel({ name: 'Counter', table: 'ra_counter', fields: { n: { edit: { type: 'NUMBER', integer: true } } } });

const Article = defineModel({
  name: 'Article',
  table: 'ra_article',
  power: {
    // The editor may add and edit articles but not list them: the candidates route must still serve them.
    powerHandler: (power, { user }) => {
      if (user.account.startsWith('editor-')) power.query = false;
    },
  },
  fields: {
    subject: { edit: { notNull: true } },
    secret: { edit: { type: 'PASSWORD' } },
    authorId: { column: 'author_id', edit: { type: 'REFERENCE_TABLE', reference: { model: 'Author' } } },
    editorId: { column: 'editor_id', edit: { type: 'REFERENCE_TABLE', reference: { model: 'Author', labelField: 'email' } } },
    categoryId: { column: 'category_id', edit: { type: 'REFERENCE_TREE', reference: { model: 'Category' } } },
    counterId: { column: 'counter_id', edit: { type: 'REFERENCE_TABLE', reference: { model: 'Counter' } } },
    labels: { edit: { type: 'COLLECTION', collection: { model: 'Label', joinTable: 'ra_article_label', ownKey: 'article_id', foreignKey: 'label_id', labelField: 'text' } } },
    reviewers: { edit: { type: 'COLLECTION', collection: { model: 'Author', joinTable: 'ra_article_reviewer', ownKey: 'article_id', foreignKey: 'author_id' } } },
  },
});

interface Fixture {
  store: FwStore;
  agent: ReturnType<typeof request>;
  tokens: Record<'admin' | 'editor' | 'viewer' | 'nobody', string>;
  ids: { authors: Record<string, number>; categories: Record<string, number>; labels: Record<string, number>; articles: number[]; counter: number };
  /** SQL statements run while `fn` runs. */
  statements(fn: () => Promise<unknown>): Promise<string[]>;
}

async function insert(store: FwStore, table: string, row: Record<string, unknown>): Promise<number> {
  const [first] = (await (store.dialect === 'mysql' ? store.knex(table).insert(row) : store.knex(table).insert(row, ['id']))) as Array<number | { id: number }>;
  return Number(typeof first === 'object' ? first.id : first);
}

/**
 * The models above on a fresh database, with: `editor` (Article add and edit, no query, nothing on
 * Author, Category or Label), `viewer` (Article query only), `nobody` (no role) and `admin`;
 * `tokens` holds a token of each.
 */
async function setup(url: string): Promise<Fixture & { destroy(): Promise<void> }> {
  const store = createStore(url);
  await store.migrate.latest();
  const registry = createRegistry([...BUILTIN_MODELS, Author, Category, Label, Counter, Article]);
  await store.createModelTables([Author, Category, Label, Counter, Article]);
  const { menu, functions } = await store.menus.createModelMenu(Article);
  const code = (c: string) => functions.find((f) => f.code === c)!.id;
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const make = async (account: string, isAdmin = false): Promise<FwUser> => {
    const row = await store.users.create({ account: `${account}-${stamp}`, name: account, password: 'x-password-1', isAdmin, mustChangePassword: false });
    return { id: row.id, account: row.account, name: row.name, isAdmin };
  };
  const users = { admin: await make('admin', true), editor: await make('editor'), viewer: await make('viewer'), nobody: await make('nobody') };
  const editorRole = await store.roles.create({ code: `ra-editor-${stamp}`, name: 'Editor' });
  const viewerRole = await store.roles.create({ code: `ra-viewer-${stamp}`, name: 'Viewer' });
  await store.roles.setMenus(editorRole.id, [menu.id, code('Article@ADD'), code('Article@EDIT')]);
  await store.roles.setMenus(viewerRole.id, [menu.id]);
  await store.users.setRoles(users.editor.id, [editorRole.id]);
  await store.users.setRoles(users.viewer.id, [viewerRole.id]);

  const authors: Record<string, number> = {};
  for (const [name, hidden] of [['Ursula', false], ['Frank', false], ['Zed (hidden)', true], ['Anna', false]] as const) {
    authors[name] = await insert(store, 'ra_author', { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com`, hidden });
  }
  const categories: Record<string, number> = {};
  categories.Fiction = await insert(store, 'ra_category', { title: 'Fiction', parent_id: null });
  categories['Science fiction'] = await insert(store, 'ra_category', { title: 'Science fiction', parent_id: categories.Fiction });
  categories.Essays = await insert(store, 'ra_category', { title: 'Essays', parent_id: null });
  const labels: Record<string, number> = {};
  for (const text of ['classic', 'new', '100% cotton']) labels[text] = await insert(store, 'ra_label', { text, code: text.slice(0, 3) });
  const counter = await insert(store, 'ra_counter', { n: 7 });
  const articles: number[] = [];
  const article = async (subject: string, authorId: number, editorId: number | null, categoryId: number | null, labelIds: number[], reviewerIds: number[]) => {
    const id = await insert(store, 'ra_article', { subject, author_id: authorId, editor_id: editorId, category_id: categoryId, counter_id: counter });
    for (const l of labelIds) await store.knex('ra_article_label').insert({ article_id: id, label_id: l });
    for (const r of reviewerIds) await store.knex('ra_article_reviewer').insert({ article_id: id, author_id: r });
    articles.push(id);
  };
  await article('Dune review', authors.Frank!, authors.Ursula!, categories['Science fiction']!, [labels.classic!, labels.new!], [authors.Ursula!, authors['Zed (hidden)']!]);
  await article('Earthsea notes', authors.Ursula!, null, categories.Fiction!, [], []);
  await article('Secret draft', authors['Zed (hidden)']!, authors['Zed (hidden)']!, null, [labels['100% cotton']!], [authors.Anna!]);

  const tokens = new FwTokenService({ store: new MemoryTokenStore() });
  const app = new Koa();
  app.silent = true;
  app.use(fwData({ store, tokens, registry }));
  const token = async (user: FwUser) => (await tokens.loginToken(user, tokens.generateToken())).token;
  return {
    store,
    agent: request(app.callback()),
    tokens: { admin: await token(users.admin), editor: await token(users.editor), viewer: await token(users.viewer), nobody: await token(users.nobody) },
    ids: { authors, categories, labels, articles, counter },
    async statements(fn) {
      const seen: string[] = [];
      const listener = (q: { sql: string }) => seen.push(q.sql);
      store.knex.on('query', listener);
      try {
        await fn();
      } finally {
        store.knex.off('query', listener);
      }
      return seen;
    },
    destroy: () => store.destroy(),
  };
}

describeEachSql('labels in POST /data/table/{fw}', (db) => {
  let f: Fixture & { destroy(): Promise<void> };
  before(async () => {
    f = await setup(db().url);
  });
  after(() => f?.destroy());

  it('labels every reference and collection value of the page, and selects collections as id arrays', async () => {
    const admin = f.tokens.admin;
    const { body } = await f.agent.post(`${api}/data/table/Article`).set('token', admin).send({ sort: [{ field: 'subject', order: 'asc' }] }).expect(200);
    const { authors: a, categories: c, labels: l } = f.ids;
    expect(body.rows.map((r: { subject: string }) => r.subject)).to.deep.equal(['Dune review', 'Earthsea notes', 'Secret draft']);
    expect(body.rows[0]).to.include({ authorId: a.Frank, editorId: a.Ursula, categoryId: c['Science fiction'] });
    expect(body.rows[0].labels).to.deep.equal([l.classic, l.new].sort((x, y) => x! - y!));
    expect(body.rows[0].reviewers).to.deep.equal([a.Ursula, a['Zed (hidden)']].sort((x, y) => x! - y!));
    expect(body.rows[1]).to.deep.include({ labels: [], reviewers: [] });
    expect(body.rows[0]).not.to.have.property('secret');
    expect(body.labels).to.deep.equal({
      authorId: { [a.Frank!]: 'Frank', [a.Ursula!]: 'Ursula', [a['Zed (hidden)']!]: 'Zed (hidden)' },
      // The declared label field of this reference: the e-mail address.
      editorId: { [a.Ursula!]: 'ursula@example.com', [a['Zed (hidden)']!]: 'zed@example.com' },
      categoryId: { [c['Science fiction']!]: 'Science fiction', [c.Fiction!]: 'Fiction' },
      // No label-like field: the key itself.
      counterId: { [f.ids.counter]: String(f.ids.counter) },
      labels: { [l.classic!]: 'classic', [l.new!]: 'new', [l['100% cotton']!]: '100% cotton' },
      reviewers: { [a.Ursula!]: 'Ursula', [a['Zed (hidden)']!]: 'Zed (hidden)', [a.Anna!]: 'Anna' },
    });
  });

  it('gives no label for a row the referenced model hides from the user (its beforeFetch), though the id is in the row', async () => {
    const viewer = f.tokens.viewer;
    const { body } = await f.agent.post(`${api}/data/table/Article`).set('token', viewer).send({ sort: [{ field: 'subject', order: 'asc' }] }).expect(200);
    const hidden = String(f.ids.authors['Zed (hidden)']);
    expect(body.rows[2].authorId).to.equal(f.ids.authors['Zed (hidden)']);
    for (const field of ['authorId', 'editorId', 'reviewers']) expect(body.labels[field], field).not.to.have.property(hidden);
    expect(JSON.stringify(body.labels)).not.to.contain('Zed');
    expect(JSON.stringify(body.labels)).not.to.contain('zed@');
    expect(body.labels.authorId[f.ids.authors.Frank!]).to.equal('Frank');
  });

  it('reads each referenced model once per page, whatever the number of rows and fields pointing at it', async () => {
    const admin = f.tokens.admin;
    // The session's "last seen" write (once a minute per token, not awaited) is no part of the page.
    const run = async (size: number) => (await f.statements(() => f.agent.post(`${api}/data/table/Article`).set('token', admin).send({ size }).expect(200))).filter((q) => !/last_seen_at/i.test(q));
    const fromTable = (sql: string[], table: string) => sql.filter((q) => new RegExp(`from [\`"\\[]?${table}[\`"\\]]?(\\s|$)`, 'i').test(q));
    const one = await run(1);
    const all = await run(3);
    // Author is read once for authorId, editorId and reviewers together.
    expect(fromTable(all, 'ra_author')).to.have.length(1);
    expect(fromTable(all, 'ra_category')).to.have.length(1);
    expect(fromTable(all, 'ra_label')).to.have.length(1);
    expect(fromTable(all, 'ra_article_label')).to.have.length(1);
    expect(all.length).to.equal(one.length);
  });

  it('answers an empty page with an empty label map per field', async () => {
    const admin = f.tokens.admin;
    const { body } = await f.agent.post(`${api}/data/table/Article`).set('token', admin).send({ conditions: [{ field: 'subject', op: 'eq', value: 'nothing' }] }).expect(200);
    expect(body).to.deep.equal({ rows: [], total: 0, totalIsEstimate: false, page: 1, size: 20, cursors: { prev: null, next: null }, labels: { authorId: {}, editorId: {}, categoryId: {}, counterId: {}, labels: {}, reviewers: {} } });
  });
});

describeEachSql('POST /data/reference/{fw}/{field}', (db) => {
  let f: Fixture & { destroy(): Promise<void> };
  before(async () => {
    f = await setup(db().url);
  });
  after(() => f?.destroy());

  const candidates = (user: keyof Fixture['tokens'], field: string, body?: Record<string, unknown>) => {
    const req = f.agent.post(`${api}/data/reference/Article/${field}`).set('token', f.tokens[user]);
    return body === undefined ? req : req.send(body);
  };

  it('pages the candidates by label for someone who may add or edit the referencing model, without any power on the referenced one', async () => {
    const { authors: a } = f.ids;
    const res = await candidates('editor', 'authorId', {});
    expect(res.status).to.equal(200);
    // The hidden author is not a candidate for this user.
    expect(res.body).to.deep.equal({
      rows: [
        { id: a.Anna, label: 'Anna' },
        { id: a.Frank, label: 'Frank' },
        { id: a.Ursula, label: 'Ursula' },
      ],
      total: 3,
      page: 1,
      size: 20,
    });
    // The editor may query neither Article nor Author itself.
    await f.agent.post(`${api}/data/table/Article`).set('token', f.tokens.editor).send({}).expect(403);
    await f.agent.post(`${api}/data/table/Author`).set('token', f.tokens.editor).send({}).expect(403);
    // Without a body at all: the first page.
    expect((await candidates('editor', 'authorId')).body.total).to.equal(3);
    const second = await candidates('editor', 'authorId', { page: 2, size: 2 });
    expect(second.body).to.deep.equal({ rows: [{ id: a.Ursula, label: 'Ursula' }], total: 3, page: 2, size: 2 });
  });

  it('applies the referenced model\'s visibility for each user: the administrator sees the hidden row', async () => {
    const res = await candidates('admin', 'authorId', { search: 'zed' });
    expect(res.body.rows).to.deep.equal([{ id: f.ids.authors['Zed (hidden)'], label: 'Zed (hidden)' }]);
    expect((await candidates('editor', 'authorId', { search: 'zed' }).expect(200)).body).to.deep.include({ rows: [], total: 0 });
  });

  it('searches the label case-insensitively, literally (no wildcards), on the field\'s own label field', async () => {
    expect((await candidates('viewer', 'authorId', { search: 'RS' }).expect(200)).body.rows.map((r: { label: string }) => r.label)).to.deep.equal(['Ursula']);
    expect((await candidates('viewer', 'editorId', { search: 'frank@' }).expect(200)).body.rows).to.deep.equal([{ id: f.ids.authors.Frank, label: 'frank@example.com' }]);
    expect((await candidates('viewer', 'labels', { search: '0%' }).expect(200)).body.rows).to.deep.equal([{ id: f.ids.labels['100% cotton'], label: '100% cotton' }]);
    expect((await candidates('viewer', 'labels', { search: '_' }).expect(200)).body.total).to.equal(0);
    expect((await candidates('viewer', 'authorId', { search: '   ' }).expect(200)).body.total).to.equal(3);
    // A label that is the key: the search matches the id whole.
    expect((await candidates('viewer', 'counterId', { search: String(f.ids.counter) }).expect(200)).body.rows).to.deep.equal([{ id: f.ids.counter, label: String(f.ids.counter) }]);
    expect((await candidates('viewer', 'counterId', { search: 'x' }).expect(200)).body.total).to.equal(0);
  });

  it('returns just the rows named by ids (the labels of a form\'s current value), visible ones only', async () => {
    const { authors: a } = f.ids;
    const res = await candidates('editor', 'reviewers', { ids: [a.Ursula, a['Zed (hidden)'], a.Ursula, 2_000_000_000_000] }).expect(200);
    expect(res.body).to.deep.equal({ rows: [{ id: a.Ursula, label: 'Ursula' }], total: 1, page: 1, size: 3 });
    expect((await candidates('editor', 'reviewers', { ids: [] }).expect(200)).body).to.deep.include({ rows: [], total: 0 });
  });

  it('gives a tree reference\'s candidates with parentId, up to 1000 at once', async () => {
    const { categories: c } = f.ids;
    const res = await candidates('editor', 'categoryId', { size: 1000 }).expect(200);
    expect(res.body).to.deep.equal({
      rows: [
        { id: c.Essays, label: 'Essays', parentId: null },
        { id: c.Fiction, label: 'Fiction', parentId: null },
        { id: c['Science fiction'], label: 'Science fiction', parentId: c.Fiction },
      ],
      total: 3,
      page: 1,
      size: 1000,
    });
    // A table reference pages like the table query: at most 200.
    expect((await candidates('editor', 'authorId', { size: 201 }).expect(400)).body.error.code).to.equal('BAD_QUERY');
    expect((await candidates('editor', 'categoryId', { size: 1001 }).expect(400)).body.error.code).to.equal('BAD_QUERY');
  });

  it('is open to query power on the referencing model too, and to nobody else', async () => {
    await candidates('viewer', 'authorId', {}).expect(200);
    const refused = await candidates('nobody', 'authorId', {}).expect(403);
    expect(refused.body.error).to.include({ code: 'POWER_DENIED', message: 'Not permitted: add, edit or query on Article' });
    // Power is checked before the field: no field names are learnt without it.
    expect((await candidates('nobody', 'nope', {}).expect(403)).body.error.code).to.equal('POWER_DENIED');
    await f.agent.post(`${api}/data/reference/Article/authorId`).send({}).expect(401);
  });

  it('answers 400 UNKNOWN_FIELD for a field that is not a reference, 404 for an unknown model, 400 for a bad body', async () => {
    for (const field of ['nope', 'subject', 'secret', 'toString', '__proto__']) {
      const res = await candidates('admin', field, {});
      expect(res.status, field).to.equal(400);
      expect(res.body.error.code, field).to.equal('UNKNOWN_FIELD');
    }
    expect((await f.agent.post(`${api}/data/reference/Nope/authorId`).set('token', f.tokens.admin).send({}).expect(404)).body.error.code).to.equal('MODEL_NOT_FOUND');
    for (const body of [{ search: 5 }, { search: 'x'.repeat(201) }, { search: 'a\u0000' }, { ids: [0] }, { ids: ['1'] }, { ids: 'x' }, { page: 0 }, { size: 'big' }, { sort: 'name' }]) {
      const res = await candidates('admin', 'authorId', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code, JSON.stringify(body)).to.equal('BAD_QUERY');
    }
    const list = await f.agent.post(`${api}/data/reference/Article/authorId`).set('token', f.tokens.admin).set('Content-Type', 'application/json').send('[1]');
    expect(list.status).to.equal(400);
    const get = await f.agent.get(`${api}/data/reference/Article/authorId`).set('token', f.tokens.admin);
    expect(get.status).to.equal(405);
    expect(get.headers.allow).to.contain('POST');
  });
});

describeEachSql('GET /build/{fw}: filterable, label fields and trees', (db) => {
  let f: Fixture & { destroy(): Promise<void> };
  before(async () => {
    f = await setup(db().url);
  });
  after(() => f?.destroy());

  it('describes what the table can filter on and how references and collections are labelled', async () => {
    const { body } = await f.agent.get(`${api}/build/Article`).set('token', f.tokens.editor).expect(200);
    const field = (name: string) => (body.model.fields as Array<Record<string, unknown>>).find((x) => x.name === name)!;
    expect(body.model.tree).to.equal(false);
    expect(body.model).not.to.have.property('treeParentField');
    expect(field('subject').filterable).to.equal(true);
    expect(field('secret').filterable).to.equal(false);
    expect(field('labels').filterable).to.equal(false);
    expect(field('id').filterable).to.equal(true);
    expect(field('authorId').reference).to.deep.equal({ model: 'Author', labelField: 'name', tree: false });
    expect(field('editorId').reference).to.deep.equal({ model: 'Author', labelField: 'email', tree: false });
    expect(field('categoryId').reference).to.deep.equal({ model: 'Category', labelField: 'title', tree: true });
    expect(field('counterId').reference).to.deep.equal({ model: 'Counter', labelField: 'id', tree: false });
    expect(field('labels').collection).to.deep.equal({ model: 'Label', labelField: 'text' });
    expect(field('reviewers').collection).to.deep.equal({ model: 'Author', labelField: 'name' });
    // Each filterable field is accepted by the table query, each other one refused.
    const admin = f.tokens.admin;
    for (const x of body.model.fields as Array<{ name: string; filterable: boolean }>) {
      const res = await f.agent.post(`${api}/data/table/Article`).set('token', admin).send({ conditions: [{ field: x.name, op: 'isNull' }] });
      expect(res.status, x.name).to.equal(x.filterable ? 200 : 400);
    }
  });

  it('names the tree parent field of tree models, and the built-in collections are labelled by name', async () => {
    const admin = f.tokens.admin;
    const category = (await f.agent.get(`${api}/build/Category`).set('token', admin).expect(200)).body.model;
    expect(category).to.include({ tree: true, treeParentField: 'parentId' });
    const user = (await f.agent.get(`${api}/build/FwUser`).set('token', admin).expect(200)).body.model;
    const byName = (name: string) => (user.fields as Array<Record<string, unknown>>).find((x) => x.name === name)!;
    expect(byName('roles').collection).to.deep.equal({ model: 'FwRole', labelField: 'name' });
    expect(byName('orgs').collection).to.deep.equal({ model: 'FwOrg', labelField: 'name' });
    const role = (await f.agent.get(`${api}/build/FwRole`).set('token', admin).expect(200)).body.model;
    expect((role.fields as Array<Record<string, unknown>>).find((x) => x.name === 'menus')!.collection).to.deep.equal({ model: 'FwMenu', labelField: 'name' });
    const menu = (await f.agent.get(`${api}/build/FwMenu`).set('token', admin).expect(200)).body.model;
    expect(menu).to.include({ tree: true, treeParentField: 'parentId' });
    expect((menu.fields as Array<Record<string, unknown>>).find((x) => x.name === 'parentId')!.reference).to.deep.equal({ model: 'FwMenu', labelField: 'name', tree: true });
  });
});
