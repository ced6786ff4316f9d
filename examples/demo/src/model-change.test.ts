import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { fwAdmin } from '@fw/admin';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { describeEachSql } from '@fw/test-utils';
import { createDemoApp } from './app.js';
import { demoModels } from './models.js';

/**
 * The demo's Book as a host would edit `models.ts` for its next release: the same definition
 * (copied) with two new fields, one of them required with a default.
 */
const BookWithEdition = defineModel({
  name: 'Book',
  title: 'Books',
  table: 'demo_book',
  power: { export: true, importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 200 }] },
    isbn: {
      views: { title: 'ISBN' },
      edit: { cellEdit: false },
      rules: [{ type: 'pattern', pattern: '^(97[89])?\\d{9}[\\dX]$', message: 'ISBN must be 10 or 13 digits' }],
    },
    genre: {
      views: { title: 'Genre' },
      edit: {
        type: 'CHOICE',
        choices: [
          { value: 'novel', label: 'Novel' },
          { value: 'essay', label: 'Essay' },
          { value: 'poetry', label: 'Poetry' },
        ],
      },
    },
    price: { views: { title: 'Price' }, edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    published: { views: { title: 'Published' }, edit: { type: 'DATE' } },
    inPrint: { views: { title: 'In print' }, edit: { type: 'BOOLEAN', defaultValue: true } },
    edition: { views: { title: 'Edition' }, edit: { type: 'NUMBER', integer: true } },
    format: {
      views: { title: 'Format' },
      edit: {
        type: 'CHOICE',
        notNull: true,
        defaultValue: 'paper',
        choices: [
          { value: 'paper', label: 'Paper' },
          { value: 'ebook', label: 'E-book' },
        ],
      },
    },
  },
});

describeEachSql('examples/demo: a field added to a demo model', (db) => {
  it('restarts with no manual SQL: the columns are added and the data routes use them', async function () {
    // The copy stays a copy: the demo's own fields, then the two new ones.
    const demoBook = demoModels.find((m) => m.name === 'Book')!;
    expect(BookWithEdition.fieldNames).to.deep.equal([...demoBook.fieldNames.filter((n) => n !== demoBook.primaryKey), 'edition', 'format', demoBook.primaryKey]);
    const demo = await createDemoApp({ dbUrl: db().url, adminPassword: 'demo-pass-1', ui: false });
    // The administrator has chosen a password already (a first one reaches only its change).
    await demo.store.users.setPassword((await demo.store.users.findByAccount('admin'))!.id, 'demo-pass-1');
    const login = async (agent: ReturnType<typeof request>) =>
      (
        await agent
          .post('/fw-api/login')
          .send({ account: 'admin', pwd: encodePassword('demo-pass-1') })
          .expect(200)
      ).body.token as string;
    try {
      const agent = request(demo.app.callback());
      await agent
        .post('/fw-api/data/modify/Book')
        .set('token', await login(agent))
        .send({ title: 'Dune', genre: 'novel' })
        .expect(200);
    } finally {
      await demo.close();
    }

    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, { db: db().url, models: demoModels.map((m) => (m.name === 'Book' ? BookWithEdition : m)), ui: false });
    app.use(fw.middleware);
    try {
      const agent = request(app.callback());
      const token = await login(agent);
      await agent.post('/fw-api/data/modify/Book').set('token', token).send({ title: 'Emma', edition: 2, format: 'ebook' }).expect(200);
      const rows = (await agent.post('/fw-api/data/table/Book').set('token', token).send({}).expect(200)).body.rows as Array<Record<string, unknown>>;
      const byTitle = new Map(rows.map((r) => [r.title, r]));
      expect(byTitle.get('Emma')).to.include({ edition: 2, format: 'ebook' });
      expect(byTitle.get('Dune')).to.include({ genre: 'novel', edition: null, format: 'paper' });
    } finally {
      await fw.close();
    }
  });
});
