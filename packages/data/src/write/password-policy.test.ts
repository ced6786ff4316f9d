// Issue 19 §2: the FwUser password goes through the one password policy on every write path of
// the data API (add, edit form, cell edit, copy, import), answered 422 naming the field and the rule.
import { expect } from 'chai';
import { BUILTIN_MODELS, FwUserModel, createRegistry, type ModelDefinition } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { setupData, testRegistry, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

/** FwUser opened to import, which the built-in model is not by default, so the import path can be probed. */
function importableUsers() {
  const users: ModelDefinition = { ...FwUserModel, power: { ...FwUserModel.power, importable: true } };
  return createRegistry([...BUILTIN_MODELS.filter((m) => m.name !== 'FwUser'), users, ...testRegistry().list().filter((m) => !BUILTIN_MODELS.some((b) => b.name === m.name))]);
}

describeEachSql('the password policy on the FwUser write paths of the data API', (db) => {
  let f: DataFixture;
  let admin: string;
  let seq = 0;
  before(async () => {
    f = await setupData(db().url, { registry: importableUsers() });
    admin = await f.token('admin');
  });
  after(() => f?.destroy());

  const account = () => `staff-${Date.now().toString(36)}-${++seq}`;
  const rules = (body: { error: { code: string; details: Array<{ path: string; type: string }> } }) => body.error.details.map((d) => `${d.path}:${d.type}`);
  const stored = async (id: number) => (await f.store.knex('fw_user').where('id', id).first('password_hash')) as { password_hash: string | null };

  it('add: refuses the account as password, a common password and a short one; stores nothing', async () => {
    for (const [password, rule, name] of [
      ['x', 'minLength', account()],
      ['password123', 'notCommon', account()],
      ['qwertyuiop', 'notCommon', account()],
    ] as const) {
      const res = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: name, password }).expect(422);
      expect(res.body.error.code).to.equal('VALIDATION_FAILED');
      expect(rules(res.body)).to.include(`password:${rule}`);
      expect(await f.store.users.findByAccount(name)).to.equal(undefined);
    }
    const name = account();
    const same = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: name, password: name }).expect(422);
    expect(rules(same.body)).to.deep.equal(['password:notAccount']);
    const upper = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: name, password: `${name.toUpperCase()}-2026` }).expect(422);
    expect(rules(upper.body)).to.deep.equal(['password:notAccount']);
    await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: name, password: 'violet-harbour-42' }).expect(200);
    // No password at all stays allowed (a sign-on account).
    await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: account() }).expect(200);
  });

  it('edit form: refuses a weak new password and keeps the stored one; an empty password keeps it too; no cell edit', async () => {
    const name = account();
    const { body: created } = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: name, password: 'violet-harbour-42' }).expect(200);
    const id = created.id as number;
    const before = (await stored(id)).password_hash;
    const form = await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id, account: name, password: 'abc' }).expect(422);
    expect(rules(form.body)).to.include('password:minLength');
    const named = await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id, account: name, password: `my-${name}` }).expect(422);
    expect(rules(named.body)).to.deep.equal(['password:notAccount']);
    // A password is never edited in a cell, weak or not.
    const cell = await f.agent.post(`${api}/data/modify/FwUser/update-cell`).set('token', admin).send({ id, field: 'password', value: 'iloveyou12' }).expect(400);
    expect(cell.body.error.code).to.equal('PASSWORD_FIELD');
    expect((await stored(id)).password_hash).to.equal(before);
    await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id, account: name, name: 'Renamed', password: '' }).expect(200);
    expect((await stored(id)).password_hash).to.equal(before);
    await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id, account: name, password: 'amber-lantern-77' }).expect(200);
    expect((await stored(id)).password_hash).to.not.equal(before);
  });

  it('copy: a password given in the copied values is held to the policy', async () => {
    const { body: created } = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: account(), password: 'violet-harbour-42' }).expect(200);
    const name = account();
    const res = await f.agent.post(`${api}/data/modify/FwUser/copy`).set('token', admin).send({ id: created.id, values: { account: name, password: '12345678' } });
    expect(res.status).to.equal(422);
    expect(rules(res.body)).to.include('password:minLength');
    expect(await f.store.users.findByAccount(name)).to.equal(undefined);
  });

  it('import: a row with a weak password fails the whole import, naming the row, the field and the rule', async () => {
    const [good, weak] = [account(), account()];
    const csv = `account,password\n${good},violet-harbour-42\n${weak},${weak}\n`;
    const res = await f.agent.post(`${api}/data/import/FwUser`).set('token', admin).set('Content-Type', 'text/csv').send(csv);
    expect(res.status).to.equal(422);
    expect(res.body.error.details.map((d: { path: string; type: string }) => `${d.path}:${d.type}`)).to.include('rows[2].password:notAccount');
    expect(await f.store.users.findByAccount(good)).to.equal(undefined);
    expect(await f.store.users.findByAccount(weak)).to.equal(undefined);
  });
});

describeEachSql('fwData passwordPolicy option', (db) => {
  let f: DataFixture;
  before(async () => {
    f = await setupData(db().url, { passwordPolicy: { minLength: 16 } });
  });
  after(() => f?.destroy());

  it('takes the policy given where the routes are built', async () => {
    const admin = await f.token('admin');
    const res = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `long-${Date.now()}`, password: 'violet-harbour' }).expect(422);
    expect(res.body.error.details[0]).to.include({ path: 'password', type: 'minLength' });
    await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `long-${Date.now()}`, password: 'violet-harbour-42' }).expect(200);
  });
});
