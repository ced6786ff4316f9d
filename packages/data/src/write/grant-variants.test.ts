import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, loadConfig, type FwUser } from '@fw/core';
import { BaseLoginProxy, encodePassword, fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { fwData } from '../http/router.js';
import { DataService } from '../service.js';

const api = '/fw-api';

/** Accounts the login hook below makes administrators ("members of the admin group"). */
const hookAdmins = new Set<string>();

/** A login hook that checks the stored password, then decides administrators itself. */
class GroupLogin extends BaseLoginProxy {
  override async login(account: string, pwd: string): Promise<FwUser> {
    const user = await super.login(account, pwd);
    return { ...user, isAdmin: user.isAdmin === true || hookAdmins.has(account) };
  }
}

// A host's own views of the link tables that hold grants: a user's roles, a role's menus, a
// user's organisations, each row keyed by one of its two columns.
const UserRole = defineModel({
  name: 'UserRole',
  table: 'fw_user_role',
  primaryKey: 'userId',
  fields: { userId: { column: 'user_id', edit: { type: 'HIDDEN', integer: true } }, roleId: { column: 'role_id', edit: { type: 'NUMBER', integer: true } } },
});
// One table, one model per registry: this view is served by a data service of its own.
const RoleHolder = defineModel({
  name: 'RoleHolder',
  table: 'fw_user_role',
  primaryKey: 'roleId',
  fields: { roleId: { column: 'role_id', edit: { type: 'HIDDEN', integer: true } }, userId: { column: 'user_id', edit: { type: 'NUMBER', integer: true } } },
});
const RoleMenu = defineModel({
  name: 'RoleMenu',
  table: 'fw_role_menu',
  primaryKey: 'roleId',
  fields: { roleId: { column: 'role_id', edit: { type: 'HIDDEN', integer: true } }, menuId: { column: 'menu_id', edit: { type: 'NUMBER', integer: true } } },
});
const UserOrg = defineModel({
  name: 'UserOrg',
  table: 'fw_user_org',
  primaryKey: 'userId',
  fields: { userId: { column: 'user_id', edit: { type: 'HIDDEN', integer: true } }, orgId: { column: 'org_id', edit: { type: 'NUMBER', integer: true } } },
});

type Res = { status: number; body: { error?: { code: string; details?: Array<{ path?: string }> } } & Record<string, unknown> };

function denied(res: Res, path?: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(403);
  expect(res.body.error?.code).to.equal('GRANT_DENIED');
  if (path) expect(res.body.error?.details?.[0]?.path).to.equal(path);
}

function ok(res: Res): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

// Variants of issue 10 §1, sent again from the attacker's side after the first fix: `dave` holds a
// "user manager" role (every menu of the built-in user, role, menu, organisation and open-API
// models) and signs in through the real login routes, on the same app as the data API.
describeEachSql('who may grant what: variants of the issue-10 probes', (db) => {
  let store: FwStore;
  let tokens: FwTokenService;
  let agent: ReturnType<typeof request>;
  let admin: FwUser;
  let dave: FwUser;
  let carol: FwUser;
  let adminToken: string;
  let daveToken: string;
  let manager: number;
  let registry: ReturnType<typeof createRegistry>;
  const menu: Record<string, number> = {};
  const stamp = Date.now().toString(36);

  const login = async (account: string, pwd: string) => agent.post(`${api}/login`).send({ account, pwd: encodePassword(pwd) });
  const as = (token: string) => ({
    post: (path: string, body: unknown) => agent.post(`${api}${path}`).set('token', token).send(body as object) as unknown as Promise<Res>,
  });
  const exchange = (appId: string, secret: string) => agent.post(`${api}/open-api/token`).send({ appId, secret });

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    registry = createRegistry([...BUILTIN_MODELS, UserRole, RoleMenu, UserOrg]);
    for (const model of registry.list()) await store.menus.createModelMenu(model);
    const rows: Array<{ id: unknown; code: string }> = await store.knex('fw_menu').whereNotNull('code').select('id', 'code');
    for (const r of rows) menu[r.code] = Number(r.id);
    const make = async (account: string, isAdmin = false): Promise<FwUser> => {
      const created = await store.users.create({ account: `${account}-${stamp}`, password: `${account}-password-1`, isAdmin, mustChangePassword: false });
      return { id: created.id, account: created.account, name: null, isAdmin };
    };
    admin = await make('admin', true);
    dave = await make('dave');
    carol = await make('carol');
    manager = (await store.roles.create({ code: `manager-${stamp}`, name: 'User manager' })).id;
    await store.roles.setMenus(manager, Object.keys(menu).filter((code) => /^(Fw(User|Role|Menu|Org|OpenApi)|UserRole|RoleHolder|RoleMenu|UserOrg)(@|$)/.test(code)).map((code) => menu[code]!));
    await store.users.setRoles(dave.id, [manager]);
    await store.grants.bump();

    tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
    const app = new Koa();
    app.silent = true;
    // Attackers' failed sign-ins must not put the tests' own sign-ins behind a captcha.
    const config = loadConfig({ values: { 'fw-app.verifyCodeCount': 1000, 'fw-app.loginLockCount': 1000, 'fw-app.loginIpLockCount': 1000 } });
    app.use(fwLogin({ store, tokens, ephemeral: new MemoryEphemeralStore(), proxy: GroupLogin, config }));
    app.use(fwData({ store, tokens, registry, onBackgroundError: (e) => { throw e; } }));
    agent = request(app.callback());
    adminToken = (await login(admin.account, 'admin-password-1')).body.token;
    daveToken = (await login(dave.account, 'dave-password-1')).body.token;
    expect(adminToken).to.be.a('string');
    expect(daveToken).to.be.a('string');
  });
  after(() => store?.destroy());

  describe('an account a login hook makes an administrator', () => {
    it('is an administrator’s account: a non-administrator cannot set its password and sign in as an administrator', async () => {
      const boss = await store.users.create({ account: `boss-${stamp}`, password: 'boss-password-1', mustChangePassword: false });
      hookAdmins.add(boss.account);
      const own = await login(boss.account, 'boss-password-1');
      expect((await agent.get(`${api}/userinfo`).set('token', own.body.token)).body.isAdmin).to.equal(true);
      const before = await store.knex('fw_user').where('id', boss.id).first();

      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: boss.id, password: 'taken-over-by-dave-1' }));
      denied(await as(daveToken).post('/data/modify/FwUser/update-cell', { id: boss.id, field: 'name', value: 'Boss?' }));
      denied(await as(daveToken).post('/data/modify/FwOpenApi', { name: 'k', secret: 'a-long-enough-secret-1', userId: boss.id }), 'userId');
      expect(await store.knex('fw_user').where('id', boss.id).first()).to.deep.equal(before);
      const taken = await login(boss.account, 'taken-over-by-dave-1');
      expect(taken.status, JSON.stringify(taken.body)).to.equal(401);

      // An administrator still may.
      ok(await as(adminToken).post('/data/modify/FwUser/update', { id: boss.id, name: 'The boss' }));
      hookAdmins.delete(boss.account);
    });
  });

  describe('accounts whose grants are only switched off for now', () => {
    it('a locked role or a disabled menu still counts: a new password now would hand its grants over when it is switched back on', async () => {
      const ledger = await store.roles.create({ code: `ledger-${stamp}`, name: 'Ledger admin', status: 'locked' });
      await store.roles.setMenus(ledger.id, [menu['FwLlm']!, menu['FwLlm@DELETE']!]);
      const keeper = await store.users.create({ account: `keeper-${stamp}`, password: 'keeper-password-1', mustChangePassword: false });
      await store.users.setRoles(keeper.id, [ledger.id]);
      const paused = await store.menus.create({ code: `FwAgent@PAUSED-${stamp}`, name: 'Paused', type: 'function', status: 'disabled' });
      const pausedRole = await store.roles.create({ code: `paused-${stamp}`, name: 'Paused' });
      await store.roles.setMenus(pausedRole.id, [paused.id]);
      const sleeper = await store.users.create({ account: `sleeper-${stamp}`, password: 'sleeper-password-1', mustChangePassword: false });
      await store.users.setRoles(sleeper.id, [pausedRole.id]);
      const before = await store.knex('fw_user').whereIn('id', [keeper.id, sleeper.id]).orderBy('id');

      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: keeper.id, password: 'taken-over-by-dave-1' }));
      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: sleeper.id, password: 'taken-over-by-dave-1' }));
      denied(await as(daveToken).post('/data/modify/FwOpenApi', { name: 'k', secret: 'a-long-enough-secret-1', userId: keeper.id }), 'userId');
      expect(await store.knex('fw_user').whereIn('id', [keeper.id, sleeper.id]).orderBy('id')).to.deep.equal(before);
    });
  });

  describe('accounts in organisations outside the actor’s own', () => {
    it('a new password cannot hand the actor an organisation scope they lack', async () => {
      const finance = await store.orgs.create({ code: `finance-${stamp}`, name: 'Finance' });
      const sales = await store.orgs.create({ code: `sales-${stamp}`, name: 'Sales' });
      const team = await store.orgs.create({ code: `team-${stamp}`, name: 'Sales team', parentId: sales.id });
      const accountant = await store.users.create({ account: `accountant-${stamp}`, password: 'accountant-password-1', mustChangePassword: false });
      await store.users.setOrgs(accountant.id, [finance.id]);
      const seller = await store.users.create({ account: `seller-${stamp}`, password: 'seller-password-1', mustChangePassword: false });
      await store.users.setOrgs(seller.id, [team.id]);
      await store.users.setOrgs(dave.id, [sales.id]);
      const before = await store.knex('fw_user').where('id', accountant.id).first();

      denied(await as(daveToken).post('/data/modify/FwUser/update', { id: accountant.id, password: 'taken-over-by-dave-1' }));
      expect((await login(accountant.account, 'taken-over-by-dave-1')).status).to.equal(401);
      denied(await as(daveToken).post('/data/modify/FwUser/update-cell', { id: accountant.id, field: 'name', value: 'renamed' }));
      denied(await as(daveToken).post('/data/modify/FwUser/delete', { ids: [accountant.id] }));
      // Nor through a key that signs in as that account.
      denied(await as(daveToken).post('/data/modify/FwOpenApi', { name: 'k', secret: 'a-long-enough-secret-1', userId: accountant.id }), 'userId');
      expect(await store.knex('fw_user').where('id', accountant.id).first()).to.deep.equal(before);

      // Within dave's own organisation (and below it) nothing changes.
      ok(await as(daveToken).post('/data/modify/FwUser/update', { id: seller.id, password: 'reset-by-dave-1' }));
      expect((await login(seller.account, 'reset-by-dave-1')).status).to.equal(200);
      await store.users.setOrgs(dave.id, []);
    });
  });

  describe('a host model over a link table that holds grants', () => {
    it('hands out no role, menu or organisation beyond the actor’s own, in a cell or the form', async () => {
      const everything = (await store.roles.create({ code: `everything-${stamp}`, name: 'Everything' })).id;
      await store.roles.setMenus(everything, Object.values(menu));
      const holder = await store.users.create({ account: `holder-${stamp}`, password: 'holder-password-1', mustChangePassword: false });
      await store.users.setRoles(holder.id, [everything]);
      const outside = await store.orgs.create({ code: `outside-${stamp}`, name: 'Outside' });
      const home = await store.orgs.create({ code: `home-${stamp}`, name: 'Home' });
      await store.users.setOrgs(dave.id, [home.id]);
      const links = async () => ({
        userRole: await store.knex('fw_user_role').orderBy(['user_id', 'role_id']),
        roleMenu: await store.knex('fw_role_menu').where('role_id', manager).whereNotIn('menu_id', store.knex('fw_menu').where('code', 'like', 'RoleHolder%').select('id')).orderBy('menu_id'),
        userOrg: await store.knex('fw_user_org').orderBy(['user_id', 'org_id']),
      });
      const before = await links();

      // dave's own role becomes one that grants everything.
      denied(await as(daveToken).post('/data/modify/UserRole/update-cell', { id: dave.id, field: 'roleId', value: everything }), 'roleId');
      denied(await as(daveToken).post('/data/modify/UserRole/update', { userId: dave.id, roleId: everything }), 'roleId');
      // The holders of that role become dave (a host's other view of the same table).
      const own = await store.menus.createModelMenu(RoleHolder);
      await store.roles.setMenus(manager, [...(await store.roles.menuIds(manager)), own.menu.id, ...own.functions.map((m) => m.id)]);
      await store.grants.bump();
      const holders = new DataService({ store, registry: createRegistry([...BUILTIN_MODELS, RoleHolder]) });
      const moved = await holders.updateCell('RoleHolder', { user: dave, ip: null, source: 'http' }, { id: everything, field: 'userId', value: dave.id }).catch((e: unknown) => e as { code?: string });
      expect((moved as { code?: string }).code).to.equal('GRANT_DENIED');
      // dave's role gains a menu he does not hold.
      denied(await as(daveToken).post('/data/modify/RoleMenu/update-cell', { id: manager, field: 'menuId', value: menu['FwLlm@DELETE'] }), 'menuId');
      // His organisation becomes one outside his scope.
      denied(await as(daveToken).post('/data/modify/UserOrg/update-cell', { id: dave.id, field: 'orgId', value: outside.id }), 'orgId');
      expect(await links()).to.deep.equal(before);
      await store.users.setOrgs(dave.id, []);
      // Within what dave holds, the host's view works as before.
      const small = (await store.roles.create({ code: `small-${stamp}`, name: 'Small' })).id;
      await store.roles.setMenus(small, [menu['FwUser']!]);
      await store.users.setRoles(carol.id, [manager]);
      ok(await as(daveToken).post('/data/modify/UserRole/update-cell', { id: carol.id, field: 'roleId', value: small }));
      expect(await store.users.roleIds(carol.id)).to.deep.equal([small]);
      await store.users.setRoles(carol.id, []);
      const power = await as(daveToken).post('/data/table/FwLlm', {});
      expect(power.status).to.equal(403);
    });
  });

  describe('open-API keys of an account the actor may not change', () => {
    it('a non-administrator cannot give an administrator’s key a secret of their own (and so sign in as the administrator)', async () => {
      const added = await as(adminToken).post('/data/modify/FwOpenApi', { name: 'admin key', secret: 'admin-secret-0123456789', userId: admin.id });
      ok(added);
      const key = { id: added.body.id as number, appId: added.body.appId as string };
      const before = await store.knex('fw_open_api').where('id', key.id).first();

      denied(await as(daveToken).post('/data/modify/FwOpenApi/update', { id: key.id, secret: 'dave-chose-this-secret-1' }));
      // The AI tools share the data service's write path.
      const ai = new DataService({ store, registry });
      const viaAi = await ai.update('FwOpenApi', { user: dave, ip: null, source: 'ai' }, { id: key.id, secret: 'dave-chose-this-secret-2' }).catch((e: unknown) => e as { code?: string });
      expect((viaAi as { code?: string }).code).to.equal('GRANT_DENIED');
      expect((await exchange(key.appId, 'dave-chose-this-secret-1')).status).to.equal(401);
      // Nor anything else about it: name (in a cell), status, expiry, or the key itself.
      denied(await as(daveToken).post('/data/modify/FwOpenApi/update-cell', { id: key.id, field: 'name', value: 'renamed' }));
      denied(await as(daveToken).post('/data/modify/FwOpenApi/update', { id: key.id, status: 'locked' }));
      denied(await as(daveToken).post('/data/modify/FwOpenApi/delete', { ids: [key.id] }));
      expect(await store.knex('fw_open_api').where('id', key.id).first()).to.deep.equal(before);
      // The key still works with the administrator's own secret.
      expect((await exchange(key.appId, 'admin-secret-0123456789')).status).to.equal(200);
    });

    it('a non-administrator may still manage the key of an account they could change', async () => {
      const added = await as(daveToken).post('/data/modify/FwOpenApi', { name: 'carol key', secret: 'carol-secret-0123456789', userId: carol.id });
      ok(added);
      ok(await as(daveToken).post('/data/modify/FwOpenApi/update', { id: added.body.id, secret: 'carol-secret-rotated-99' }));
      expect((await exchange(added.body.appId as string, 'carol-secret-rotated-99')).status).to.equal(200);
      ok(await as(daveToken).post('/data/modify/FwOpenApi/delete', { ids: [added.body.id] }));
    });
  });
});
