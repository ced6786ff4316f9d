import { expect } from 'chai';
import Koa from 'koa';
import knexFactory, { type Knex } from 'knex';
import request from 'supertest';
import { createRegistry, defineModel, type ModelDefinition } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { fwData } from '../index.js';
import { DataService } from '../service.js';
import { setupData, type DataFixture } from '../test-setup.js';

// The two-round-trip MariaDB/MySQL update (mysql-write.ts): what it sends, what it leaves behind
// when a write is refused, and when it hands over to the general path. The answers, rows, logs and
// events it shares with the general path are compared in sqlite-write.test.ts, which runs here too.
const Plain = defineModel({ name: 'Plain', table: 'mw_plain', fields: { code: { edit: { notNull: true } }, note: {} } });
const Hooked = defineModel({ name: 'Hooked', table: 'mw_hooked', fields: { code: { edit: { notNull: true } }, note: {} }, dataProxy: { beforeUpdate: () => undefined } });
const owner = { user: { id: 1, account: 'root', isAdmin: false }, ip: '10.0.0.1', source: 'http' as const };

/** The query texts every connection of `knex`'s pool sends, from now on (one text per round trip). */
function recordTrips(knex: Knex): string[] {
  const trips: string[] = [];
  const seen = new WeakSet<object>();
  const client = knex.client as unknown as { acquireConnection(): Promise<{ query(...args: unknown[]): unknown }> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async () => {
    const connection = await acquire();
    if (!seen.has(connection)) {
      seen.add(connection);
      const query = connection.query;
      connection.query = function (this: unknown, ...args: unknown[]) {
        trips.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { sql?: unknown }).sql));
        return query.apply(this, args);
      };
    }
    return connection;
  };
  return trips;
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, the call succeeded');
}

describeEachSql(
  'the MariaDB/MySQL cell edit in two round trips',
  (db) => {
    let store: FwStore;
    let service: DataService;
    let trips: string[];

    const serviceOn = (s: FwStore) => {
      const made = new DataService({ store: s, registry: createRegistry([Plain, Hooked]), onBackgroundError: (error) => { throw error; } });
      (made as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, edit: true, cellEdit: true, viewDetails: true });
      return made;
    };
    const seed = async (model: ModelDefinition, code: string) => Number((await store.knex(model.table).insert({ code, note: 'start' }))[0]);
    const logs = async (model: ModelDefinition) => (await store.operateLogs.list({ model: model.name, limit: 100 })).filter((l) => l.action === 'update');

    before(async () => {
      store = createStore(db().url);
      await store.migrate.latest();
      await store.createModelTables([Plain, Hooked]);
      for (const table of ['mw_plain', 'mw_hooked']) await store.knex.schema.alterTable(table, (t) => t.unique(['code']));
      service = serviceOn(store);
      trips = recordTrips(store.knex);
    });
    after(() => store?.destroy());
    beforeEach(async () => {
      for (const table of ['mw_plain', 'mw_hooked', 'fw_operate_log']) await store.knex(table).delete();
      // Warm: the row-version key and the visibility are read once per process.
      await service.updateCell('Plain', owner, { id: await seed(Plain, 'warm'), field: 'note', value: 'warm' });
      trips.length = 0;
    });

    it('sends an edit as two texts: the locked read opening the transaction, then the write, its log row and COMMIT', async () => {
      const id = await seed(Plain, 'A');
      trips.length = 0;
      expect(await service.updateCell('Plain', owner, { id, field: 'note', value: 'changed' })).to.include({ id, note: 'changed' });
      expect(trips).to.have.length(2);
      expect(trips[0]).to.match(/^START TRANSACTION; select .* from `mw_plain` where `mw_plain`.`id` = \? limit \? for update$/);
      expect(trips[1]).to.match(/^update `mw_plain` set `note` = \? where `id` = \?; insert into `fw_operate_log` .*; COMMIT$/);
      expect((await store.knex('mw_plain').where('id', id).first()).note).to.equal('changed');
      expect((await logs(Plain)).filter((l) => l.targetId === String(id)).map((l) => l.status)).to.deep.equal(['success']);
    });

    it('a taken unique value: 409, the row unchanged, no success row, the transaction rolled back on its connection', async () => {
      const id = await seed(Plain, 'A');
      await seed(Plain, 'B');
      trips.length = 0;
      const error = await rejection(service.updateCell('Plain', owner, { id, field: 'code', value: 'B' }));
      expect(error).to.include({ code: 'CONFLICT', status: 409 });
      expect(trips.slice(0, 3).map((t) => t.split(' ')[0])).to.deep.equal(['START', 'update', 'ROLLBACK']);
      expect((await store.knex('mw_plain').where('id', id).first()).code).to.equal('A');
      expect((await logs(Plain)).filter((l) => l.targetId === String(id)).map((l) => l.status)).to.deep.equal(['failure']);
      // No connection is left inside a transaction: every one of the pool answers outside one.
      const pool = store.knex.client.pool as { numUsed(): number; numFree(): number };
      expect(pool.numUsed()).to.equal(0);
      const open = await Promise.all(Array.from({ length: pool.numFree() }, () => store.knex.raw('select @@in_transaction as t')));
      expect(open.map((r) => Number((r as unknown as Array<Array<{ t: unknown }>>)[0]![0]!.t))).to.satisfy((xs: number[]) => xs.every((x) => x === 0));
    });

    it('a value the schema refuses and a row the actor cannot see end the transaction too', async () => {
      const id = await seed(Plain, 'A');
      trips.length = 0;
      expect(await rejection(service.updateCell('Plain', owner, { id: id + 1000, field: 'note', value: 'x' }))).to.include({ code: 'ROW_NOT_FOUND' });
      expect(trips.slice(0, 2).map((t) => t.split(' ')[0])).to.deep.equal(['START', 'ROLLBACK']);
      expect(await rejection(service.updateCell('Plain', owner, { id, field: 'code', value: null }))).to.include({ code: 'VALIDATION_FAILED' });
      expect(await service.updateCell('Plain', owner, { id, field: 'note', value: 'after' })).to.include({ note: 'after' });
    });

    it('a model with a hook takes the general path (a knex transaction), with the same answer and log', async () => {
      const id = await seed(Hooked, 'H');
      trips.length = 0;
      expect(await service.updateCell('Hooked', owner, { id, field: 'note', value: 'hooked' })).to.include({ note: 'hooked' });
      expect(trips.some((t) => t.startsWith('START TRANSACTION;'))).to.equal(false);
      expect(trips.some((t) => /for update$/.test(t))).to.equal(true);
      expect((await logs(Hooked)).map((l) => l.status)).to.deep.equal(['success']);
    });

    it('a cell shown with another value is refused with STALE_CELL on the fast path, nothing written', async () => {
      const id = await seed(Plain, 'A');
      await store.knex('mw_plain').where('id', id).update({ note: 'moved on' });
      trips.length = 0;
      const error = await rejection(service.updateCell('Plain', owner, { id, field: 'note', value: 'mine', expect: 'start' }));
      expect(error).to.include({ code: 'STALE_CELL', status: 409 });
      expect(trips[0]).to.match(/^START TRANSACTION;/);
      expect((await store.knex('mw_plain').where('id', id).first()).note).to.equal('moved on');
      expect(await service.updateCell('Plain', owner, { id, field: 'note', value: 'mine', expect: 'moved on' })).to.include({ note: 'mine' });
    });

    it('a row locked elsewhere past the lock wait: the general path tries once more, then 409, nothing written; a shorter lock is waited out', async function () {
      this.timeout(60_000);
      const id = await seed(Plain, 'A');
      // Every connection of the pool waits 1 s for a row lock (InnoDB's default is 50 s).
      const client = store.knex.client as unknown as { acquireConnection(): Promise<{ query(sql: string, cb: (e: Error | null) => void): unknown }> };
      const acquire = client.acquireConnection.bind(client);
      const short = new WeakSet<object>();
      client.acquireConnection = async () => {
        const connection = await acquire();
        if (!short.has(connection)) {
          short.add(connection);
          await new Promise<void>((resolve, reject) => connection.query('SET SESSION innodb_lock_wait_timeout = 1', (e) => (e ? reject(e) : resolve())));
        }
        return connection;
      };
      try {
        const hold = (ms: number) =>
          store.knex.transaction(async (trx) => {
            await trx('mw_plain').where('id', id).forUpdate().first();
            await new Promise((resolve) => setTimeout(resolve, ms));
          });
        const held = hold(5000);
        await new Promise((resolve) => setTimeout(resolve, 200));
        trips.length = 0;
        const error = await rejection(service.updateCell('Plain', owner, { id, field: 'note', value: 'blocked' }));
        expect(error).to.include({ code: 'CONFLICT', status: 409 });
        // The two-text attempt, then the general path twice.
        expect(trips.filter((t) => t.startsWith('START TRANSACTION;'))).to.have.length(1);
        expect(trips.filter((t) => /for update$/.test(t) && !t.startsWith('START'))).to.have.length(2);
        await held;
        expect((await store.knex('mw_plain').where('id', id).first()).note).to.equal('start');
        expect((await logs(Plain)).filter((l) => l.targetId === String(id)).map((l) => l.status)).to.deep.equal(['failure']);
        const briefly = hold(1500);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await service.updateCell('Plain', owner, { id, field: 'note', value: 'waited' })).to.include({ note: 'waited' });
        await briefly;
        expect((await store.knex('mw_plain').where('id', id).first()).note).to.equal('waited');
      } finally {
        client.acquireConnection = acquire;
      }
    });

    it("a host's knex whose connections do not take several statements: the general path, same result", async () => {
      const hostKnex = knexFactory({ client: 'mysql2', connection: db().url, pool: { min: 0, max: 2 } });
      try {
        const hosted = createStore({ knex: hostKnex });
        const hostTrips = recordTrips(hostKnex);
        const id = await seed(Plain, 'A');
        expect(await serviceOn(hosted).updateCell('Plain', owner, { id, field: 'note', value: 'hosted' })).to.include({ note: 'hosted' });
        expect(hostTrips.some((t) => t.startsWith('START TRANSACTION;'))).to.equal(false);
        expect(hostTrips.some((t) => /for update$/.test(t))).to.equal(true);
        expect((await store.knex('mw_plain').where('id', id).first()).note).to.equal('hosted');
        expect((await logs(Plain)).filter((l) => l.targetId === String(id)).map((l) => l.status)).to.deep.equal(['success']);
      } finally {
        await hostKnex.destroy();
      }
    });
  },
  ['mysql'],
);

// Issue 25 §4: two instances (two services, each with its own pool) editing the same few rows at
// once. Every answer is 200 or 409, never a 5xx; no update is lost: the log's last success for
// each row holds the value the row ends with, and every 200 has its success row.
describeEachSql(
  'two services editing the same rows of one MariaDB/MySQL database',
  (db) => {
    let f: DataFixture;
    let second: { store: FwStore; agent: ReturnType<typeof request> };
    let token: string;

    before(async () => {
      f = await setupData(db().url);
      token = await f.token('admin');
      const store = createStore(db().url);
      const app = new Koa();
      app.silent = true;
      app.use(fwData({ store, tokens: f.tokens, registry: f.registry, onBackgroundError: (e) => { throw e; } }));
      second = { store, agent: request(app.callback()) };
    });
    after(async () => {
      await second?.store.destroy();
      await f?.destroy();
    });

    for (const model of ['Note', 'Plan'] as const) {
      it(`${model} (${model === 'Note' ? 'the two-round-trip path' : 'hooks: the general path'}): 200 or 409 only, and the log matches the rows`, async function () {
        this.timeout(120_000);
        await f.store.knex('fw_operate_log').delete();
        const base = model === 'Note' ? { subject: 's', startDate: '2024-01-01', endDate: '2024-02-01' } : { name: 'P', note: 'n', startDate: '2024-01-10', endDate: '2024-02-01', secretCode: 'S' };
        const field = model === 'Note' ? 'subject' : 'note';
        const ids: number[] = [];
        for (let i = 0; i < 3; i += 1) ids.push(Number((await f.agent.post(`/fw-api/data/modify/${model}`).set('token', token).send(base).expect(200)).body.id));
        const answers = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            (i % 2 === 0 ? f.agent : second.agent)
              .post(`/fw-api/data/modify/${model}/update-cell`)
              .set('token', token)
              .send({ id: ids[i % ids.length], field, value: `v${i}` })
              .then((r) => ({ status: r.status, value: `v${i}`, id: ids[i % ids.length]! })),
          ),
        );
        expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).to.deep.equal([]);
        const logs = (await f.store.operateLogs.list({ model, limit: 1000 })).filter((l) => l.action === 'update' && l.status === 'success');
        expect(logs).to.have.length(answers.filter((a) => a.status === 200).length);
        for (const id of ids) {
          const stored = (await f.store.knex(model === 'Note' ? 't_note' : 't_plan').where('id', id).first()) as Record<string, unknown>;
          // The newest success row of the row (ids grow with commits) holds the value it ends with.
          const last = logs.filter((l) => l.targetId === String(id)).sort((a, b) => Number(b.id) - Number(a.id))[0];
          expect(JSON.parse(last!.request!).changes[field]).to.equal(stored[field]);
        }
      });
    }
  },
  ['mysql'],
);
