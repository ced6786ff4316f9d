import { expect } from 'chai';
import Koa from 'koa';
import { FwDefinitionError, defineModel } from '@fw/core';
import { createTestDatabase } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

const Book = defineModel({ name: 'Book', table: 'dm_book', fields: { title: {} } });
const Shelf = defineModel({ name: 'Shelf', table: 'dm_shelf', fields: { name: {} } });

describe('fwAdmin: the menus it creates (issue 20 §6)', () => {
  it('puts host models on top with the icons named, and built-ins in System, AI and Logs folders with their own', async function () {
    this.timeout(30_000);
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    let fw = await fwAdmin(app, { db: db.url, models: [Book, Shelf], menuIcons: { Book: 'BookOutlined' }, ui: false });
    try {
      const menus = (await fw.store.menus.allMenus()).filter((m) => m.type !== 'function');
      const byCode = new Map(menus.map((m) => [m.code, m]));
      expect(menus.filter((m) => m.parentId === null).map((m) => m.code)).to.deep.equal(['Book', 'Shelf', 'fw-folder:system', 'fw-folder:ai', 'fw-folder:logs']);
      expect(byCode.get('Book')).to.include({ icon: 'BookOutlined', type: 'table' });
      expect(byCode.get('Shelf')?.icon).to.equal(null);
      const system = byCode.get('fw-folder:system')!;
      expect(system).to.include({ type: 'dir', name: 'System', icon: 'setting' });
      expect(menus.filter((m) => m.parentId === system.id).map((m) => m.code)).to.deep.equal(['FwUser', 'FwRole', 'FwOrg', 'FwMenu', 'FwOpenApi']);
      const logs = byCode.get('fw-folder:logs')!;
      expect(menus.filter((m) => m.parentId === logs.id).map((m) => [m.code, m.icon])).to.deep.equal([
        ['FwLoginLog', 'login'],
        ['FwOperateLog', 'history'],
      ]);
      // A second start creates nothing new and keeps what someone changed.
      await fw.store.menus.update(byCode.get('Book')!.id, { icon: 'star', parentId: null });
      await fw.close();
      fw = await fwAdmin(new Koa(), { db: db.url, models: [Book, Shelf], ui: false });
      const again = (await fw.store.menus.allMenus()).filter((m) => m.type !== 'function');
      expect(again.map((m) => m.id)).to.deep.equal(menus.map((m) => m.id));
      expect(again.find((m) => m.code === 'Book')?.icon).to.equal('star');
    } finally {
      await fw.close();
      await db.drop();
    }
  });

  it('refuses a menuIcons option that is not names of icons', async () => {
    for (const menuIcons of [[], 'book', { Book: 3 }, { Book: '' }, { Book: 'x'.repeat(65) }]) {
      const error = await fwAdmin(new Koa(), { db: 'sqlite::memory:', menuIcons: menuIcons as never, ui: false }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(menuIcons)).to.be.instanceOf(FwDefinitionError);
    }
  });
});
