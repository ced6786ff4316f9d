import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { defineModel, type FieldDefinitionInput } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { ModelTablesError } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwStartError, fwAdmin } from './fw-admin.js';

/** The Note model as a host defines it in one release or the next: same name, same table. */
function noteModel(fields: Record<string, FieldDefinitionInput>) {
  return defineModel({ name: 'Note', table: 'adm_mc_note', fields });
}

const V1 = noteModel({ title: { edit: { notNull: true } } });

async function start(url: string, models: ReturnType<typeof noteModel>[]) {
  const app = new Koa();
  app.silent = true;
  const fw = await fwAdmin(app, { db: url, models, ui: false });
  app.use(fw.middleware);
  if (!(await fw.store.users.findByAccount('admin'))) await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  const agent = request(app.callback());
  const token = (
    await agent
      .post('/fw-api/login')
      .send({ account: 'admin', pwd: encodePassword('admin-pass-1') })
      .expect(200)
  ).body.token as string;
  return { fw, agent, token };
}

/** The FwStartError a start rejects with; fails the test when the start succeeds. */
async function startError(url: string, models: ReturnType<typeof noteModel>[]): Promise<FwStartError> {
  const app = new Koa();
  try {
    const fw = await fwAdmin(app, { db: url, models, ui: false });
    await fw.close();
  } catch (error) {
    if (error instanceof FwStartError) return error;
    throw error;
  }
  throw new Error('expected fwAdmin to refuse to start, it started');
}

describeEachSql('fwAdmin start-up after a model change', (db) => {
  it("adds a new field's column on restart, and the routes read and write it", async function () {
    const first = await start(db().url, [V1]);
    try {
      await first.agent.post('/fw-api/data/modify/Note').set('token', first.token).send({ title: 'before' }).expect(200);
    } finally {
      await first.fw.close();
    }
    const V2 = noteModel({ title: { edit: { notNull: true } }, pages: { edit: { type: 'NUMBER', integer: true } }, draft: { edit: { type: 'BOOLEAN', defaultValue: true } } });
    const second = await start(db().url, [V2]);
    try {
      await second.agent.post('/fw-api/data/modify/Note').set('token', second.token).send({ title: 'after', pages: 12, draft: false }).expect(200);
      const rows = (await second.agent.post('/fw-api/data/table/Note').set('token', second.token).send({}).expect(200)).body.rows as Array<Record<string, unknown>>;
      const byTitle = new Map(rows.map((r) => [r.title, r]));
      expect(byTitle.get('after')).to.include({ pages: 12, draft: false });
      // The row from before the change: no pages, and the new field's default.
      expect(byTitle.get('before')).to.include({ pages: null, draft: true });
    } finally {
      await second.fw.close();
    }
  });

  it('refuses to start on a change it cannot apply safely, listing each difference and its SQL, and changes nothing', async function () {
    const V3 = noteModel({
      title: { edit: { type: 'DATE' } },
      summary: { edit: { notNull: true } },
      later: { edit: { type: 'TEXTAREA' } },
    });
    const error = await startError(db().url, [V3]);
    expect(error.message).to.match(/^fwAdmin: cannot start on database .*: The database differs from the model definitions in 4 ways/);
    expect(error.cause).to.be.instanceOf(ModelTablesError);
    const differences = (error.cause as ModelTablesError).differences;
    expect(differences.map((d) => [d.kind, d.column])).to.deep.equal([
      ['typeChanged', 'title'],
      ['notNullWithoutDefault', 'summary'],
      ['droppedField', 'pages'],
      ['droppedField', 'draft'],
    ]);
    for (const d of differences) expect(error.message).to.contain(d.message).and.contain(d.sql.split('\n')[0]);
    // Nothing half-applied: the safe new column `later` was not added.
    const check = await start(db().url, [
      noteModel({ title: { edit: { notNull: true } }, pages: { edit: { type: 'NUMBER', integer: true } }, draft: { edit: { type: 'BOOLEAN' } } }),
    ]);
    try {
      expect(Object.keys(await check.fw.store.knex('adm_mc_note').columnInfo()).sort()).to.deep.equal(['draft', 'id', 'pages', 'title']);
    } finally {
      await check.fw.close();
    }
  });
});
