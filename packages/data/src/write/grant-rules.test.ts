import { expect } from 'chai';
import { BUILTIN_MODELS, FwUserModel, createRegistry, type FwUser } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { DataService } from '../service.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; status?: number };
  }
  throw new Error('expected the promise to reject');
}

// Issue 10 §1, from the attacker's side: `dave` holds a "user manager" role — every menu of the
// built-in user, role, menu, organisation and open-API models, and the Book and Note model menus —
// and tries to turn that into more than he holds.
describeEachSql('who may grant what (grant rules on every write path)', (db) => {
  let f: DataFixture;
  let admin: string;
  let dave: FwUser;
  let daveToken: string;
  let manager: number;
  const menu: Record<string, number> = {};

  const row = async (table: string, id: number) => f.store.knex(table).where('id', id).first();
  const roleIds = async (userId: number) => (await f.store.knex('fw_user_role').where('user_id', userId).orderBy('role_id')).map((r: { role_id: unknown }) => Number(r.role_id));
  const denied = (res: { status: number; body: { error: { code: string; details?: Array<{ path?: string }> } } }, path?: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(403);
    expect(res.body.error.code).to.equal('GRANT_DENIED');
    if (path) expect(res.body.error.details?.[0]?.path).to.equal(path);
  };

  before(async () => {
    f = await setupData(db().url);
    admin = await f.token('admin');
    const rows: Array<{ id: unknown; code: string }> = await f.store.knex('fw_menu').whereNotNull('code').select('id', 'code');
    for (const r of rows) menu[r.code] = Number(r.id);
    const held = Object.keys(menu).filter((code) => /^Fw(User|Role|Menu|Org|OpenApi)(@|$)/.test(code) || code === 'Book' || code === 'Note');
    manager = (await f.store.roles.create({ code: `manager-${Date.now()}`, name: 'User manager' })).id;
    await f.store.roles.setMenus(manager, held.map((code) => menu[code]!));
    const created = await f.store.users.create({ account: `dave-${Date.now()}`, name: 'Dave', password: 'x-password-1', mustChangePassword: false });
    dave = { id: created.id, account: created.account, name: 'Dave', isAdmin: false };
    await f.store.users.setRoles(dave.id, [manager]);
    await f.store.grants.bump();
    daveToken = (await f.tokens.loginToken(dave)).token;
  });
  after(() => f?.destroy());

  const as = (token: string) => ({
    post: (path: string, body: unknown) => f.agent.post(`${api}${path}`).set('token', token).send(body as object),
  });

  describe('the administrator flag', () => {
    it('a non-administrator cannot set it on themselves through the edit form or the AI path', async () => {
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: dave.id, isAdmin: true }), 'isAdmin');
      expect(Boolean(Number((await row('fw_user', dave.id)).is_admin))).to.equal(false);
      const ai = new DataService({ store: f.store, registry: f.registry });
      const error = await rejection(ai.update('FwUser', { user: dave, ip: null, source: 'ai' }, { id: dave.id, isAdmin: true }));
      expect(error.code).to.equal('GRANT_DENIED');
      expect(Boolean(Number((await row('fw_user', dave.id)).is_admin))).to.equal(false);
    });

    it('a non-administrator cannot create an administrator (add, copy of an administrator, import)', async () => {
      const before = (await f.store.knex('fw_user').count({ n: '*' }))[0]!.n;
      denied(await as(daveToken).post('/data/modify/FwUser', { account: `mallory-${Date.now()}`, password: 'secret-123', isAdmin: true }), 'isAdmin');
      // Copying an administrator would copy the flag.
      const copied = await as(daveToken).post('/data/modify/FwUser/copy', { id: f.users.admin.id, values: { account: `mallory-copy-${Date.now()}` } });
      expect(copied.status, JSON.stringify(copied.body)).to.be.oneOf([403]);
      // Import shares the add path: a host that opens users to import keeps the rule.
      const importable = createRegistry([...BUILTIN_MODELS.filter((m) => m.name !== 'FwUser'), { ...FwUserModel, power: { ...FwUserModel.power, importable: true } }]);
      const importMenu = await f.store.menus.create({ code: 'FwUser@IMPORTABLE', name: 'Import', type: 'function', parentId: menu['FwUser']! });
      await f.store.roles.setMenus(manager, [...(await f.store.roles.menuIds(manager)), importMenu.id]);
      const service = new DataService({ store: f.store, registry: importable });
      const csv = `account,name,isAdmin\nmallory-import-${Date.now()},M,true\n`;
      const error = await rejection(service.importCsv('FwUser', { user: { ...dave }, ip: null, source: 'http' }, csv));
      expect(error.code).to.equal('GRANT_DENIED');
      await f.store.roles.setMenus(manager, (await f.store.roles.menuIds(manager)).filter((id) => id !== importMenu.id));
      expect((await f.store.knex('fw_user').count({ n: '*' }))[0]!.n).to.equal(before);
    });

    it('an administrator may set it', async () => {
      const target = await f.store.users.create({ account: `promoted-${Date.now()}`, password: 'x-password-1', mustChangePassword: false });
      const res = await as(admin).post('/data/modify/FwUser/update', { id: target.id, isAdmin: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(Boolean(Number((await row('fw_user', target.id)).is_admin))).to.equal(true);
    });
  });

  describe('administrators’ accounts', () => {
    it('a non-administrator cannot change an administrator’s password, status or name, nor delete them', async () => {
      const before = await row('fw_user', f.users.admin.id);
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.admin.id, password: 'taken-over-1' }));
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.admin.id, status: 'locked' }));
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.admin.id, name: 'pwned' }));
      denied(await as(daveToken).post('/data/modify/FwUser/delete', { ids: [f.users.admin.id] }));
      // Hash, salt, status, name and stamps: nothing moved.
      expect(await row('fw_user', f.users.admin.id)).to.deep.equal(before);
    });

    it('a non-administrator cannot take over an account that holds grants they lack', async () => {
      // alice holds the editor role (every Book, Note, Ledger … menu); dave holds only Book and Note.
      const before = await row('fw_user', f.users.alice.id);
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.alice.id, password: 'taken-over-1' }));
      expect(await row('fw_user', f.users.alice.id)).to.deep.equal(before);
      // carol holds nothing: dave may manage her.
      const ok = await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.carol.id, name: 'Carol C.' });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    });
  });

  describe('roles', () => {
    it('nobody assigns a role that gives more than they hold', async () => {
      const target = await f.store.users.create({ account: `target-${Date.now()}`, password: 'x-password-1', mustChangePassword: false });
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: target.id, roles: [f.roles.editor] }), 'roles');
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: dave.id, roles: [manager, f.roles.editor] }), 'roles');
      denied(await as(daveToken).post('/data/modify/FwUser', { account: `new-${Date.now()}`, password: 'secret-123', roles: [f.roles.editor] }), 'roles');
      expect(await roleIds(target.id)).to.deep.equal([]);
      expect(await roleIds(dave.id)).to.deep.equal([manager]);
      // The reader role gives the Book and Note menus, which dave holds; his own role he holds whole.
      const ok = await as(daveToken).post('/data/modify/FwUser/update', { id: target.id, roles: [f.roles.reader, manager] });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(await roleIds(target.id)).to.deep.equal([f.roles.reader, manager].sort((a, b) => a - b));
      // Taking a role away hands nothing out.
      const removed = await as(daveToken).post('/data/modify/FwUser/update', { id: target.id, roles: [f.roles.reader] });
      expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    });

    it('nobody adds a menu to a role, or reopens a role, beyond their own grants', async () => {
      const before = await f.store.roles.menuIds(f.roles.reader);
      denied(await as(daveToken).post('/data/modify/FwRole/update', { id: f.roles.reader, menus: [...before, menu['Book@DELETE']] }), 'menus');
      denied(await as(daveToken).post('/data/modify/FwRole/update', { id: manager, menus: [...(await f.store.roles.menuIds(manager)), menu['Ledger@DELETE']] }), 'menus');
      denied(await as(daveToken).post('/data/modify/FwRole', { code: `r-${Date.now()}`, name: 'Sneaky', menus: [menu['Ledger']] }), 'menus');
      expect(await f.store.roles.menuIds(f.roles.reader)).to.deep.equal(before);
      const ok = await as(daveToken).post('/data/modify/FwRole/update', { id: f.roles.reader, menus: [...before, menu['FwUser']] });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      // A locked role that gives what dave lacks stays locked.
      const locked = await f.store.roles.create({ code: `locked-${Date.now()}`, name: 'Locked', status: 'locked' });
      await f.store.roles.setMenus(locked.id, [menu['Ledger@DELETE']!]);
      denied(await as(daveToken).post('/data/modify/FwRole/update', { id: locked.id, status: 'normal' }), 'status');
      expect((await row('fw_role', locked.id)).status).to.equal('locked');
    });
  });

  describe('menus', () => {
    it('nobody creates, renames or re-enables a menu into a code they do not hold', async () => {
      denied(await as(daveToken).post('/data/modify/FwMenu', { name: 'x', type: 'function', code: 'Ledger@DELETE-2' }), 'code');
      // Renaming a menu dave's own role links would re-grant it to him.
      denied(await as(daveToken).post('/data/modify/FwMenu/update', { id: menu['Note'], code: 'Ledger@DELETE' }), 'code');
      expect((await row('fw_menu', menu['Note']!)).code).to.equal('Note');
      const ok = await as(daveToken).post('/data/modify/FwMenu/update', { id: menu['Note'], name: 'Notes (renamed)' });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    });
  });

  describe('organisations', () => {
    it('scopes stay within the actor’s own organisations', async () => {
      const stamp = Date.now();
      const mine = await f.store.orgs.create({ code: `mine-${stamp}`, name: 'Mine' });
      const child = await f.store.orgs.create({ code: `child-${stamp}`, name: 'Child', parentId: mine.id });
      const other = await f.store.orgs.create({ code: `other-${stamp}`, name: 'Other' });
      await f.store.users.setOrgs(dave.id, [mine.id]);
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.carol.id, orgs: [other.id] }), 'orgs');
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: dave.id, orgs: [mine.id, other.id] }), 'orgs');
      expect((await as(daveToken).post('/data/modify/FwUser/update', { id: f.users.carol.id, orgs: [child.id] })).status).to.equal(200);
      denied(await as(daveToken).post('/data/modify/FwOrg/update', { id: other.id, name: 'Taken' }), 'id');
      denied(await as(daveToken).post('/data/modify/FwOrg/update', { id: child.id, parentId: other.id }), 'parentId');
      denied(await as(daveToken).post('/data/modify/FwOrg', { name: 'Under other', parentId: other.id }), 'parentId');
      denied(await as(daveToken).post('/data/modify/FwOrg', { name: 'A new root' }), 'parentId');
      expect((await as(daveToken).post('/data/modify/FwOrg', { name: 'Under mine', parentId: mine.id })).status).to.equal(200);
      expect((await row('fw_org', other.id)).name).to.equal('Other');
    });
  });

  describe('open-API keys', () => {
    it('a key may be made only for an account the actor could change', async () => {
      const key = { name: 'k', secret: 'a-long-enough-secret-1' };
      denied(await as(daveToken).post('/data/modify/FwOpenApi', { ...key, userId: f.users.admin.id }), 'userId');
      denied(await as(daveToken).post('/data/modify/FwOpenApi', { ...key, userId: f.users.alice.id }), 'userId');
      expect((await f.store.knex('fw_open_api').whereIn('user_id', [f.users.admin.id, f.users.alice.id])).length).to.equal(0);
      const ok = await as(daveToken).post('/data/modify/FwOpenApi', { ...key, userId: f.users.carol.id });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    });
  });
});
