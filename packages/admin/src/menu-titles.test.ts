import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

// Issue 20 §8: a host model's titles per language reach the menu, so the UI names the model's
// menu in the user's language; a menu an administrator renamed keeps the name given.
const Book = defineModel({ name: 'Book', title: { en: 'Books', 'zh-CN': '图书' }, table: 'mt_book', fields: { name: {} } });
const Note = defineModel({ name: 'Note', title: 'Notes', table: 'mt_note', fields: { text: {} } });

describe('GET /fw-api/menu: model titles per language', () => {
  it('gives a model menu the titles of its model while it bears the model title, and only then', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, { db: db.url, models: [Book, Note], ui: false });
    app.use(fw.middleware);
    try {
      await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
      const agent = request(app.callback());
      const token = (
        await agent
          .post('/fw-api/login')
          .send({ account: 'admin', pwd: encodePassword('admin-pass-1') })
          .expect(200)
      ).body.token as string;
      type Entry = { code: string; name: string; titles?: Record<string, string> };
      const menus = async () => (await agent.get('/fw-api/menu').set('token', token).expect(200)).body as Entry[];
      const byCode = (list: Entry[], code: string) => list.find((m) => m.code === code)!;

      let list = await menus();
      expect(byCode(list, 'Book')).to.include({ name: 'Books' });
      expect(byCode(list, 'Book').titles).to.deep.equal({ en: 'Books', 'zh-CN': '图书' });
      // Plain titles, built-in models (the UI's catalogs name those) and function menus: none.
      for (const code of ['Note', 'FwUser', 'Book@ADD']) expect(byCode(list, code), code).to.not.have.property('titles');

      const book = await fw.store.menus.findByCode('Book');
      await fw.store.knex('fw_menu').where({ id: book!.id }).update({ name: 'Library' });
      list = await menus();
      expect(byCode(list, 'Book')).to.include({ name: 'Library' });
      expect(byCode(list, 'Book')).to.not.have.property('titles');
    } finally {
      await fw.close();
      await db.drop();
    }
  });
});
