import { expect } from 'chai';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { DataService, type Actor } from '../service.js';
import { liveMessageId, memoryBus, type LiveMessage } from './bus.js';
import { LiveHub, MAX_BATCH_MS, deliveryInterval } from './hub.js';
import { BATCH_MESSAGES, deliverBatch, takeBatch, type LiveDelivery } from './deliver.js';
import { beforeRows } from './before-rows.js';
import { LiveStream } from './stream.js';
import { conditionKey, eventsFor, viewOf, type LiveChange } from './viewer.js';
import { until } from './test-setup.js';

/** Rows of a team, seen by that team only (administrators see all); `note` is masked for non-admins by afterFetch. */
const Crate = defineModel({
  name: 'Crate',
  table: 'lv_crate',
  fields: {
    team: { edit: { notNull: true } },
    note: {},
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'team', op: 'eq', value: user.account.startsWith('bob') ? 'blue' : 'red' }]),
    afterFetch: (rows, { user }) => (user.isAdmin ? rows : rows.map((r) => ({ ...r, note: r.note === null || r.note === undefined ? null : `masked:${String(r.note).length}` }))),
  },
});

/** Crate without afterFetch: every viewer is shown the stored row, so the batch shares their events and text. */
const Bin = defineModel({
  name: 'Bin',
  table: 'lv_bin',
  fields: {
    team: { edit: { notNull: true } },
    note: {},
  },
  dataProxy: { beforeFetch: Crate.dataProxy.beforeFetch },
});

const message = (kind: LiveMessage['kind'], ids: number[], extra: Partial<LiveMessage> = {}): LiveMessage => ({
  id: liveMessageId('test'),
  origin: 'test',
  model: 'Crate',
  kind,
  ids,
  actor: { id: 1, account: 'admin' },
  at: new Date().toISOString(),
  ...extra,
});

describe('takeBatch(queue)', () => {
  const stub = (model: string, ids = 1): LiveDelivery => ({ message: message('update', Array.from({ length: ids }, (_, i) => i + 1), { model }), streams: [] });

  it("takes the first delivery's model in order, leaves other models in their places, and stops at the bounds", () => {
    const queue = [stub('A'), stub('B'), stub('A', 600), stub('A', 500), stub('A'), stub('B')];
    const [a1, b1, a2, a3, a4, b2] = queue;
    // 1 + 600 ids fit; 500 more would pass 1,000: that one and every later A wait.
    expect(takeBatch(queue)).to.deep.equal([a1, a2]);
    expect(queue).to.deep.equal([b1, a3, a4, b2]);
    expect(takeBatch(queue)).to.deep.equal([b1, b2]);
    expect(takeBatch(queue)).to.deep.equal([a3, a4]);
    expect(queue).to.deep.equal([]);
    const many = Array.from({ length: BATCH_MESSAGES + 3 }, () => stub('A'));
    expect(takeBatch(many)).to.have.length(BATCH_MESSAGES);
    expect(many).to.have.length(3);
  });

  it('takes one message larger than the id bound alone', () => {
    const queue = [stub('A', 1000), stub('A')];
    expect(takeBatch(queue)).to.have.length(1);
    expect(queue).to.have.length(1);
  });
});

describe('conditionKey(conditions)', () => {
  it('gives equal keys only to row filters that mean the same, and none to what JSON would blur', () => {
    const key = (value: unknown) => conditionKey([{ field: 'team', op: 'in', value }]);
    expect(key(['blue', null])).to.equal(key(['blue', null])).and.be.a('string');
    expect(key(['blue'])).to.not.equal(key('blue'));
    // A hole, a Date, undefined, NaN: JSON would write them as something else (null, a text, nothing).
    // eslint-disable-next-line no-sparse-arrays
    for (const blurred of [[, 'blue'], new Date(0), undefined, NaN, [undefined]]) expect(key(blurred), String(blurred)).to.equal(undefined);
    expect(conditionKey([{ field: 'team', op: 'eq', value: 'red' }])).to.not.equal(conditionKey([{ op: 'eq', field: 'team', value: 'red' }]));
  });
});

describeEachSql('live delivery in batches', (db) => {
  let store: FwStore;
  let service: DataService;
  const users = {} as Record<'admin' | 'alice' | 'bob' | 'bobby', FwUser>;
  const errors: unknown[] = [];
  const opened: LiveStream[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Crate, Bin]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const reader = await store.roles.create({ code: `lv-crate-${stamp}`, name: 'Reader' });
    const { menu } = await store.menus.createModelMenu(Crate);
    const { menu: binMenu } = await store.menus.createModelMenu(Bin);
    await store.roles.setMenus(reader.id, [menu.id, binMenu.id]);
    for (const [name, isAdmin] of [
      ['admin', true],
      ['alice', false],
      ['bob', false],
      // Bobby's row filter is Bob's: the batch judges the rows for both at once.
      ['bobby', false],
    ] as const) {
      const row = await store.users.create({ account: `${name}-${stamp}`, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (!isAdmin) await store.users.setRoles(row.id, [reader.id]);
      users[name] = { id: row.id, account: row.account, isAdmin };
    }
    service = new DataService({ store, registry, onBackgroundError: (e) => errors.push(e) });
  });

  afterEach(() => {
    delete (service as Partial<DataService>).rawRows;
  });

  after(async () => {
    for (const stream of opened) stream.close();
    await store?.destroy();
  });

  /** One stream per entry of `who`, in that order. */
  const streams = (who: Array<keyof typeof users>, model = Crate) =>
    who.map((name) => {
      const actor: Actor = { user: users[name], ip: null, source: 'http' };
      const stream = new LiveStream(model, actor, 't', { queueSize: 500, heartbeatMs: 60_000, tokenCheckMs: 60_000 }, async () => true, () => undefined);
      opened.push(stream);
      return stream;
    });
  const text = (stream: LiveStream) => (stream.body.read() as Buffer | null)?.toString() ?? '';

  it('gives each stream the same events, ids and order as delivering the messages one by one, in one write', async () => {
    const notes = ['a', 'bb', 'ccc', 'dddd'];
    await store.knex('lv_crate').insert(notes.map((note, i) => ({ team: i % 2 === 0 ? 'blue' : 'red', note })));
    const found = (await store.knex('lv_crate').select('id', 'note').whereIn('note', notes)) as Array<{ id: unknown; note: string }>;
    const ids = notes.map((note) => Number(found.find((r) => r.note === note)!.id));
    const [b1, r2, b3, r4] = ids as [number, number, number, number];
    // Rows as they stand when the messages are delivered: b3 moved from red to blue after its insert was told.
    const messages = [
      message('insert', [b1, r2]),
      message('update', [b1], { changed: ['note'] }),
      message('update', [r2, b1], { changed: ['note'] }),
      message('insert', [b3, r4]),
      message('update', [b3], { changed: ['team'] }),
      message('delete', [b1]),
      message('update', [r4], { changed: ['note'] }),
    ];
    const who: Array<keyof typeof users> = ['bob', 'alice', 'bob', 'admin'];
    const oneByOne = streams(who);
    for (const m of messages) await deliverBatch(service, [{ message: m, streams: oneByOne }], (e) => errors.push(e));
    const batched = streams(who);
    const queue: LiveDelivery[] = messages.map((m) => ({ message: m, streams: batched }));
    const batch = takeBatch(queue);
    expect(batch).to.have.length(messages.length);
    // Each stream's events of the batch go out in one write.
    const writes = batched.map(() => 0);
    batched.forEach((s, i) => {
      text(s); // the opening comment
      const write = s.write.bind(s);
      s.write = (chunk, count) => {
        writes[i]! += 1;
        write(chunk, count);
      };
    });
    await deliverBatch(service, batch, (e) => errors.push(e));
    expect(errors).to.deep.equal([]);
    expect(writes).to.deep.equal([1, 1, 1, 1]);
    const texts = who.map((_, i) => ({ one: text(oneByOne[i]!).replace(/^: live\nretry: 3000\n\n/, ''), all: text(batched[i]!) }));
    texts.forEach(({ one, all }, i) => {
      expect(all, `${who[i]}'s stream ${i}`).to.equal(one);
      // Every event under its own message's id, in the messages' order.
      const seen = [...all.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
      expect(seen).to.deep.equal([...seen].sort());
      expect(new Set(seen).size).to.be.greaterThan(1);
    });
    // Bob sees blue rows only, masked; he is told of b1's delete because his stream sent b1 before.
    const [bob, alice, bob2, admin] = texts.map((t) => t.all);
    expect(bob2).to.equal(bob);
    expect(bob).to.include(`"id":${b1}`).and.include('"note":"masked:1"').and.include(`"ids":[${b1}]`);
    expect(bob).to.not.include(`"id":${r2}`);
    expect(alice).to.include(`"id":${r2}`).and.not.include(`"id":${b1}`);
    expect(admin).to.include('"note":"dddd"');
    expect([...batched[0]!.known].sort()).to.deep.equal([...oneByOne[0]!.known].sort());
    expect([...batched[3]!.known].sort()).to.deep.equal([...oneByOne[3]!.known].sort());
  });

  // The oracle: each message worked out on its own for each stream, with nothing shared between
  // viewers, streams or messages (viewOf, then eventsFor on the stream's own memory).
  const oneAtATime = async (model: typeof Crate, deliveries: LiveDelivery[]) => {
    const version = await store.grants.version();
    for (const { message: m, streams: to } of deliveries) {
      const rows = m.kind === 'delete' ? [] : await service.rawRows(model, m.ids);
      const change: LiveChange = { message: m, rows, trashed: [], before: () => beforeRows(store.knex, model, m) };
      for (const stream of to) {
        const view = await viewOf(service, model, { ...stream.actor, grantsVersion: version }, change);
        const events = eventsFor(model, change, view, stream.known, stream.actor.user.id);
        if (events.length > 0) stream.send(m.id, events);
      }
    }
  };

  for (const model of [Crate, Bin]) {
    it(`agrees with each message worked out alone for every stream, in random batches (${model.name}: ${model.dataProxy.afterFetch ? 'afterFetch per viewer' : 'no afterFetch, shared events'})`, async () => {
      const teams = ['blue', 'red', 'blue', 'red', 'blue', 'blue'];
      await store.knex(model.table).insert(teams.map((team, i) => ({ team, note: `n${i}` })));
      const ids = ((await store.knex(model.table).select('id').orderBy('id', 'desc').limit(teams.length)) as Array<{ id: unknown }>).map((r) => Number(r.id)).reverse();
      // A seeded generator: the same cases on every run.
      let seed = model === Crate ? 7 : 11;
      const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      const who: Array<keyof typeof users> = ['bob', 'bobby', 'alice', 'bob', 'admin', 'alice', 'bobby'];
      for (let round = 0; round < 12; round += 1) {
        const batched = streams(who, model);
        const alone = streams(who, model);
        // What the streams were told before this batch, the same on both sides; Bob's two streams
        // alike. Every third round they were told of many more rows than the batch names.
        for (let i = 0; i < who.length; i += 1) {
          for (const id of [...ids, ...(round % 3 === 0 ? Array.from({ length: 40 }, (_, k) => 900_000 + k) : [])]) {
            if (i === 3 ? batched[0]!.known.has(id) : random() < 0.3) {
              batched[i]!.known.add(id);
              alone[i]!.known.add(id);
            }
          }
        }
        const messages = Array.from({ length: 3 + Math.floor(random() * 12) }, () => {
          const kind = pick(['update', 'update', 'update', 'insert', 'delete'] as const);
          const some = ids.filter(() => random() < 0.35);
          return message(kind, some.length > 0 ? some : [pick(ids)], { model: model.name, ...(kind === 'update' ? { changed: [pick(['note', 'team', 'note'])] } : {}) });
        });
        // Odd rounds: every message to every stream, one list (as the hub hands out); even rounds:
        // a list per message, some to a few streams only (as resumes are).
        const every = who.map((_, i) => i);
        const byIndex = messages.map(() => (round % 2 === 1 || random() < 0.5 ? every : every.filter(() => random() < 0.6)));
        const toBatched = byIndex.map((idx) => (round % 2 === 1 ? batched : idx.map((i) => batched[i]!)));
        const chunks = new Map<LiveStream, Buffer | string>();
        for (const s of batched) {
          text(s);
          const write = s.write.bind(s);
          s.write = (chunk, count) => {
            chunks.set(s, chunk);
            write(chunk, count);
          };
        }
        for (const s of alone) text(s);
        await deliverBatch(
          service,
          messages.map((m, i) => ({ message: m, streams: toBatched[i]! })),
          (e) => errors.push(e),
        );
        await oneAtATime(
          model,
          messages.map((m, i) => ({ message: m, streams: byIndex[i]!.map((k) => alone[k]!) })),
        );
        expect(errors).to.deep.equal([]);
        who.forEach((name, i) => {
          const label = `round ${round}, ${name}'s stream ${i}`;
          expect(text(batched[i]!), label).to.equal(text(alone[i]!));
          expect([...batched[i]!.known].sort(), label).to.deep.equal([...alone[i]!.known].sort());
        });
        if (round % 2 === 1) {
          // Bob's two streams were told the same before and got every message: one Buffer served both.
          const bob = chunks.get(batched[0]!);
          if (bob) expect(chunks.get(batched[3]!)).to.equal(bob);
        }
        for (const s of [...batched, ...alone]) s.abandon();
      }
    });
  }

  /** A hub on a memory bus whose deliveries are counted (one row read each); `stream` is admin's. */
  const countedHub = async (batchMs: number) => {
    const bus = memoryBus();
    const reads: number[][] = [];
    // Counted on the service itself (its private fields rule out a wrapper); the hub closes, and the count goes, after each test.
    const rawRows = DataService.prototype.rawRows;
    service.rawRows = function (model, ids) {
      reads.push([...ids]);
      return rawRows.call(this, model, ids);
    };
    const hub = new LiveHub(service, bus, { batchMs }, async () => true, (e) => errors.push(e));
    const stream = await hub.open(Crate, { user: users.admin, ip: null, source: 'http' }, 't', undefined);
    opened.push(stream);
    return { bus, hub, reads, stream };
  };

  it('starts deliveries at most every batchMs: the first change at once, those within the interval as one batch', async () => {
    const [id] = (await store.knex('lv_crate').insert({ team: 'blue', note: 'w' }).returning('id')).map((r: unknown) => Number(typeof r === 'object' ? (r as { id: unknown }).id : r));
    const { bus, hub, reads, stream } = await countedHub(300);
    text(stream);
    const started = Date.now();
    await bus.publish(message('update', [id!], { changed: ['note'] }));
    await until(() => reads.length === 1);
    // Two more within the interval: they wait for its end and go out together.
    await bus.publish(message('update', [id!], { changed: ['note'] }));
    await bus.publish(message('update', [id!], { changed: ['note'] }));
    await until(() => reads.length === 2);
    expect(Date.now() - started).to.be.at.least(290);
    let seen = '';
    await until(() => (seen += text(stream)).match(/^event: update$/gm)?.length === 3);
    // Three messages, two deliveries, each message under its own id.
    expect(reads).to.deep.equal([[id], [id]]);
    expect(new Set(seen.match(/^id: .+$/gm)).size).to.equal(3);
    await hub.close();
    expect(errors).to.deep.equal([]);
  });

  it('with batchMs 0 delivers a change that finds the hub idle at once, each on its own', async () => {
    const [id] = (await store.knex('lv_crate').insert({ team: 'red', note: 'z' }).returning('id')).map((r: unknown) => Number(typeof r === 'object' ? (r as { id: unknown }).id : r));
    const { bus, hub, reads, stream } = await countedHub(0);
    text(stream);
    for (let i = 0; i < 3; i += 1) {
      await bus.publish(message('update', [id!], { changed: ['note'] }));
      await until(() => reads.length === i + 1);
    }
    await until(() => stream.known.has(id!));
    expect(reads).to.have.length(3);
    await hub.close();
    expect(errors).to.deep.equal([]);
  });

  // With batchMs 1000 every test below has a delivery waiting a whole second, as a saturated hub's would.
  const rowOf = async (table: string, note: string) =>
    (await store.knex(table).insert({ team: 'blue', note }).returning('id')).map((r: unknown) => Number(typeof r === 'object' ? (r as { id: unknown }).id : r))[0]!;

  it('close() ends a wait for the next delivery at once', async () => {
    const id = await rowOf('lv_crate', 'c');
    const { bus, hub, reads, stream } = await countedHub(1000);
    text(stream);
    await bus.publish(message('update', [id], { changed: ['note'] }));
    await until(() => reads.length === 1);
    await bus.publish(message('update', [id], { changed: ['note'] }));
    // The bus hands the message over on a later tick: let the hub take it and start waiting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await hub.close();
    expect(Date.now() - started, 'close() waited out the interval').to.be.below(500);
    expect(errors).to.deep.equal([]);
  });

  it('a whole batch by row ids goes out without waiting for the interval', async () => {
    const id = await rowOf('lv_crate', 'i');
    const { bus, hub, reads, stream } = await countedHub(1000);
    text(stream);
    await bus.publish(message('update', [id], { changed: ['note'] }));
    await until(() => reads.length === 1);
    const started = Date.now();
    // 11 messages of 100 ids: more ids than a batch takes, in fewer messages than BATCH_MESSAGES.
    for (let m = 0; m < 11; m += 1) await bus.publish(message('update', [id, ...Array.from({ length: 99 }, (_, k) => 1_000_000 + m * 100 + k)], { changed: ['note'] }));
    await until(() => reads.length >= 2);
    expect(Date.now() - started, 'the full batch waited for the interval').to.be.below(500);
    await hub.close();
    expect(errors).to.deep.equal([]);
  });

  it('a resuming stream gets what it missed without waiting for the interval', async () => {
    const id = await rowOf('lv_crate', 'r');
    const { bus, hub, reads, stream } = await countedHub(1000);
    text(stream);
    const first = message('update', [id], { changed: ['note'] });
    await bus.publish(first);
    await until(() => reads.length === 1);
    const missed = message('update', [id], { changed: ['note'] });
    await bus.publish(missed);
    // Let the hub take it (the bus hands it over on a later tick): it is then in the resume ring and waiting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const resumed = await hub.open(Crate, { user: users.admin, ip: null, source: 'http' }, 't', first.id);
    opened.push(resumed);
    let seen = '';
    await until(() => (seen += text(resumed)).includes(`id: ${missed.id}`));
    expect(Date.now() - started, 'the resume waited for the interval').to.be.below(500);
    await hub.close();
    expect(errors).to.deep.equal([]);
  });

  it('one round delivers every model waiting: a busy model does not hold back another', async () => {
    const crate = await rowOf('lv_crate', 'm');
    const bin = await rowOf('lv_bin', 'm');
    const { bus, hub, reads, stream } = await countedHub(1000);
    const binStream = await hub.open(Bin, { user: users.admin, ip: null, source: 'http' }, 't', undefined);
    opened.push(binStream);
    text(stream);
    text(binStream);
    await bus.publish(message('update', [crate], { changed: ['note'] }));
    await until(() => reads.length === 1);
    await bus.publish(message('update', [crate], { changed: ['note'] }));
    await bus.publish(message('update', [bin], { changed: ['note'], model: 'Bin' }));
    await until(() => reads.length >= 2);
    const second = Date.now();
    await until(() => reads.length >= 3);
    expect(Date.now() - second, 'the other model waited for another interval').to.be.below(500);
    await hub.close();
    expect(errors).to.deep.equal([]);
  });
});

describe('the interval between deliveries', () => {
  it('is batchMs while the event loop has room, whatever the last delivery took', () => {
    for (const used of [0, 0.5, 0.7]) for (const took of [1, 40, 500]) expect(deliveryInterval(10, used, took, 100), `${used} ${took}`).to.equal(10);
    expect(deliveryInterval(0, 0.3, 100, 100)).to.equal(0);
  });

  it('is batchMs after a delivery of a few messages, however busy the loop (changes coming one by one keep their latency)', () => {
    expect(deliveryInterval(10, 1, 40, 7)).to.equal(10);
    expect(deliveryInterval(10, 1, 40, 8)).to.equal(MAX_BATCH_MS);
  });

  it('grows with the last delivery on a busy loop, to thirty times it when fully used, at most MAX_BATCH_MS', () => {
    expect(deliveryInterval(10, 1, 5, 100)).to.equal(150);
    expect(deliveryInterval(10, 0.85, 5, 100)).to.be.closeTo(75, 1e-9);
    expect(deliveryInterval(10, 1, 0.1, 100)).to.equal(10);
    expect(MAX_BATCH_MS).to.equal(1000);
    expect(deliveryInterval(10, 1, 50, 100)).to.equal(MAX_BATCH_MS);
    expect(deliveryInterval(10, 1, 100, 100)).to.equal(MAX_BATCH_MS);
    // The host's own batchMs is never shortened, busy or not.
    expect(deliveryInterval(1000, 0.2, 100, 100)).to.equal(1000);
    expect(deliveryInterval(1000, 1, 5, 100)).to.equal(1000);
  });
});
