import { defineModel, FwError, verifyPassword, type ModelDefinition } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { createStore, type FwStore } from './store.js';

/** The FwError a call rejects with. */
async function rejection(promise: Promise<unknown>): Promise<FwError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(FwError);
    return error as FwError;
  }
  throw new Error('expected the call to reject');
}

const HASH_KEYS = [
  'password',
  'passwordHash',
  'passwordSalt',
  'password_hash',
  'password_salt',
  'hash',
  'salt',
  'secret',
  'secretHash',
  'secretSalt',
  'secret_hash',
  'secret_salt',
];

// The same suite runs unchanged on every backend: SQLite always, the servers when their URL is set.
describeEachSql('FwStore repositories', (db) => {
  let store: FwStore;
  let seq = 0;
  /** A name no other test of this suite uses, so tests share the database without sharing rows. */
  const unique = (prefix: string): string => `${prefix}_${++seq}`;

  before(async function () {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(async function () {
    await store?.destroy();
  });

  describe('users', function () {
    it('creates a user with defaults and never returns the hash or salt', async function () {
      const account = unique('alice');
      const user = await store.users.create({ account, name: 'Alice', password: 'correct horse' });
      expect(user).to.include({ account, name: 'Alice', isAdmin: false, status: 'normal', hasPassword: true, expireDate: null, whiteIp: null, resetPwdTime: null });
      expect(user.id).to.be.a('number');
      expect(user.createdAt).to.be.instanceOf(Date);
      expect(user.updatedAt).to.be.instanceOf(Date);
      for (const found of [user, await store.users.findById(user.id), await store.users.findByAccount(account), (await store.users.list()).find((u) => u.id === user.id)]) {
        expect(found).to.be.an('object');
        expect(Object.keys(found ?? {})).to.not.include.any.members(HASH_KEYS);
      }
    });

    it('stores a scrypt hash, never the clear password, and hands it to the login service', async function () {
      const account = unique('bob');
      const user = await store.users.create({ account, password: 'pa55word' });
      const raw = await store.knex('fw_user').where('id', user.id).first();
      expect(raw.password_hash).to.be.a('string').and.not.include('pa55word');
      expect(raw.password_salt).to.match(/^[0-9a-f]{32}$/);
      const credentials = await store.users.getCredentials(account);
      expect(credentials).to.deep.equal({ id: user.id, hash: raw.password_hash, salt: raw.password_salt });
      expect(await verifyPassword('pa55word', credentials!)).to.equal(true);
      expect(await verifyPassword('wrong', credentials!)).to.equal(false);
    });

    it('has no credentials for an unknown account or a user without a local password', async function () {
      const sso = await store.users.create({ account: unique('sso') });
      expect(sso.hasPassword).to.equal(false);
      expect(await store.users.getCredentials(sso.account)).to.equal(undefined);
      expect(await store.users.getCredentials(unique('nobody'))).to.equal(undefined);
    });

    it('refuses a duplicate account with a 409 CONFLICT, on create and on rename', async function () {
      const account = unique('carol');
      await store.users.create({ account });
      const duplicate = await rejection(store.users.create({ account, password: 'x' }));
      expect(duplicate).to.include({ code: 'CONFLICT', status: 409 });
      expect(duplicate.message).to.include(account);
      const other = await store.users.create({ account: unique('dave') });
      expect(await rejection(store.users.update(other.id, { account }))).to.include({ code: 'CONFLICT' });
      expect((await store.users.findById(other.id))?.account).to.equal(other.account);
    });

    it('round-trips booleans and datetimes as JS types', async function () {
      const expireDate = new Date('2031-05-06T07:08:09.123Z');
      const user = await store.users.create({ account: unique('erin'), isAdmin: true, status: 'locked', expireDate, whiteIp: '10.0.0.0/8,192.168.1.7' });
      const found = await store.users.findById(user.id);
      expect(found?.isAdmin).to.equal(true);
      expect(found?.status).to.equal('locked');
      expect(found?.expireDate).to.be.instanceOf(Date);
      expect(found?.expireDate?.toISOString()).to.equal(expireDate.toISOString());
      expect(found?.whiteIp).to.equal('10.0.0.0/8,192.168.1.7');
    });

    it('updates only the given fields and answers undefined for an unknown id', async function () {
      const user = await store.users.create({ account: unique('frank'), name: 'Frank', isAdmin: true });
      const updated = await store.users.update(user.id, { name: null, isAdmin: false, expireDate: new Date('2030-01-01T00:00:00.000Z') });
      expect(updated).to.include({ account: user.account, name: null, isAdmin: false });
      expect(updated?.expireDate?.toISOString()).to.equal('2030-01-01T00:00:00.000Z');
      expect(updated!.updatedAt.getTime()).to.be.at.least(user.updatedAt.getTime());
      expect(await store.users.update(987654, { name: 'x' })).to.equal(undefined);
      expect(await store.users.findById(987654)).to.equal(undefined);
    });

    it('refuses invalid fields with a 422 naming the field', async function () {
      const badStatus = await rejection(store.users.create({ account: unique('gina'), status: 'sleeping' as 'normal' }));
      expect(badStatus).to.include({ code: 'VALIDATION_FAILED', status: 422 });
      expect(badStatus.details?.[0]?.path).to.equal('status');
      expect((await rejection(store.users.create({ account: 'x'.repeat(65) }))).details?.[0]?.path).to.equal('account');
      expect((await rejection(store.users.create({ account: '' }))).details?.[0]?.path).to.equal('account');
    });

    it('setPassword replaces the hash and records resetPwdTime; null removes the local password', async function () {
      const account = unique('hank');
      const user = await store.users.create({ account, password: 'old' });
      expect(await store.users.setPassword(user.id, 'new')).to.equal(true);
      const credentials = await store.users.getCredentials(account);
      expect(await verifyPassword('new', credentials!)).to.equal(true);
      expect(await verifyPassword('old', credentials!)).to.equal(false);
      const after = await store.users.findById(user.id);
      expect(after?.resetPwdTime).to.be.instanceOf(Date);
      expect(Math.abs(after!.resetPwdTime!.getTime() - Date.now())).to.be.below(60_000);
      expect(await store.users.setPassword(user.id, null)).to.equal(true);
      expect(await store.users.getCredentials(account)).to.equal(undefined);
      expect((await store.users.findById(user.id))?.hasPassword).to.equal(false);
      expect(await store.users.setPassword(987654, 'x')).to.equal(false);
    });

    it('sets roles and organisations, replacing the previous set', async function () {
      const user = await store.users.create({ account: unique('ivy') });
      const [r1, r2, r3] = await Promise.all([1, 2, 3].map(() => store.roles.create({ code: unique('role'), name: 'Role' })));
      await store.users.setRoles(user.id, [r2!.id, r1!.id, r2!.id]);
      expect(await store.users.roleIds(user.id)).to.deep.equal([r1!.id, r2!.id].sort((a, b) => a - b));
      await store.users.setRoles(user.id, [r3!.id]);
      expect(await store.users.roleIds(user.id)).to.deep.equal([r3!.id]);
      await store.users.setRoles(user.id, []);
      expect(await store.users.roleIds(user.id)).to.deep.equal([]);

      const org = await store.orgs.create({ name: 'Sales' });
      await store.users.setOrgs(user.id, [org.id]);
      expect(await store.users.orgIds(user.id)).to.deep.equal([org.id]);
    });

    it('refuses links to unknown rows and leaves the previous set in place', async function () {
      const user = await store.users.create({ account: unique('jack') });
      const role = await store.roles.create({ code: unique('role'), name: 'Role' });
      await store.users.setRoles(user.id, [role.id]);
      const unknownRole = await rejection(store.users.setRoles(user.id, [role.id, 987654]));
      expect(unknownRole).to.include({ code: 'VALIDATION_FAILED' });
      expect(unknownRole.message).to.include('987654');
      expect(await store.users.roleIds(user.id)).to.deep.equal([role.id]);
      expect(await rejection(store.users.setRoles(987654, [role.id]))).to.include({ code: 'ROW_NOT_FOUND', status: 404 });
      expect(await rejection(store.users.setOrgs(user.id, [987654]))).to.include({ code: 'VALIDATION_FAILED' });
    });

    it('delete() removes the user and cascades to its links and keys', async function () {
      const user = await store.users.create({ account: unique('kate') });
      const role = await store.roles.create({ code: unique('role'), name: 'Role' });
      const org = await store.orgs.create({ name: 'Org' });
      await store.users.setRoles(user.id, [role.id]);
      await store.users.setOrgs(user.id, [org.id]);
      await store.openApis.create({ name: 'key', userId: user.id });
      expect(await store.users.delete(user.id)).to.equal(true);
      expect(await store.users.findById(user.id)).to.equal(undefined);
      for (const table of ['fw_user_role', 'fw_user_org', 'fw_open_api']) {
        expect(await store.knex(table).where('user_id', user.id).pluck('user_id'), table).to.deep.equal([]);
      }
      expect(await store.roles.findById(role.id)).to.be.an('object');
      expect(await store.users.delete(user.id)).to.equal(false);
    });

    it('lists users by id with paging', async function () {
      const a = await store.users.create({ account: unique('list') });
      const b = await store.users.create({ account: unique('list') });
      const all = await store.users.list();
      const ids = all.map((u) => u.id);
      expect(ids).to.deep.equal([...ids].sort((x, y) => x - y));
      expect(ids).to.include.members([a.id, b.id]);
      const page = await store.users.list({ limit: 1, offset: ids.indexOf(b.id) });
      expect(page.map((u) => u.id)).to.deep.equal([b.id]);
    });
  });

  describe('roles and menu grants', function () {
    async function setup() {
      const user = await store.users.create({ account: unique('grantee') });
      const normal = await store.roles.create({ code: unique('editor'), name: 'Editor' });
      const locked = await store.roles.create({ code: unique('locked'), name: 'Locked', status: 'locked' });
      const dir = await store.menus.create({ code: unique('dir'), name: 'Library', type: 'dir', sort: 1 });
      const open = await store.menus.create({ code: unique('open'), name: 'Books', type: 'table', value: 'Book', parentId: dir.id, sort: 3 });
      const hidden = await store.menus.create({ code: unique('hidden'), name: 'Hidden', type: 'page', status: 'hidden', sort: 2 });
      const disabled = await store.menus.create({ code: unique('disabled'), name: 'Disabled', type: 'page', status: 'disabled' });
      const lockedOnly = await store.menus.create({ code: unique('lockedonly'), name: 'Via locked role', type: 'page' });
      await store.roles.setMenus(normal.id, [dir.id, open.id, hidden.id, disabled.id]);
      await store.roles.setMenus(locked.id, [lockedOnly.id, open.id]);
      await store.users.setRoles(user.id, [normal.id, locked.id]);
      return { user, normal, locked, dir, open, hidden, disabled, lockedOnly };
    }

    it('grants the menus of normal roles, hidden ones included, disabled ones and locked roles excluded', async function () {
      const { user, dir, open, hidden } = await setup();
      const menus = await store.menus.menusForUser(user.id);
      // Ordered by sort, then id; a menu granted by two roles appears once.
      expect(menus.map((m) => m.id)).to.deep.equal([dir.id, hidden.id, open.id]);
      expect(menus[2]).to.include({ type: 'table', value: 'Book', parentId: dir.id, status: 'open', sort: 3 });
      expect(menus[1]?.status).to.equal('hidden');
    });

    it('sees role and menu changes at once', async function () {
      const { user, locked, lockedOnly, open, disabled, normal } = await setup();
      await store.roles.update(locked.id, { status: 'normal' });
      expect((await store.menus.menusForUser(user.id)).map((m) => m.id)).to.include(lockedOnly.id);
      await store.menus.update(open.id, { status: 'disabled' });
      await store.menus.update(disabled.id, { status: 'open' });
      const ids = (await store.menus.menusForUser(user.id)).map((m) => m.id);
      expect(ids).to.include(disabled.id).and.not.include(open.id);
      await store.roles.delete(normal.id);
      expect((await store.menus.menusForUser(user.id)).map((m) => m.id)).to.deep.equal([lockedOnly.id]);
    });

    it('grants nothing to a user without roles, or an unknown user', async function () {
      const user = await store.users.create({ account: unique('roleless') });
      expect(await store.menus.menusForUser(user.id)).to.deep.equal([]);
      expect(await store.menus.menusForUser(987654)).to.deep.equal([]);
    });

    it('allMenus() holds every menu except disabled ones', async function () {
      const { dir, open, hidden, disabled, lockedOnly } = await setup();
      const ids = (await store.menus.allMenus()).map((m) => m.id);
      expect(ids).to.include.members([dir.id, open.id, hidden.id, lockedOnly.id]);
      expect(ids).not.to.include(disabled.id);
      expect((await store.menus.list()).map((m) => m.id)).to.include(disabled.id);
    });

    it('keeps roles by code with unique codes and their menu ids', async function () {
      const { normal, dir, open, hidden, disabled } = await setup();
      expect(await store.roles.findByCode(normal.code)).to.deep.equal(normal);
      expect(await store.roles.menuIds(normal.id)).to.deep.equal([dir.id, open.id, hidden.id, disabled.id].sort((a, b) => a - b));
      expect(await rejection(store.roles.create({ code: normal.code, name: 'Again' }))).to.include({ code: 'CONFLICT', status: 409 });
      expect(await store.roles.findByCode(unique('none'))).to.equal(undefined);
      const renamed = await store.roles.update(normal.id, { name: 'Chief editor', remark: 'edits everything' });
      expect(renamed).to.include({ code: normal.code, name: 'Chief editor', remark: 'edits everything', status: 'normal' });
      expect((await store.roles.list()).map((r) => r.id)).to.include(normal.id);
    });

    it('refuses an unknown menu type or status, and duplicate menu codes', async function () {
      expect((await rejection(store.menus.create({ name: 'x', type: 'folder' as 'dir' }))).details?.[0]?.path).to.equal('type');
      expect((await rejection(store.menus.create({ name: 'x', type: 'dir', status: 'gone' as 'open' }))).details?.[0]?.path).to.equal('status');
      expect((await rejection(store.menus.create({ name: 'x', type: 'dir', parentId: 987654 }))).details?.[0]?.path).to.equal('parentId');
      const code = unique('menu');
      await store.menus.create({ code, name: 'x', type: 'dir' });
      expect(await rejection(store.menus.create({ code, name: 'y', type: 'dir' }))).to.include({ code: 'CONFLICT' });
      // Menus without a code do not collide with each other.
      await store.menus.create({ name: 'no code', type: 'dir' });
      await store.menus.create({ name: 'no code either', type: 'dir' });
    });

    it('delete() removes a menu with everything under it and its grants', async function () {
      const { dir, open, normal } = await setup();
      const grandchild = await store.menus.create({ name: 'Book button', type: 'function', parentId: open.id });
      expect(await store.menus.delete(dir.id)).to.equal(true);
      for (const id of [dir.id, open.id, grandchild.id]) expect(await store.menus.findById(id)).to.equal(undefined);
      const granted = await store.roles.menuIds(normal.id);
      expect(granted).not.to.include(dir.id);
      expect(granted).not.to.include(open.id);
      expect(await store.menus.delete(dir.id)).to.equal(false);
    });
  });

  describe('menus.createModelMenu(model, options)', function () {
    function model(name: string, power: Record<string, boolean>, tree = false): ModelDefinition {
      return defineModel({
        name,
        title: `${name} title`,
        power,
        fields: { name: {}, ...(tree ? { parentId: { edit: { type: 'REFERENCE_TREE', reference: { model: name } } } } : {}) },
        ...(tree ? { treeParentField: 'parentId' } : {}),
      });
    }

    it('creates the table menu and one function menu per enabled flag', async function () {
      const name = unique('Book');
      const parent = await store.menus.create({ name: 'Library', type: 'dir' });
      const { menu, functions } = await store.menus.createModelMenu(model(name, { export: true, delete: false, viewDetails: true }), {
        parentId: parent.id,
        icon: 'book',
        sort: 4,
      });
      expect(menu).to.include({ code: name, value: name, type: 'table', name: `${name} title`, parentId: parent.id, icon: 'book', sort: 4, status: 'open' });
      expect(functions.map((f) => f.code)).to.deep.equal([`${name}@ADD`, `${name}@EDIT`, `${name}@EXPORT`, `${name}@VIEW_DETAIL`]);
      for (const fn of functions) expect(fn).to.include({ type: 'function', parentId: menu.id });
    });

    it('honours every flag, importable included, and makes a tree model a tree menu', async function () {
      const name = unique('Dept');
      const all = { add: true, edit: true, delete: true, export: true, importable: true, viewDetails: true };
      const { menu, functions } = await store.menus.createModelMenu(model(name, all, true), { name: 'Departments' });
      expect(menu).to.include({ type: 'tree', name: 'Departments', parentId: null });
      expect(functions.map((f) => f.code)).to.deep.equal(['ADD', 'EDIT', 'DELETE', 'EXPORT', 'IMPORTABLE', 'VIEW_DETAIL'].map((s) => `${name}@${s}`));
      const none = await store.menus.createModelMenu(model(unique('Log'), { add: false, edit: false, delete: false, viewDetails: false }));
      expect(none.functions).to.deep.equal([]);
    });

    it('is idempotent, also when two instances run it at once', async function () {
      const definition = model(unique('Order'), {});
      const before = (await store.menus.list()).length;
      // A second store on the same database stands for a second app instance starting up.
      const other = createStore(db().url);
      let a, b, again;
      try {
        [a, b] = await Promise.all([store.menus.createModelMenu(definition), other.menus.createModelMenu(definition)]);
        again = await store.menus.createModelMenu(definition);
      } finally {
        await other.destroy();
      }
      expect(b.menu.id).to.equal(a.menu.id);
      expect(again.menu.id).to.equal(a.menu.id);
      expect(again.functions.map((f) => f.id)).to.deep.equal(a.functions.map((f) => f.id));
      // Defaults: add, edit, delete, viewDetails on; export and importable off.
      expect((await store.menus.list()).length).to.equal(before + 5);
    });

    it('grants its function menus through roles like any menu', async function () {
      const name = unique('Invoice');
      const { menu, functions } = await store.menus.createModelMenu(model(name, {}));
      const user = await store.users.create({ account: unique('clerk') });
      const role = await store.roles.create({ code: unique('clerks'), name: 'Clerks' });
      await store.roles.setMenus(role.id, [menu.id, functions[0]!.id]);
      await store.users.setRoles(user.id, [role.id]);
      expect((await store.menus.menusForUser(user.id)).map((m) => m.code)).to.have.members([name, `${name}@ADD`]);
    });
  });

  describe('orgs', function () {
    it('creates a tree, lists it by sort and refuses to drop a node with children', async function () {
      const root = await store.orgs.create({ code: unique('hq'), name: 'HQ', sort: 1 });
      const child = await store.orgs.create({ name: 'Branch', parentId: root.id, sort: 0 });
      expect(child).to.include({ parentId: root.id, code: null, sort: 0 });
      const ids = (await store.orgs.list()).map((o) => o.id);
      expect(ids.indexOf(child.id)).to.be.below(ids.indexOf(root.id));
      expect(await rejection(store.orgs.delete(root.id))).to.include({ code: 'CONFLICT' });
      expect(await rejection(store.orgs.create({ name: 'x', parentId: 987654 }))).to.include({ code: 'VALIDATION_FAILED' });
      expect(await rejection(store.orgs.create({ code: root.code, name: 'x' }))).to.include({ code: 'CONFLICT' });
      expect(await store.orgs.delete(child.id)).to.equal(true);
      expect(await store.orgs.delete(root.id)).to.equal(true);
      expect(await store.orgs.findById(root.id)).to.equal(undefined);
    });
  });

  describe('loginLogs', function () {
    it('records sign-ins and lists them newest first, per user and with a limit', async function () {
      const user = await store.users.create({ account: unique('logger') });
      const base = Date.parse('2030-03-01T10:00:00.000Z');
      for (const [i, method] of ['password', 'oauth:github', 'password'].entries()) {
        await store.loginLogs.insert({
          userId: user.id,
          account: user.account,
          ip: `10.0.0.${i}`,
          userAgent: 'mocha',
          method,
          tokenHash: String(i).repeat(64),
          loginTime: new Date(base + i * 1_000 + 7),
        });
      }
      await store.loginLogs.insert({ userId: null, account: unique('ghost'), method: 'password', loginTime: new Date(base + 60_000) });
      const mine = await store.loginLogs.list({ userId: user.id });
      expect(mine.map((l) => l.ip)).to.deep.equal(['10.0.0.2', '10.0.0.1', '10.0.0.0']);
      expect(mine[0]).to.include({ userId: user.id, account: user.account, userAgent: 'mocha', method: 'password', tokenHash: '2'.repeat(64) });
      expect(mine[0]?.loginTime.toISOString()).to.equal(new Date(base + 2_007).toISOString());
      expect(mine[0]?.id).to.be.a('number');
      expect((await store.loginLogs.list({ userId: user.id, limit: 1 })).map((l) => l.ip)).to.deep.equal(['10.0.0.2']);
      expect((await store.loginLogs.list({ limit: 1 }))[0]).to.include({ userId: null });
    });

    it('cuts an over-long user agent and refuses a token that is not a SHA-256 hex hash', async function () {
      const log = await store.loginLogs.insert({ userId: null, account: unique('agent'), method: 'password', userAgent: 'x'.repeat(2_000) });
      const stored = (await store.loginLogs.list({ limit: 50 })).find((l) => l.id === log.id);
      expect(stored?.userAgent).to.have.length(512);
      expect(stored?.tokenHash).to.equal(null);
      expect((await rejection(store.loginLogs.insert({ userId: null, account: 'a', method: 'password', tokenHash: 'clear-token' }))).details?.[0]?.path).to.equal('tokenHash');
    });

    // Issue 19 §6: failed sign-ins are rows of the same table.
    it('records a failed sign-in with its reason class and the account as typed, cleaned, and filters on success', async function () {
      const typed = `${unique('typo')}\u0000\u202e${'🔑'.repeat(70)}`;
      const failed = await store.loginLogs.insert({
        userId: null,
        account: typed,
        accountTyped: typed,
        method: 'password',
        ip: '192.0.2.1',
        success: false,
        reason: 'bad-credentials',
      });
      const stored = (await store.loginLogs.list({ success: false, limit: 50 })).find((l) => l.id === failed.id);
      expect(stored).to.include({ success: false, reason: 'bad-credentials', attempts: 1, userId: null, ip: '192.0.2.1' });
      expect(stored?.accountTyped).to.have.length.at.most(128);
      expect(stored?.accountTyped).to.match(/^typo.*\ufffd\ufffd🔑+$/u);
      expect(stored?.account).to.have.length.at.most(64);
      expect(stored?.account.startsWith(stored.accountTyped!.slice(0, 10))).to.equal(true);
      expect((await store.loginLogs.list({ success: true, limit: 50 })).some((l) => l.id === failed.id)).to.equal(false);
      const summary = await store.loginLogs.insert({ userId: null, account: '*', method: '*', success: false, reason: 'rate-limited', attempts: 9_990 });
      expect((await store.loginLogs.list({ success: false, limit: 1 }))[0]).to.include({ id: summary.id, attempts: 9_990, accountTyped: null });
    });

    it('refuses a failed row without a known reason class, and a reason on a success', async function () {
      const base = { userId: null, account: unique('r'), method: 'password' };
      expect((await rejection(store.loginLogs.insert({ ...base, success: false }))).details?.[0]?.path).to.equal('reason');
      // The class list is closed: a hook's own text never becomes a reason.
      expect((await rejection(store.loginLogs.insert({ ...base, success: false, reason: 'LDAP says no' as never }))).details?.[0]?.path).to.equal('reason');
      expect((await rejection(store.loginLogs.insert({ ...base, reason: 'locked' }))).details?.[0]?.path).to.equal('reason');
      expect((await rejection(store.loginLogs.insert({ ...base, success: false, reason: 'locked', attempts: 0 }))).details?.[0]?.path).to.equal('attempts');
    });
  });

  describe('operateLogs', function () {
    it('records operations with JSON bodies and lists them newest first per model', async function () {
      const modelName = unique('Book');
      const first = await store.operateLogs.insert({
        userId: 1,
        account: 'admin',
        ip: '127.0.0.1',
        model: modelName,
        action: 'update-cell',
        source: 'cell',
        targetId: 42,
        beforeData: { id: 42, title: 'Old' },
        request: { id: 42, field: 'title', value: 'New' },
        status: 'success',
        durationMs: 12,
        createdAt: new Date('2030-01-01T00:00:00.001Z'),
      });
      await store.operateLogs.insert({ model: modelName, action: 'delete', status: 'failure', error: 'row not visible', createdAt: new Date('2030-01-01T00:00:01.000Z') });
      await store.operateLogs.insert({ model: unique('Other'), action: 'add', status: 'success' });
      const logs = await store.operateLogs.list({ model: modelName });
      expect(logs.map((l) => l.action)).to.deep.equal(['delete', 'update-cell']);
      expect(logs[1]).to.deep.equal(first);
      expect(logs[1]).to.include({ targetId: '42', source: 'cell', durationMs: 12, beforeData: '{"id":42,"title":"Old"}', error: null });
      expect(JSON.parse(logs[1]!.request!)).to.deep.equal({ id: 42, field: 'title', value: 'New' });
      expect(logs[0]).to.include({ status: 'failure', error: 'row not visible', source: 'http', userId: null, durationMs: 0 });
      expect(logs[0]?.createdAt).to.be.instanceOf(Date);
      expect(await rejection(store.operateLogs.insert({ model: modelName, action: 'add', status: 'maybe' as 'success' }))).to.include({ code: 'VALIDATION_FAILED' });
    });

    it("lists one user's operations, newest first (issue 20 §6)", async function () {
      const modelName = unique('Mine');
      await store.operateLogs.insert({ userId: 7001, model: modelName, action: 'add', status: 'success', createdAt: new Date('2030-01-02T00:00:00.000Z') });
      await store.operateLogs.insert({ userId: 7002, model: modelName, action: 'update', status: 'success', createdAt: new Date('2030-01-02T00:00:01.000Z') });
      await store.operateLogs.insert({ userId: 7001, model: modelName, action: 'delete', status: 'success', createdAt: new Date('2030-01-02T00:00:02.000Z') });
      const mine = await store.operateLogs.list({ model: modelName, userId: 7001 });
      expect(mine.map((l) => [l.userId, l.action])).to.deep.equal([
        [7001, 'delete'],
        [7001, 'add'],
      ]);
      expect(await store.operateLogs.list({ model: modelName, userId: 7001, limit: 1 })).to.have.length(1);
      expect(await store.operateLogs.list({ userId: 0 })).to.deep.equal([]);
    });
  });

  describe('openApis', function () {
    it('returns the secret once, stores it hashed and verifies it', async function () {
      const user = await store.users.create({ account: unique('robot') });
      const { record, secret } = await store.openApis.create({ name: 'CI', userId: user.id });
      expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(record).to.include({ name: 'CI', userId: user.id, status: 'normal', expireDate: null });
      expect(record.appId).to.match(/^[A-Za-z0-9_-]{16}$/);
      expect(Object.keys(record)).to.not.include.any.members(HASH_KEYS);
      const raw = await store.knex('fw_open_api').where('id', record.id).first();
      expect(raw.secret_hash).to.be.a('string').and.not.include(secret);
      expect(JSON.stringify(await store.openApis.list())).not.to.include(raw.secret_hash);
      expect(await store.openApis.verify(record.appId, secret)).to.deep.equal(record);
      expect(await store.openApis.findByAppId(record.appId)).to.deep.equal(record);
    });

    it('refuses a wrong secret, an unknown app id, an expired key and a locked key', async function () {
      const user = await store.users.create({ account: unique('robot') });
      const live = await store.openApis.create({ appId: unique('app'), name: 'live', userId: user.id, expireDate: new Date(Date.now() + 3_600_000) });
      expect(await store.openApis.verify(live.record.appId, live.secret)).to.be.an('object');
      expect(await store.openApis.verify(live.record.appId, `${live.secret}x`)).to.equal(undefined);
      expect(await store.openApis.verify(unique('unknown'), live.secret)).to.equal(undefined);
      const expired = await store.openApis.create({ name: 'expired', userId: user.id, expireDate: new Date(Date.now() - 1_000) });
      expect(await store.openApis.verify(expired.record.appId, expired.secret)).to.equal(undefined);
      const locked = await store.openApis.create({ name: 'locked', userId: user.id, status: 'locked' });
      expect(await store.openApis.verify(locked.record.appId, locked.secret)).to.equal(undefined);
    });

    it('refuses a duplicate app id and an unknown user; deletes keys', async function () {
      const user = await store.users.create({ account: unique('robot') });
      const appId = unique('app');
      const key = await store.openApis.create({ appId, name: 'one', userId: user.id });
      expect(await rejection(store.openApis.create({ appId, name: 'two', userId: user.id }))).to.include({ code: 'CONFLICT' });
      expect(await rejection(store.openApis.create({ name: 'orphan', userId: 987654 }))).to.include({ code: 'VALIDATION_FAILED' });
      // The login log records `open-api:<appId>` in 64 characters, so longer ids could never sign in.
      expect(await rejection(store.openApis.create({ appId: 'a'.repeat(56), name: 'long', userId: user.id }))).to.include({ code: 'VALIDATION_FAILED' });
      expect((await store.openApis.create({ appId: `${appId}-${'b'.repeat(55 - appId.length - 1)}`, name: 'at the limit', userId: user.id })).record.appId).to.have.length(55);
      expect(await store.openApis.delete(key.record.id)).to.equal(true);
      expect(await store.openApis.verify(appId, key.secret)).to.equal(undefined);
      expect(await store.openApis.delete(key.record.id)).to.equal(false);
    });
  });

  describe('createModelTables(models)', function () {
    const Author = defineModel({ name: 'Author', fields: { name: { edit: { type: 'INPUT', notNull: true } }, bio: { edit: { type: 'TEXTAREA' } } } });
    const Book = defineModel({
      name: 'Book',
      table: 'fw_test_book',
      fields: {
        title: { edit: { type: 'INPUT', notNull: true } },
        secret: { edit: { type: 'PASSWORD' } },
        kind: { edit: { type: 'CHOICE', choices: [{ value: 'novel' }, { value: 'essay' }] } },
        price: { edit: { type: 'NUMBER' } },
        pages: { edit: { type: 'NUMBER', integer: true } },
        inPrint: { column: 'in_print', edit: { type: 'BOOLEAN' } },
        tags: { edit: { type: 'TAGS' } },
        genres: { edit: { type: 'MULTI_CHOICE', choices: [{ value: 'sf' }, { value: 'crime' }] } },
        released: { edit: { type: 'DATE' } },
        reviewedAt: { column: 'reviewed_at', edit: { type: 'DATETIME' } },
        author: { column: 'author_id', edit: { type: 'REFERENCE_TABLE', reference: { model: 'Author' } } },
        coAuthors: { edit: { type: 'COLLECTION', collection: { model: 'Author', joinTable: 'fw_test_book_author', ownKey: 'book_id', foreignKey: 'author_id' } } },
      },
    });

    it('creates the model tables and the COLLECTION join table, then nothing on a second call', async function () {
      expect(await store.createModelTables([Author, Book])).to.deep.equal(['author', 'fw_test_book', 'fw_test_book_author']);
      expect(await store.createModelTables([Author, Book])).to.deep.equal([]);
      const columns = Object.keys(await store.knex('fw_test_book').columnInfo()).sort();
      expect(columns).to.deep.equal(['id', 'title', 'secret', 'kind', 'price', 'pages', 'in_print', 'tags', 'genres', 'released', 'reviewed_at', 'author_id'].sort());
      expect(Object.keys(await store.knex('fw_test_book_author').columnInfo()).sort()).to.deep.equal(['author_id', 'book_id']);
    });

    it('gives a hashed password with a salt column both columns', async function () {
      const Account = defineModel({
        name: 'Account',
        table: 'fw_test_account',
        fields: { login: {}, pass: { column: 'pass_hash', edit: { type: 'PASSWORD', saltColumn: 'pass_salt' } } },
      });
      await store.createModelTables([Account]);
      expect(Object.keys(await store.knex('fw_test_account').columnInfo()).sort()).to.deep.equal(['id', 'login', 'pass_hash', 'pass_salt']);
    });

    it('round-trips a row of every column type, with generated ids', async function () {
      await store.createModelTables([Author, Book]);
      const knex = store.knex;
      await knex('author').insert({ name: 'Ursula', bio: 'x'.repeat(5_000) });
      const [authorId] = await knex('author').where('name', 'Ursula').pluck('id');
      const reviewedAt = new Date('2030-02-03T04:05:06.789Z');
      await knex('fw_test_book').insert({
        title: 'The Dispossessed',
        kind: 'novel',
        price: 12.5,
        pages: 387,
        in_print: true,
        tags: JSON.stringify(['utopia', 'physics']),
        genres: JSON.stringify(['sf']),
        released: '1974-05-01',
        reviewed_at: reviewedAt,
        author_id: authorId,
      });
      const row = await knex('fw_test_book').where('title', 'The Dispossessed').first();
      expect(Number(row.id)).to.be.a('number').and.above(0);
      expect(Number(row.price)).to.equal(12.5);
      expect(Number(row.pages)).to.equal(387);
      expect(Boolean(row.in_print)).to.equal(true);
      expect(JSON.parse(row.tags)).to.deep.equal(['utopia', 'physics']);
      expect(Number(row.author_id)).to.equal(Number(authorId));
      expect(new Date(row.reviewed_at).getTime()).to.equal(reviewedAt.getTime());
      expect((await knex('author').where('id', authorId).first()).bio).to.have.length(5_000);

      await knex('fw_test_book_author').insert({ book_id: row.id, author_id: authorId });
      let duplicate: unknown;
      try {
        await knex('fw_test_book_author').insert({ book_id: row.id, author_id: authorId });
      } catch (error) {
        duplicate = error;
      }
      expect(duplicate, 'the join table has a composite primary key').to.be.instanceOf(Error);
    });
  });
});
