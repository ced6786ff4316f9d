import { expect } from 'chai';
import { BUILTIN_MODELS, FwError, FwMenuModel, FwUserModel, createRegistry, defineModel, type FwUser } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { Book, Frozen, Ledger, Note, Plan, Tag, setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Red-team probes of the import modes (issue 20 §4) from outside: crafted modes and keys, rows
// outside the caller's scope, read-only and grant-guarded fields, and all-or-nothing.

/** Owned rows whose hooks fail on demand, to see that an import leaves nothing behind. */
const RtItem = defineModel({
  name: 'RtItem',
  table: 'rt_item',
  power: { export: true, importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true } },
    ownerId: { column: 'owner_id', edit: { type: 'HIDDEN', readonly: true, integer: true } },
    stamp: { edit: { readonly: true } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
      if (row.title === 'boom-add') throw new FwError('CONFLICT', 'beforeAdd refused boom-add');
    },
    afterUpdate: (row) => {
      if (row.title === 'boom') throw new FwError('CONFLICT', 'afterUpdate refused boom');
    },
  },
});
const ImportableMenu = { ...FwMenuModel, power: { ...FwMenuModel.power, importable: true } };
const ImportableUser = { ...FwUserModel, power: { ...FwUserModel.power, importable: true } };

type Res = { status: number; body: { error?: { code: string; details?: Array<{ path?: string }> } } & Record<string, unknown> };

describeEachSql('import modes red team', (db) => {
  let f: DataFixture;
  let admin: string;
  let mgr: FwUser;
  let mgrToken: string;
  let noAdd: string;
  let noAddId: number;
  const menu: Record<string, number> = {};

  before(async () => {
    f = await setupData(db().url, {
      registry: createRegistry([...BUILTIN_MODELS.filter((m) => m.name !== 'FwMenu' && m.name !== 'FwUser'), ImportableMenu, ImportableUser, Tag, Book, Note, Ledger, Plan, Frozen, RtItem]),
    });
    await f.store.createModelTables([RtItem]);
    for (const model of [ImportableMenu, ImportableUser, RtItem]) await f.store.menus.createModelMenu(model);
    admin = await f.token('admin');
    const rows: Array<{ id: unknown; code: string }> = await f.store.knex('fw_menu').whereNotNull('code').select('id', 'code');
    for (const r of rows) menu[r.code] = Number(r.id);
    const stamp = Date.now().toString(36);
    // mgr manages users and menus and holds RtItem and Book: everything but administrators' powers.
    const held = Object.keys(menu).filter((code) => /^(FwMenu|FwUser|RtItem|Book)(@|$)/.test(code));
    const role = (await f.store.roles.create({ code: `rt-mgr-${stamp}`, name: 'Manager' })).id;
    await f.store.roles.setMenus(role, held.map((code) => menu[code]!));
    const row = await f.store.users.create({ account: `rt-mgr-${stamp}`, name: 'Mgr', password: 'x-password-1', mustChangePassword: false });
    mgr = { id: row.id, account: row.account, name: 'Mgr', isAdmin: false };
    await f.store.users.setRoles(mgr.id, [role]);
    // noAdd may query, edit and import RtItem, not add.
    const noAddRole = (await f.store.roles.create({ code: `rt-noadd-${stamp}`, name: 'No add' })).id;
    await f.store.roles.setMenus(noAddRole, ['RtItem', 'RtItem@EDIT', 'RtItem@IMPORTABLE'].map((c) => menu[c]!));
    const noAddRow = await f.store.users.create({ account: `rt-noadd-${stamp}`, name: 'NoAdd', password: 'x-password-1', mustChangePassword: false });
    await f.store.users.setRoles(noAddRow.id, [noAddRole]);
    noAddId = noAddRow.id;
    await f.store.grants.bump();
    mgrToken = (await f.tokens.loginToken(mgr)).token;
    noAdd = (await f.tokens.loginToken({ id: noAddRow.id, account: noAddRow.account, name: 'NoAdd', isAdmin: false })).token;
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    await f.store.knex('rt_item').delete();
  });

  const csv = (token: string, fw: string, text: string, query = '') => f.agent.post(`${api}/data/import/${fw}${query}`).set('token', token).set('Content-Type', 'text/csv').send(text) as unknown as Promise<Res>;
  const items = async () => (await f.store.knex('rt_item').select('id', 'title', 'owner_id', 'stamp').orderBy('id')).map((r) => ({ ...r, id: Number(r.id), owner_id: r.owner_id === null ? null : Number(r.owner_id) }));
  const addItem = async (token: string, title: string) => (await f.agent.post(`${api}/data/modify/RtItem`).set('token', token).send({ title }).expect(200)).body.id as number;

  it('refuses every mode but add, update and upsert with 400, writing nothing', async () => {
    const id = await addItem(mgrToken, 'A');
    for (const q of ['?mode=UPDATE', '?mode=Update', '?mode=update,add', '?mode=update&mode=add', '?mode=update&mode=update', '?mode=%20update', '?mode=update%00', '?mode=insert', '?mode=delete', '?mode=__proto__', '?mode=constructor', "?mode=update'%20OR%201=1--"]) {
      const res = await csv(mgrToken, 'RtItem', `id,title\n${id},changed\n,new\n`, q);
      expect(res.status, q).to.equal(400);
      expect(res.body.error?.code, q).to.equal('BAD_REQUEST');
    }
    // `mode[]=` is no `mode` parameter: the default (add) — the id column is then ignored, nothing is updated.
    const res = await csv(mgrToken, 'RtItem', `id,title\n${id},changed\n`, '?mode[]=update');
    expect(res.status).to.be.oneOf([200, 400]);
    expect((await items()).find((r) => r.id === id)!.title).to.equal('A');
  });

  it('reads junk, formulas and out-of-range ids as errors, never as another row, and writes nothing', async () => {
    const id = await addItem(mgrToken, 'A');
    const junk = ['=1+1', `=${id}`, `+${id}`, `-${id}`, '0x1', '1e0', `${id}.0`, `${id}.5`, '０', '9007199254740993', '99999999999999999999', `'${id}`, `${id} OR 1=1`, '__proto__', 'NaN', 'Infinity', '-0', '0'];
    for (const key of junk) {
      for (const mode of ['update', 'upsert']) {
        const res = await csv(mgrToken, 'RtItem', `id,title\n"${key}",changed\n`, `?mode=${mode}`);
        expect(res.status, `${mode} ${key}`).to.equal(422);
        expect(res.body.error?.code).to.equal('IMPORT_FAILED');
        expect((res.body.error?.details ?? []).map((d) => d.path), key).to.include('rows[1].id');
      }
    }
    expect(await items()).to.deep.equal([{ id, title: 'A', owner_id: mgr.id, stamp: null }]);
  });

  it("updates no row outside the caller's scope, nor an id that does not exist, in update or upsert", async () => {
    const theirs = await addItem(admin, 'theirs');
    const adminId = f.users.admin.id;
    const mine = await addItem(mgrToken, 'mine');
    for (const mode of ['update', 'upsert']) {
      for (const id of [theirs, 2147483000]) {
        const res = await csv(mgrToken, 'RtItem', `id,title\n${mine},mine changed\n${id},taken\n`, `?mode=${mode}`);
        expect(res.status, `${mode} ${id}`).to.equal(422);
        const detail = (res.body.error?.details ?? []).find((d) => d.path === 'rows[2].id') as { type?: string; message?: string } | undefined;
        expect(detail?.type, `${mode} ${id}`).to.equal('notFound');
        // Another user's row and a missing one read alike.
        expect(detail?.message).to.contain(`no RtItem with id ${id} that you may edit`);
      }
    }
    expect(await items()).to.deep.equal([
      { id: theirs, title: 'theirs', owner_id: adminId, stamp: null },
      { id: mine, title: 'mine', owner_id: mgr.id, stamp: null },
    ]);
  });

  it('skips read-only columns in an update import: no owner moved, no stamp written', async () => {
    const mine = await addItem(mgrToken, 'mine');
    const res = await csv(mgrToken, 'RtItem', `id,title,ownerId,stamp\n${mine},renamed,${f.users.admin.id},forged\n`, '?mode=update');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await items()).to.deep.equal([{ id: mine, title: 'renamed', owner_id: mgr.id, stamp: null }]);
  });

  it('refuses an upsert whose added rows need add when the caller lacks it, writing none of the updates', async () => {
    await addItem(mgrToken, 'A');
    // noAdd edits only its own rows; its row is stored directly (it may not add).
    await f.store.knex('rt_item').insert({ title: 'own', owner_id: noAddId });
    const own = (await items()).find((r) => r.title === 'own')!.id;
    const res = await csv(noAdd, 'RtItem', `id,title\n${own},x\n,new row\n`, '?mode=upsert');
    expect(res.status).to.equal(403);
    expect(res.body.error?.code).to.equal('POWER_DENIED');
    expect((await items()).map((r) => r.title).sort()).to.deep.equal(['A', 'own']);
    // The refusal was the added row's: the update alone imports.
    const alone = await csv(noAdd, 'RtItem', `id,title\n${own},own changed\n`, '?mode=upsert');
    expect(alone.status, JSON.stringify(alone.body)).to.equal(200);
    expect((await items()).map((r) => r.title).sort()).to.deep.equal(['A', 'own changed']);
  });

  it('is all or nothing: a row refused by a hook inside the transaction leaves no earlier row written', async () => {
    const a = await addItem(mgrToken, 'A');
    const b = await addItem(mgrToken, 'B');
    const before = await items();
    for (const [mode, text] of [
      ['update', `id,title\n${a},A changed\n${b},boom\n`],
      ['upsert', `id,title\n${a},A changed\n,new one\n${b},boom\n`],
      ['upsert', `id,title\n${a},A changed\n,boom-add\n`],
      ['add', `title\nfirst\nboom-add\n`],
    ] as const) {
      const res = await csv(mgrToken, 'RtItem', text, `?mode=${mode}`);
      expect(res.status, `${mode} ${JSON.stringify(res.body)}`).to.equal(409);
      expect(await items(), mode).to.deep.equal(before);
    }
  });

  it('a non-administrator retargets no menu through an update or upsert import (GRANT_DENIED), and nothing is written', async () => {
    const book = menu['Book']!;
    const row = async () => f.store.knex('fw_menu').where('id', book).first();
    const before = await row();
    for (const mode of ['update', 'upsert']) {
      for (const text of [`id,type,value\n${book},page,/auth.html?token=${mgrToken}\n`, `id,value\n${book},FwUser\n`, `id,type\n${book},tree\n`, `id,name,value\n${book},Books,\n`, `id,Type,Value\n${book},link,https://elsewhere.example/\n`]) {
        const res = await csv(mgrToken, 'FwMenu', text, `?mode=${mode}`);
        expect(res.status, `${mode} ${text} ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.error?.code).to.equal('GRANT_DENIED');
      }
    }
    expect(await row()).to.deep.equal(before);
    // The same type and value are no change: a rename imports.
    const renamed = await csv(mgrToken, 'FwMenu', `id,name,type,value\n${book},Books renamed,table,Book\n`, '?mode=update');
    expect(renamed.status, JSON.stringify(renamed.body)).to.equal(200);
    expect((await row()).name).to.equal('Books renamed');
    await f.store.knex('fw_menu').where('id', book).update({ name: before.name });
  });

  it('a non-administrator changes no administrator through an update import: password, name, flag', async () => {
    const adminRow = async () => f.store.knex('fw_user').where('id', f.users.admin.id).first();
    const before = await adminRow();
    for (const text of [`id,password\n${f.users.admin.id},taken-over-password-1\n`, `id,name\n${f.users.admin.id},pwned\n`, `id,isAdmin\n${f.users.carol.id},true\n`, `id,account\n${f.users.admin.id},admin2\n`]) {
      for (const mode of ['update', 'upsert']) {
        const res = await csv(mgrToken, 'FwUser', text, `?mode=${mode}`);
        expect(res.status, `${mode} ${text} ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.error?.code).to.equal('GRANT_DENIED');
      }
    }
    expect(await adminRow()).to.deep.equal(before);
    expect(Boolean(Number((await f.store.knex('fw_user').where('id', f.users.carol.id).first()).is_admin))).to.equal(false);
  });

  it('a password set by an update import is hashed (never stored as sent) and ends the user’s other sessions', async () => {
    const carolToken = await f.token('carol');
    expect((await f.agent.get(`${api}/build/Book`).set('token', carolToken)).status).to.be.oneOf([200, 403]);
    const literal = 'scrypt$AAAA$BBBB-password-9';
    const res = await csv(mgrToken, 'FwUser', `id,password\n${f.users.carol.id},${literal}\n`, '?mode=update');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const stored = await f.store.knex('fw_user').where('id', f.users.carol.id).first();
    expect(stored.password_hash).to.not.equal(literal);
    expect(String(stored.password_hash)).to.not.contain('BBBB-password');
    expect((await f.agent.get(`${api}/build/Book`).set('token', carolToken)).status).to.equal(401);
  });

  it('an empty password cell in an update import keeps the stored password (an export imports back)', async () => {
    const before = await f.store.knex('fw_user').where('id', f.users.carol.id).first();
    for (const text of [`id,name,password\n${f.users.carol.id},Carol C,\n`, `id,name,password\n${f.users.carol.id},Carol D,"   "\n`]) {
      const res = await csv(mgrToken, 'FwUser', text, '?mode=update');
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 422]);
      const after = await f.store.knex('fw_user').where('id', f.users.carol.id).first();
      expect(after.password_hash, text).to.equal(before.password_hash);
      expect(after.password_salt, text).to.equal(before.password_salt);
    }
  });

  it('refuses an import to a token whose user must change the password (403) and to no token (401), writing nothing', async () => {
    const row = await f.store.users.create({ account: `rt-must-${Date.now()}`, name: 'Must', password: 'x-password-1', mustChangePassword: true, isAdmin: true });
    const must = (await f.tokens.loginToken({ id: row.id, account: row.account, name: 'Must', isAdmin: true })).token;
    for (const mode of ['add', 'update', 'upsert']) {
      const res = await csv(must, 'RtItem', 'title\nsneaked\n', `?mode=${mode}`);
      expect(res.status, mode).to.equal(403);
      expect(res.body.error?.code).to.equal('PASSWORD_CHANGE_REQUIRED');
      const anon = (await f.agent.post(`${api}/data/import/RtItem?mode=${mode}`).set('Content-Type', 'text/csv').send('title\nsneaked\n')) as unknown as Res;
      expect(anon.status, mode).to.equal(401);
    }
    expect(await items()).to.deep.equal([]);
  });
});
