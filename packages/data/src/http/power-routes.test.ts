import { expect } from 'chai';
import { POWER_FLAGS, type FwUser } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import type { AssignableLists } from '../write/assignable.js';
import type { GrantableMatrix, GrantableMenu } from '../permission-matrix.js';
import type { PowerExplanation } from '../power-explain.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Issue 20 §1: the permission editor's two routes. `mia` manages roles (every FwRole menu) and
// holds Book's model menu and Book@ADD, not Book@DELETE: the matrix must offer her exactly what a
// save accepts, and the explainer must agree with GET /build for every user it explains.
describeEachSql('powerRoutes: GET /power/grantable, /power/assignable and /power/explain/{fw}', (db) => {
  let f: DataFixture;
  let tokens: Record<'admin' | 'alice' | 'bob' | 'carol' | 'mia', string>;
  let mia: FwUser;
  let managerRole: number;
  const menu: Record<string, number> = {};

  before(async () => {
    f = await setupData(db().url);
    const rows: Array<{ id: unknown; code: string }> = await f.store.knex('fw_menu').whereNotNull('code').select('id', 'code');
    for (const r of rows) menu[r.code] = Number(r.id);
    const held = Object.keys(menu).filter((code) => /^FwRole(@|$)/.test(code) || code === 'Book' || code === 'Book@ADD');
    managerRole = (await f.store.roles.create({ code: `rolemgr-${Date.now()}`, name: 'Role manager' })).id;
    await f.store.roles.setMenus(managerRole, held.map((code) => menu[code]!));
    const created = await f.store.users.create({ account: `mia-${Date.now()}`, name: 'Mia', password: 'x-password-1', mustChangePassword: false });
    mia = { id: created.id, account: created.account, name: 'Mia', isAdmin: false };
    await f.store.users.setRoles(mia.id, [managerRole]);
    await f.store.grants.bump();
    tokens = {
      admin: await f.token('admin'),
      alice: await f.token('alice'),
      bob: await f.token('bob'),
      carol: await f.token('carol'),
      mia: (await f.tokens.loginToken(mia, f.tokens.generateToken())).token,
    };
  });
  after(() => f?.destroy());

  const get = (path: string, token?: string) => {
    const req = f.agent.get(`${api}${path}`);
    return token ? req.set('token', token) : req;
  };
  const matrix = async (token: string): Promise<GrantableMatrix> => {
    const res = await get('/power/grantable', token);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as GrantableMatrix;
  };
  const cellsOf = (m: GrantableMatrix): GrantableMenu[] => m.rows.flatMap((r) => [r.menu, ...Object.values(r.cells)]);

  describe('GET /power/grantable', () => {
    it('gives an administrator the whole menu tree, model rows with their function menus as cells, all grantable', async () => {
      const m = await matrix(tokens.admin);
      expect(m.editor.isAdmin).to.equal(true);
      expect(m.role).to.deep.equal({ model: 'FwRole', field: 'menus' });
      expect(m.columns.map((c) => c.key).slice(0, 7)).to.deep.equal(['query', 'ADD', 'EDIT', 'DELETE', 'EXPORT', 'IMPORTABLE', 'VIEW_DETAIL']);
      const book = m.rows.find((r) => r.model === 'Book');
      expect(book?.menu.code).to.equal('Book');
      expect(Object.keys(book!.cells).sort()).to.deep.equal(['ADD', 'DELETE', 'EDIT', 'EXPORT', 'IMPORTABLE', 'VIEW_DETAIL']);
      expect(book!.cells.DELETE!.id).to.equal(menu['Book@DELETE']);
      // Every menu appears exactly once, as a row or as a cell.
      const ids = cellsOf(m).map((c) => c.id);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids.length).to.equal(Number((await f.store.knex('fw_menu').count({ n: '*' }))[0]!.n));
      expect(cellsOf(m).every((c) => c.grantable && c.revocable)).to.equal(true);
    });

    it('offers a non-administrator only what they hold, and says why not for the rest', async () => {
      const m = await matrix(tokens.mia);
      expect(m.editor).to.deep.equal({ id: mia.id, isAdmin: false });
      const book = m.rows.find((r) => r.model === 'Book')!;
      expect(book.menu.grantable).to.equal(true);
      expect(book.cells.ADD!.grantable).to.equal(true);
      expect(book.cells.DELETE!.grantable).to.equal(false);
      expect(book.cells.DELETE!.refusal?.code).to.equal('NOT_HELD');
      expect(book.cells.DELETE!.refusal?.message).to.contain('Book@DELETE');
      expect(m.rows.find((r) => r.model === 'FwUser')!.menu.grantable).to.equal(false);
    });

    it('agrees with the server refusal on save, menu by menu', async () => {
      const m = await matrix(tokens.mia);
      for (const cell of cellsOf(m)) {
        const res = await f.agent
          .post(`${api}/data/modify/FwRole`)
          .set('token', tokens.mia)
          .send({ code: `probe-${cell.id}-${Date.now()}`, name: 'Probe', menus: [cell.id] });
        if (cell.grantable) expect(res.status, `${cell.code}: ${JSON.stringify(res.body)}`).to.equal(200);
        else {
          expect(res.status, `${cell.code}`).to.equal(403);
          expect(res.body.error.code).to.equal('GRANT_DENIED');
          expect(res.body.error.details[0].path).to.equal('menus');
          expect(res.body.error.message).to.contain(cell.code);
        }
      }
    });

    it('is 403 to someone who may not add or edit roles, and 401 without a token', async () => {
      const res = await get('/power/grantable', tokens.bob);
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('POWER_DENIED');
      expect((await get('/power/grantable')).status).to.equal(401);
    });
  });

  describe('GET /power/assignable', () => {
    // `uma` manages users: every FwUser menu, Book and Book@ADD, and belongs to organisation A.
    let uma: string;
    const org: Record<'a' | 'a1' | 'b', number> = { a: 0, a1: 0, b: 0 };
    let bookAdders: number;
    before(async () => {
      const stamp = Date.now();
      const held = Object.keys(menu).filter((code) => /^FwUser(@|$)/.test(code) || code === 'Book' || code === 'Book@ADD');
      const role = (await f.store.roles.create({ code: `usermgr-${stamp}`, name: 'User manager' })).id;
      await f.store.roles.setMenus(role, held.map((code) => menu[code]!));
      bookAdders = (await f.store.roles.create({ code: `bookadders-${stamp}`, name: 'Book adders' })).id;
      await f.store.roles.setMenus(bookAdders, [menu.Book!, menu['Book@ADD']!]);
      org.a = (await f.store.orgs.create({ name: `A-${stamp}` })).id;
      org.a1 = (await f.store.orgs.create({ name: `A1-${stamp}`, parentId: org.a })).id;
      org.b = (await f.store.orgs.create({ name: `B-${stamp}` })).id;
      const created = await f.store.users.create({ account: `uma-${stamp}`, name: 'Uma', password: 'x-password-1', mustChangePassword: false });
      await f.store.users.setRoles(created.id, [role]);
      await f.store.users.setOrgs(created.id, [org.a]);
      await f.store.grants.bump();
      uma = (await f.tokens.loginToken({ id: created.id, account: created.account, isAdmin: false }, f.tokens.generateToken())).token;
    });

    const lists = async (token: string) => {
      const res = await get('/power/assignable', token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as AssignableLists;
    };

    it('offers an administrator every role and organisation, organisations in tree order', async () => {
      const l = await lists(tokens.admin);
      expect(l.user).to.deep.equal({ model: 'FwUser', roles: 'roles', orgs: 'orgs' });
      expect(l.roles.length).to.equal((await f.store.roles.list()).length);
      expect([...l.roles, ...l.orgs].every((e) => e.grantable)).to.equal(true);
      const ids = l.orgs.map((o) => o.id);
      expect(ids.indexOf(org.a1)).to.equal(ids.indexOf(org.a) + 1);
      expect(l.orgs.find((o) => o.id === org.a1)).to.include({ depth: 1, parentId: org.a });
    });

    it('offers a user manager only roles within their grants and organisations within their scope, as the save decides', async () => {
      const l = await lists(uma);
      expect(l.roles.find((r) => r.id === bookAdders)?.grantable).to.equal(true);
      const reader = l.roles.find((r) => r.id === f.roles.reader)!;
      expect(reader.grantable).to.equal(false);
      expect(reader.refusal?.code).to.equal('NOT_HELD');
      expect(reader.refusal?.message).to.contain('Note');
      expect(l.orgs.filter((o) => [org.a, org.a1, org.b].includes(o.id)).map((o) => [o.id, o.grantable])).to.deep.equal([
        [org.a, true],
        [org.a1, true],
        [org.b, false],
      ]);
      expect(l.orgs.find((o) => o.id === org.b)?.refusal?.code).to.equal('OUT_OF_SCOPE');
      let n = 0;
      for (const [field, entries] of [['roles', l.roles], ['orgs', l.orgs.filter((o) => [org.a, org.a1, org.b].includes(o.id))]] as const) {
        for (const entry of entries) {
          n += 1;
          const res = await f.agent
            .post(`${api}/data/modify/FwUser`)
            .set('token', uma)
            .send({ account: `probe-${n}-${Date.now()}`, name: 'Probe', password: 'Probe-pass-2026-x', [field]: [entry.id] });
          if (entry.grantable) expect(res.status, `${field} ${entry.name}: ${JSON.stringify(res.body)}`).to.equal(200);
          else {
            expect(res.status, `${field} ${entry.name}`).to.equal(403);
            expect(res.body.error.code).to.equal('GRANT_DENIED');
            expect(res.body.error.details[0].path).to.equal(field);
          }
        }
      }
    });

    it('is 403 to someone who may not add or edit users', async () => {
      const res = await get('/power/assignable', tokens.mia);
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('POWER_DENIED');
    });
  });

  describe('GET /power/explain/{fw}', () => {
    const explain = async (fw: string, token: string, user?: number): Promise<PowerExplanation> => {
      const res = await get(`/power/explain/${fw}${user === undefined ? '' : `?user=${user}`}`, token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as PowerExplanation;
    };

    it('agrees with GET /build/{fw} for every user and model, asked by an administrator and by the user', async () => {
      const who = { admin: f.users.admin, alice: f.users.alice, bob: f.users.bob, carol: f.users.carol, mia } as const;
      for (const name of Object.keys(who) as Array<keyof typeof who>) {
        for (const fw of ['Book', 'Ledger', 'Frozen', 'Plan', 'FwRole']) {
          const build = await get(`/build/${fw}`, tokens[name]);
          for (const x of [await explain(fw, tokens.admin, who[name].id), await explain(fw, tokens[name])]) {
            expect(x.user.id).to.equal(who[name].id);
            expect(x.flags.map((e) => e.flag)).to.deep.equal([...POWER_FLAGS]);
            for (const e of x.flags) expect(e.value, `${name} ${fw} ${e.flag}`).to.equal(x.power[e.flag]);
            if (build.status === 200) expect(x.power, `${name} ${fw}`).to.deep.equal(build.body.power);
            else {
              // Build answers 403 when none of the five UI flags is on; the explainer says the same.
              expect(build.body.error.code).to.equal('POWER_DENIED');
              for (const flag of ['query', 'add', 'edit', 'delete', 'viewDetails'] as const) expect(x.power[flag], `${name} ${fw} ${flag}`).to.equal(false);
            }
          }
        }
      }
    });

    it('names the steps: the granting role, the missing function menu, the handler, the gates', async () => {
      const bob = await explain('Book', tokens.admin, f.users.bob.id);
      const add = bob.flags.find((e) => e.flag === 'add')!;
      expect(add.value).to.equal(false);
      expect(add.steps.map((s) => s.kind)).to.deep.equal(['declared', 'modelMenu', 'functionMenu']);
      expect(add.steps[1]).to.include({ code: 'Book', held: true, value: true });
      expect(add.steps[1]!.roles!.map((r) => r.id)).to.deep.equal([f.roles.reader]);
      expect(add.steps[2]).to.include({ code: 'Book@ADD', held: false, value: false });

      const ledger = await explain('Ledger', tokens.admin, f.users.alice.id);
      const del = ledger.flags.find((e) => e.flag === 'delete')!;
      expect(del.steps.at(-1)).to.include({ kind: 'handler', changed: true, value: false });
      expect(del.steps.find((s) => s.kind === 'functionMenu')).to.include({ held: true, value: true });

      const admin = await explain('Frozen', tokens.admin);
      const cell = admin.flags.find((e) => e.flag === 'cellEdit')!;
      expect(cell.steps.map((s) => s.kind)).to.deep.equal(['declared', 'admin', 'cellGate', 'requires']);
      expect(cell.value).to.equal(false);
      const plan = await explain('Plan', tokens.alice);
      expect(plan.flags.find((e) => e.flag === 'cellEdit')!.steps.find((s) => s.kind === 'cellGate')!.fields).to.include('secretCode');
      const copy = (await explain('Book', tokens.bob)).flags.find((e) => e.flag === 'copy')!;
      expect(copy.steps.at(-1)).to.include({ kind: 'requires', requires: 'add', value: false });
    });

    it('lets a non-administrator ask only about themselves: 403 for anyone else, existing or not', async () => {
      expect((await explain('Book', tokens.bob, f.users.bob.id)).user.id).to.equal(f.users.bob.id);
      for (const user of [String(f.users.alice.id), String(f.users.admin.id), '999999', 'abc', '0']) {
        const res = await get(`/power/explain/Book?user=${user}`, tokens.bob);
        expect(res.status, user).to.equal(403);
        expect(res.body.error.code).to.equal('FORBIDDEN');
      }
    });

    it('answers bad parameters with 400 and unknown ones with 404, never 500', async () => {
      for (const user of ['abc', '0', '-1', '1.5', '99999999999', '']) {
        const res = await get(`/power/explain/Book?user=${encodeURIComponent(user)}`, tokens.admin);
        expect(res.status, user).to.equal(400);
        expect(res.body.error.code).to.equal('BAD_REQUEST');
      }
      const twice = await get(`/power/explain/Book?user=${f.users.bob.id}&user=${f.users.alice.id}`, tokens.admin);
      expect(twice.status).to.equal(400);
      const missing = await get('/power/explain/Book?user=2147483000', tokens.admin);
      expect(missing.status).to.equal(404);
      expect(missing.body.error.code).to.equal('NOT_FOUND');
      const model = await get('/power/explain/NoSuchModel', tokens.admin);
      expect(model.status).to.equal(404);
      expect(model.body.error.code).to.equal('MODEL_NOT_FOUND');
      expect((await get('/power/explain/Book')).status).to.equal(401);
    });
  });
});
