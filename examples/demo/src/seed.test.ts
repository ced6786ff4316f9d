import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { templateExample } from '@fw/data';
import { encodePassword } from '@fw/login/client';
import { createDemoApp } from './app.js';
import { Book } from './models.js';
import { isbn13, seedDemo, seedWanted } from './seed.js';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'fw-demo-seed-'));
  return { dbUrl: `sqlite:${join(dir, 'demo.db')}`, filesDir: join(dir, 'files'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const count = async (knex: (table: string) => { count(c: Record<string, string>): Promise<Array<{ n: number | string }>> }, table: string) =>
  Number((await knex(table).count({ n: '*' }))[0]!.n);

describe('examples/demo sample data (FW_DEMO_SEED)', () => {
  it('reads FW_DEMO_SEED: on unless 0, false, no or off', () => {
    expect([undefined, '', '1', 'yes', 'true'].map(seedWanted)).to.deep.equal([true, true, true, true, true]);
    expect(['0', 'false', 'NO', ' off '].map(seedWanted)).to.deep.equal([false, false, false, false]);
  });

  it('writes valid ISBN-13s', () => {
    for (const n of [1, 2, 300, 123_456]) {
      const isbn = isbn13(n);
      expect(isbn).to.match(/^978\d{10}$/);
      const sum = [...isbn].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
      expect(sum % 10, isbn).to.equal(0);
    }
  });

  it('seeds an empty demo once: books, authors with books, a category tree, tasks for two users; a second start writes nothing', async function () {
    this.timeout(60_000);
    const { dbUrl, filesDir, cleanup } = setup();
    const started = performance.now();
    const demo = await createDemoApp({ dbUrl, filesDir, adminPassword: 'demo-pass-1', seed: true });
    const took = performance.now() - started;
    try {
      expect(demo.seeded?.seeded).to.equal(true);
      const knex = demo.store.knex;
      expect(await count(knex, 'demo_book')).to.equal(300);
      expect(await count(knex, 'demo_author')).to.equal(60);
      expect(await count(knex, 'demo_author_book')).to.equal(300);
      expect(await count(knex, 'demo_category')).to.be.above(10);
      expect(await count(knex, 'demo_project')).to.be.above(0);
      expect(await count(knex, 'demo_contract')).to.be.above(0);
      expect(await count(knex, 'demo_salary')).to.be.above(0);
      // A tree: children under parents.
      expect(Number((await knex('demo_category').whereNotNull('parent_id').count({ n: '*' }))[0]!.n)).to.be.above(5);
      // Tasks for two users.
      const owners = await knex('demo_task').distinct('ownerId');
      expect(owners).to.have.length(2);
      // Every book passes the model's own ISBN rule and looks real.
      const pattern = new RegExp((Book.fields.isbn!.rules![0] as { pattern: string }).pattern);
      const books = await knex('demo_book').select('title', 'isbn', 'price', 'published');
      for (const b of books) {
        expect(b.isbn, b.title).to.match(pattern);
        expect(Number(b.price)).to.be.within(1, 100);
        expect(String(b.published)).to.match(/^(19[5-9]\d|20[0-2]\d)-\d\d-\d\d$/);
      }
      expect(books.map((b) => b.title)).to.include('Pride and Prejudice');
      expect(took, 'first start with seed, ms').to.be.below(30_000);
      // Idempotent: the demo holds data now.
      const admin = await demo.store.users.findByAccount('admin');
      expect((await seedDemo(demo.store, admin!.id)).seeded).to.equal(false);
      expect(await count(knex, 'demo_book')).to.equal(300);
    } finally {
      await demo.close();
    }
    // A second start on the same database writes nothing either.
    const again = await createDemoApp({ dbUrl, filesDir, seed: true });
    try {
      expect(again.seeded?.seeded).to.equal(false);
      expect(await count(again.store.knex, 'demo_book')).to.equal(300);
      expect(await count(again.store.knex, 'demo_task')).to.equal(16);
    } finally {
      await again.close();
      cleanup();
    }
  });

  it('writes nothing unless asked (the tests and FW_DEMO_SEED=0)', async () => {
    const { dbUrl, filesDir, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, filesDir, adminPassword: 'demo-pass-1', seed: seedWanted('0') });
    try {
      expect(demo.seeded).to.equal(undefined);
      expect(await count(demo.store.knex, 'demo_book')).to.equal(0);
      expect(await count(demo.store.knex, 'demo_task')).to.equal(0);
    } finally {
      await demo.close();
      cleanup();
    }
  });
});

describe('examples/demo import templates', () => {
  it('gives every demo and built-in model an example row its own rules accept, and the Book template imports as it stands', async function () {
    this.timeout(30_000);
    const { dbUrl, filesDir, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, filesDir, adminPassword: 'demo-pass-1' });
    try {
      for (const model of demo.registry.list()) {
        const { row, emptied } = await templateExample(model, demo.store.dialect);
        expect(emptied, model.name).to.deep.equal([]);
        if (model.name === 'Book') expect(row.isbn).to.match(/^(97[89])?\d{9}[\dX]$/);
      }
      const agent = request(demo.app.callback());
      const ops = await demo.store.users.create({ account: 'ops', name: 'Ops', password: 'ops-password-1', isAdmin: true, mustChangePassword: false });
      const login = await agent
        .post('/fw-api/login')
        .send({ account: 'ops', pwd: encodePassword('ops-password-1') })
        .expect(200);
      expect(ops.id).to.be.above(0);
      const token = login.body.token as string;
      await agent.post('/fw-api/data/modify/Category').set('token', token).send({ name: 'Fiction' }).expect(200);
      const template = await agent.get('/fw-api/data/import-template/Book?format=csv').set('token', token).expect(200);
      expect(template.text.replace(/^\ufeff/, '').split('\r\n')[0]).to.equal('Title,ISBN,Genre,Price,Published,In print');
      const imported = await agent.post('/fw-api/data/import/Book').set('token', token).set('Content-Type', 'text/csv').send(template.text).expect(200);
      expect(imported.body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    } finally {
      await demo.close();
      cleanup();
    }
  });
});
