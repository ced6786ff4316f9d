import { expect } from 'chai';
import { encodePassword } from './client.js';
import { setup, type LoginFixture } from './test-setup.js';

async function menuOf(f: LoginFixture, account: string): Promise<Array<{ code: string; parentId: number | null; type: string }>> {
  const login = await f.agent
    .post('/fw-api/login')
    .send({ account, pwd: encodePassword(`${account}-pass`) })
    .expect(200);
  return (await f.agent.get('/fw-api/menu').set('token', login.body.token).expect(200)).body;
}

describe('GET /fw-api/menu: the folders of granted menus (issue 20 §6)', () => {
  let f: LoginFixture;
  beforeEach(async () => {
    f = await setup();
  });
  afterEach(() => f.cleanup());

  it('adds the folders holding what a role grants, outermost too, and no empty folder', async () => {
    const top = await f.store.menus.create({ code: 'top', name: 'Top', type: 'dir', sort: 1 });
    const system = await f.store.menus.create({ code: 'system', name: 'System', type: 'dir', parentId: top.id });
    const users = await f.store.menus.create({ code: 'FwUser', name: 'Users', type: 'table', value: 'FwUser', parentId: system.id });
    await f.store.menus.create({ code: 'empty', name: 'Empty', type: 'dir' });
    const other = await f.store.menus.create({ code: 'Secret', name: 'Secret', type: 'table', value: 'Secret', parentId: system.id });
    const book = await f.store.menus.create({ code: 'Book', name: 'Books', type: 'table', value: 'Book' });
    const role = await f.store.roles.create({ code: 'clerk', name: 'Clerk' });
    await f.store.roles.setMenus(role.id, [users.id, book.id]);
    await f.store.users.setRoles(f.alice.id, [role.id]);

    const menus = await menuOf(f, 'alice');
    // The server's order (sort, then id): the UI nests them.
    expect(menus.map((m) => m.code)).to.deep.equal(['system', 'FwUser', 'Book', 'top']);
    expect(menus.find((m) => m.code === 'FwUser')?.parentId).to.equal(system.id);
    expect(menus.map((m) => m.code)).to.not.include.members(['Secret', 'empty']);
    expect(other.id).to.be.a('number');
  });

  it('leaves a disabled folder and a parent that is no folder out', async () => {
    const off = await f.store.menus.create({ code: 'off', name: 'Off', type: 'dir', status: 'disabled' });
    const inside = await f.store.menus.create({ code: 'Inside', name: 'Inside', type: 'table', value: 'Inside', parentId: off.id });
    const table = await f.store.menus.create({ code: 'Parent', name: 'Parent', type: 'table', value: 'Parent' });
    const fn = await f.store.menus.create({ code: 'Parent@ADD', name: 'Add', type: 'function', parentId: table.id });
    const role = await f.store.roles.create({ code: 'clerk', name: 'Clerk' });
    await f.store.roles.setMenus(role.id, [inside.id, fn.id]);
    await f.store.users.setRoles(f.alice.id, [role.id]);
    expect((await menuOf(f, 'alice')).map((m) => m.code)).to.deep.equal(['Inside', 'Parent@ADD']);
  });
});
