import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { createStore, type FwStore } from './index.js';

describeEachSql('store.grants', (db) => {
  let store: FwStore;
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(() => store?.destroy());

  async function bumped(change: () => Promise<unknown>): Promise<number> {
    const before = await store.grants.version();
    await change();
    return (await store.grants.version()) - before;
  }

  it('bumps the version on every write that changes grants, and not on others', async () => {
    const user = await store.users.create({ account: `g-${Date.now()}`, password: 'x-password', mustChangePassword: false });
    const role = await store.roles.create({ code: `r-${Date.now()}`, name: 'R' });
    const menu = await store.menus.create({ code: `M${Date.now()}`, name: 'M', type: 'table', value: 'M' });
    expect(await bumped(() => store.roles.setMenus(role.id, [menu.id]))).to.equal(1);
    expect(await bumped(() => store.users.setRoles(user.id, [role.id]))).to.equal(1);
    expect(await bumped(() => store.roles.update(role.id, { status: 'locked' }))).to.equal(1);
    expect(await bumped(() => store.menus.update(menu.id, { status: 'disabled' }))).to.equal(1);
    expect(await bumped(() => store.menus.delete(menu.id))).to.equal(1);
    expect(await bumped(() => store.roles.delete(role.id))).to.equal(1);
    expect(await bumped(() => store.users.update(user.id, { name: 'renamed' }))).to.equal(0);
    expect(await bumped(() => store.roles.update(987654, { name: 'nobody' }))).to.equal(0);
  });

  it('lists the codes granted through normal roles, without disabled menus', async () => {
    const stamp = Date.now();
    const user = await store.users.create({ account: `c-${stamp}`, password: 'x-password', mustChangePassword: false });
    const open = await store.menus.create({ code: `Book${stamp}`, name: 'Books', type: 'table', value: 'Book' });
    const fn = await store.menus.create({ code: `Book${stamp}@EDIT`, name: 'Edit', type: 'function', parentId: open.id, status: 'hidden' });
    const off = await store.menus.create({ code: `Off${stamp}`, name: 'Off', type: 'table', value: 'Off', status: 'disabled' });
    const other = await store.menus.create({ code: `Other${stamp}`, name: 'Other', type: 'table', value: 'Other' });
    const normal = await store.roles.create({ code: `normal-${stamp}`, name: 'N' });
    const locked = await store.roles.create({ code: `locked-${stamp}`, name: 'L', status: 'locked' });
    await store.roles.setMenus(normal.id, [open.id, fn.id, off.id]);
    await store.roles.setMenus(locked.id, [other.id]);
    await store.users.setRoles(user.id, [normal.id, locked.id]);
    expect([...(await store.grants.codesForUser(user.id))].sort()).to.deep.equal([`Book${stamp}`, `Book${stamp}@EDIT`]);
    expect(await store.grants.codesForUser(-1)).to.have.property('size', 0);
  });

  it('counts concurrent bumps from two instances exactly', async () => {
    const other = createStore(db().url);
    try {
      const before = await store.grants.version();
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).grants.bump()));
      expect((await other.grants.version()) - before).to.equal(20);
    } finally {
      await other.destroy();
    }
  });
});
