import { expect } from 'chai';
import { BUILTIN_MODELS, FwMenuModel, createRegistry, type FwUser } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { Book, Frozen, Ledger, Note, Plan, Tag, setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';

type Res = { status: number; body: { error?: { code: string; details?: Array<{ path?: string }> } } & Record<string, unknown> };

/** FwMenu opened to import, as a host may do: import shares the add path and its rules. */
const ImportableMenu = { ...FwMenuModel, power: { ...FwMenuModel.power, importable: true } };

function paths(res: Res): string[] {
  return (res.body.error?.details ?? []).map((d) => d.path ?? '');
}

function denied(res: Res, path: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(403);
  expect(res.body.error?.code).to.equal('GRANT_DENIED');
  expect(paths(res), JSON.stringify(res.body)).to.include(path);
}

function invalid(res: Res, path = 'value'): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(422);
  expect(paths(res), JSON.stringify(res.body)).to.include(path);
}

function ok(res: Res): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/**
 * Page values that must never be stored: the sign-on hand-off page in any spelling, a token in
 * any spelling, script and data URLs, and anything that leaves the site.
 */
const BAD_PAGES = [
  '/auth.html?token=TOKEN',
  '/auth.html',
  'auth.html?token=TOKEN',
  './auth.html?token=TOKEN',
  '../auth.html?token=TOKEN',
  '/AUTH.HTML?token=TOKEN',
  '/Auth.Html',
  '/%61uth.html?token=TOKEN',
  '/%2561uth.html?token=TOKEN',
  '/admin/auth.html?token=TOKEN',
  '/admin//auth.html',
  '/x/..%2fauth.html',
  '/x/%2e%2e/auth.html',
  '/x/%2E%2E%2Fauth.html',
  '\\auth.html?token=TOKEN',
  '/admin\\auth.html',
  '/auth.html%5C',
  '/reports?token=TOKEN',
  '/reports?_token=TOKEN',
  '/reports?a=1&TOKEN=T',
  '/reports?%74oken=TOKEN',
  '/reports?%5Ftoken=TOKEN',
  '/reports?token%3DTOKEN',
  '/reports?%2574oken=TOKEN',
  '/reports#token=TOKEN',
  '/reports;token=TOKEN',
  'javascript:alert(document.domain)',
  ' javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'https://elsewhere.example/login',
  'http://elsewhere.example/',
  'HTTPS://elsewhere.example',
  '//elsewhere.example/login',
  '///elsewhere.example/login',
  '/\\elsewhere.example/login',
  '\\\\elsewhere.example/login',
  '\\/elsewhere.example',
  '/\t/elsewhere.example',
  'http:elsewhere.example',
  'https:/elsewhere.example',
  'ftp://elsewhere.example/',
  '/reports%',
  '/reports\u0000',
];

const GOOD_PAGES = ['/health', '/reports/summary?year=2026#top', 'reports/summary', './reports', '/admin/report.html', '/docs/authors.html', '/tokens/list'];

const BAD_LINKS = ['javascript:alert(1)', 'data:text/html,x', 'vbscript:x', 'ftp://elsewhere.example/', '/reports', '//elsewhere.example/', 'elsewhere.example', 'https://elsewhere.example/auth.html?token=T', 'https://elsewhere.example/?token=T', 'mailto:someone@elsewhere.example'];

// Issue 19 §1, from the attacker's side: `erin` holds the menu-management grants (FwMenu and its
// @ADD, @EDIT, @DELETE, @COPY) and the Book model's menu, nothing else. Before the fix she could add a
// page menu to /auth.html?token=<her token>, or retarget the "Users" entry to it, and any
// administrator who opened it worked on as erin without noticing.
describeEachSql('menus that swap an administrator’s session (issue 19 §1)', (db) => {
  let f: DataFixture;
  let admin: string;
  let erin: FwUser;
  let erinToken: string;
  const menu: Record<string, number> = {};

  const row = async (id: number) => f.store.knex('fw_menu').where('id', id).first();
  const count = async () => Number(((await f.store.knex('fw_menu').count({ n: '*' }))[0] as { n: unknown }).n);
  const as = (token: string) => ({
    post: (path: string, body: unknown) => f.agent.post(`${api}${path}`).set('token', token).send(body as object) as unknown as Promise<Res>,
    csv: (path: string, text: string) => f.agent.post(`${api}${path}`).set('token', token).set('Content-Type', 'text/csv').send(text) as unknown as Promise<Res>,
  });

  before(async () => {
    f = await setupData(db().url, { registry: createRegistry([...BUILTIN_MODELS.filter((m) => m.name !== 'FwMenu'), ImportableMenu, Tag, Book, Note, Ledger, Plan, Frozen]) });
    await f.store.menus.createModelMenu(ImportableMenu);
    admin = await f.token('admin');
    const rows: Array<{ id: unknown; code: string }> = await f.store.knex('fw_menu').whereNotNull('code').select('id', 'code');
    for (const r of rows) menu[r.code] = Number(r.id);
    const held = Object.keys(menu).filter((code) => /^FwMenu(@|$)/.test(code) || code === 'Book');
    const role = (await f.store.roles.create({ code: `menu-manager-${Date.now()}`, name: 'Menu manager' })).id;
    await f.store.roles.setMenus(role, held.map((code) => menu[code]!));
    const created = await f.store.users.create({ account: `erin-${Date.now()}`, name: 'Erin', password: 'x-password-1', mustChangePassword: false });
    erin = { id: created.id, account: created.account, name: 'Erin', isAdmin: false };
    await f.store.users.setRoles(erin.id, [role]);
    await f.store.grants.bump();
    erinToken = (await f.tokens.loginToken(erin)).token;
  });
  after(() => f?.destroy());

  describe('who may set a menu’s type or value', () => {
    it('a non-administrator adds no menu that goes anywhere: not the hand-off page with their token, not a framed foreign site, not even a folder', async () => {
      const before = await count();
      denied(await as(erinToken).post('/data/modify/FwMenu', { name: 'Users', type: 'page', value: `/auth.html?token=${erinToken}` }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu', { name: 'Help', type: 'page', value: 'https://elsewhere.example/login' }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu', { name: 'Help', type: 'link', value: 'https://elsewhere.example/login' }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu', { name: 'Users', type: 'table', value: 'FwUser' }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu', { name: 'Folder', type: 'dir' }), 'type');
      // A copy repeats the source's type and value.
      denied(await as(erinToken).post('/data/modify/FwMenu/copy', { id: menu['Book'], values: { code: null, name: 'Book copy' } }), 'type');
      expect(await count()).to.equal(before);
    });

    it('a non-administrator retargets no menu, not even one they hold, in the form, a cell or through import', async () => {
      const book = menu['Book']!;
      const before = await row(book);
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: book, type: 'page', value: `/auth.html?token=${erinToken}` }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: book, value: 'FwUser' }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: book, type: 'tree' }), 'type');
      denied(await as(erinToken).post('/data/modify/FwMenu/update-cell', { id: book, field: 'value', value: 'FwUser' }), 'value');
      denied(await as(erinToken).post('/data/modify/FwMenu/update-cell', { id: book, field: 'type', value: 'page' }), 'type');
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: book, value: null }), 'value');
      expect(await row(book)).to.deep.equal(before);
      const imported = await as(erinToken).csv('/data/import/FwMenu', `name,type,value\nUsers,page,/auth.html?token=${erinToken}\n`);
      expect(imported.status, JSON.stringify(imported.body)).to.equal(403);
      expect(imported.body.error?.code).to.equal('GRANT_DENIED');
      // The edit form sends the whole row back: the same type and value are no change.
      const shown = (await f.agent.get(`${api}/data/FwMenu/${book}`).set('token', erinToken)).body as Record<string, unknown>;
      expect(shown).to.include({ type: 'table', value: 'Book' });
      const { createdAt: _c, updatedAt: _u, ...form } = shown;
      ok(await as(erinToken).post('/data/modify/FwMenu/update', { ...form, name: 'Books' }));
      expect((await row(book)).name).to.equal('Books');
    });

    it('a non-administrator changes no menu whose code they do not hold (the "Users" entry), in any field, nor deletes it', async () => {
      const users = menu['FwUser']!;
      const before = await row(users);
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: users, type: 'page', value: `/auth.html?token=${erinToken}` }), 'id');
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: users, name: 'Users (new)' }), 'id');
      denied(await as(erinToken).post('/data/modify/FwMenu/update-cell', { id: users, field: 'name', value: 'Users (new)' }), 'id');
      denied(await as(erinToken).post('/data/modify/FwMenu/update-cell', { id: users, field: 'status', value: 'disabled' }), 'id');
      denied(await as(erinToken).post('/data/modify/FwMenu/delete', { ids: [users] }), 'id');
      // A function menu of a model she does not hold is a grant she does not hold either.
      denied(await as(erinToken).post('/data/modify/FwMenu/update', { id: menu['FwUser@EDIT'], name: 'x' }), 'id');
      expect(await row(users)).to.deep.equal(before);
    });

    it('an administrator sets both', async () => {
      const added = await as(admin).post('/data/modify/FwMenu', { name: 'Reports', type: 'page', value: '/reports' });
      ok(added);
      const id = added.body.id as number;
      ok(await as(admin).post('/data/modify/FwMenu/update', { id, type: 'link', value: 'https://example.org/reports' }));
      ok(await as(admin).post('/data/modify/FwMenu/update-cell', { id, field: 'value', value: 'https://example.org/other' }));
      expect(await row(id)).to.include({ type: 'link', value: 'https://example.org/other' });
      ok(await as(admin).post('/data/modify/FwMenu/delete', { ids: [id] }));
    });
  });

  describe('what a page or a link may point at (for administrators too)', () => {
    it('a page is a path on this site, never the hand-off page, a token, a script or another site: add, form, cell, copy and import refuse each', async () => {
      const base = await as(admin).post('/data/modify/FwMenu', { name: 'Base', type: 'page', value: '/health' });
      ok(base);
      const id = base.body.id as number;
      const before = await count();
      for (const value of BAD_PAGES) {
        invalid(await as(admin).post('/data/modify/FwMenu', { name: 'Bad', type: 'page', value }));
        invalid(await as(admin).post('/data/modify/FwMenu/update', { id, value }));
        invalid(await as(admin).post('/data/modify/FwMenu/update-cell', { id, field: 'value', value }));
        invalid(await as(admin).post('/data/modify/FwMenu/copy', { id, values: { value } }));
      }
      // A link turned into a page keeps its address: the page rule sees the row as it will be.
      const link = await as(admin).post('/data/modify/FwMenu', { name: 'Site', type: 'link', value: 'https://elsewhere.example/' });
      ok(link);
      invalid(await as(admin).post('/data/modify/FwMenu/update-cell', { id: link.body.id, field: 'type', value: 'page' }));
      invalid(await as(admin).post('/data/modify/FwMenu/update', { id: link.body.id, type: 'page' }));
      expect(await count()).to.equal(before + 1);
      expect((await row(id)).value).to.equal('/health');
      expect((await row(link.body.id as number)).type).to.equal('link');
      const csv = `name,type,value\n${BAD_PAGES.map((value, i) => `Bad ${i},page,"${value.replace(/"/g, '""')}"`).join('\n')}\n`;
      const imported = await as(admin).csv('/data/import/FwMenu', csv);
      expect(imported.status, JSON.stringify(imported.body)).to.equal(422);
      // Control characters are refused by the CSV reader or the rule; every other row is named on its value.
      const named = new Set(paths(imported));
      const control = (value: string) => [...value].some((c) => c.charCodeAt(0) < 0x20);
      for (const [i, value] of BAD_PAGES.entries()) if (!control(value)) expect(named, value).to.include(`rows[${i + 1}].value`);
      expect(await count()).to.equal(before + 1);
    });

    it('same-origin paths stay fine', async () => {
      for (const value of GOOD_PAGES) {
        const res = await as(admin).post('/data/modify/FwMenu', { name: 'Good', type: 'page', value });
        ok(res);
        expect((await row(res.body.id as number)).value).to.equal(value);
      }
    });

    it('a link is an http or https address without a token', async () => {
      for (const value of BAD_LINKS) invalid(await as(admin).post('/data/modify/FwMenu', { name: 'Bad link', type: 'link', value }));
      ok(await as(admin).post('/data/modify/FwMenu', { name: 'Project site', type: 'link', value: 'https://example.org/fw?tab=docs' }));
      ok(await as(admin).post('/data/modify/FwMenu', { name: 'Intranet', type: 'link', value: 'http://intranet.example:8080/' }));
    });
  });
});
