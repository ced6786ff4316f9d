import { expect } from 'chai';
import { encodePassword } from './client.js';
import { setup, type LoginFixture } from './test-setup.js';

// Red-team probes of GET /menu's folders (issue 20 §6): a non-administrator sees the folders that
// hold their granted menus and nothing else — no sibling entries, no folder reached through a
// menu that is no folder, no disabled folder, no locked role's menus — and a cycle cannot hang it.
async function menuOf(f: LoginFixture, account: string): Promise<Array<{ id: number; code: string | null; name: string; type: string; parentId: number | null }>> {
  const login = await f.agent
    .post('/fw-api/login')
    .send({ account, pwd: encodePassword(`${account}-pass`) })
    .expect(200);
  return (await f.agent.get('/fw-api/menu').set('token', login.body.token).expect(200)).body;
}

describe('GET /fw-api/menu folders red team', () => {
  let f: LoginFixture;
  beforeEach(async () => {
    f = await setup();
  });
  afterEach(() => f.cleanup());

  it('adds only the dir ancestors of granted menus: no siblings, no parent table or page, nothing above them', async () => {
    const top = await f.store.menus.create({ code: 'top', name: 'Top', type: 'dir' });
    const page = await f.store.menus.create({ code: 'Report', name: 'Report', type: 'page', value: '/report', parentId: top.id });
    const table = await f.store.menus.create({ code: 'Book', name: 'Books', type: 'table', value: 'Book', parentId: top.id });
    const add = await f.store.menus.create({ code: 'Book@ADD', name: 'Add', type: 'function', parentId: table.id });
    const under = await f.store.menus.create({ code: 'Under', name: 'Under', type: 'table', value: 'Under', parentId: page.id });
    await f.store.menus.create({ code: 'Sibling', name: 'Sibling', type: 'table', value: 'Sibling', parentId: top.id });
    await f.store.menus.create({ code: 'Inner', name: 'Inner', type: 'dir', parentId: top.id });
    const role = await f.store.roles.create({ code: 'clerk', name: 'Clerk' });
    await f.store.roles.setMenus(role.id, [add.id, under.id]);
    await f.store.users.setRoles(f.alice.id, [role.id]);
    const codes = (await menuOf(f, 'alice')).map((m) => m.code);
    // Book@ADD's parent is a table and Under's a page: neither is a folder, so neither is added,
    // nor the folder above them.
    expect(codes.sort()).to.deep.equal(['Book@ADD', 'Under']);
  });

  it('shows nothing of a locked role, and survives a cycle of folders', async () => {
    const a = await f.store.menus.create({ code: 'a', name: 'A', type: 'dir' });
    const b = await f.store.menus.create({ code: 'b', name: 'B', type: 'dir', parentId: a.id });
    await f.store.knex('fw_menu').where('id', a.id).update({ parent_id: b.id });
    const leaf = await f.store.menus.create({ code: 'Leaf', name: 'Leaf', type: 'table', value: 'Leaf', parentId: b.id });
    const hidden = await f.store.menus.create({ code: 'Hidden', name: 'Hidden', type: 'table', value: 'Hidden', parentId: a.id });
    const role = await f.store.roles.create({ code: 'clerk', name: 'Clerk' });
    await f.store.roles.setMenus(role.id, [leaf.id]);
    const locked = await f.store.roles.create({ code: 'locked', name: 'Locked', status: 'locked' });
    await f.store.roles.setMenus(locked.id, [hidden.id]);
    await f.store.users.setRoles(f.alice.id, [role.id, locked.id]);
    const codes = (await menuOf(f, 'alice')).map((m) => m.code);
    expect(codes.sort()).to.deep.equal(['Leaf', 'a', 'b']);
    expect(hidden.id).to.be.a('number');
  });
});
