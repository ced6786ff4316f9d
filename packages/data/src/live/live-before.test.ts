// Live tables (issue 24 §2): leaves and deletes judged on the row as it was before the change (the
// operate log's before-row), so a viewer hears of a row their page load showed, not only of rows
// the stream itself sent them; and never of a row they could see neither before nor after.
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type Condition, type FwUser, type ModelDefinition } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData, type FwDataMiddleware } from '../http/router.js';
import { memoryBus, type LiveBus, type LiveBusMessage } from './bus.js';
import { subscribeSse, type Sse, type SseEvent } from './test-setup.js';

// Bob (a reader) sees the blue and navy rows; the administrator sees all.
const teamFilter = ({ user }: { user: FwUser }): Condition[] => (user.isAdmin ? [] : [{ field: 'team', op: 'in', value: ['blue', 'navy'] }]);
const fields = { name: { edit: { notNull: true } }, team: { edit: { notNull: true } }, price: { edit: { type: 'NUMBER', integer: true } } } as const;

/** No trash, no hooks: updates take the fast paths on SQLite and PostgreSQL. */
const Leaf = defineModel({ name: 'Leaf', table: 'lvb_leaf', trash: false, fields, dataProxy: { beforeFetch: teamFilter } });
/** A beforeUpdate hook: updates take the general path (the log row written by the transaction). */
const Hooked = defineModel({ name: 'Hooked', table: 'lvb_hooked', trash: false, fields, dataProxy: { beforeFetch: teamFilter, beforeUpdate: () => undefined } });

describeEachSql('live tables: leaves and deletes judged on the row before the change', (db) => {
  let store: FwStore;
  let data: FwDataMiddleware;
  let server: Server;
  let tokens: FwTokenService;
  const users = {} as Record<'admin' | 'bob', FwUser>;
  const background: unknown[] = [];
  const open: Sse[] = [];
  // A bus that can hold messages back, so several changes commit before the hub hears of the first.
  const inner = memoryBus();
  let held: LiveBusMessage[] | undefined;
  const bus: LiveBus = {
    kind: 'held',
    publish: async (m) => void (held ? held.push(m) : await inner.publish(m)),
    subscribe: (receive) => inner.subscribe(receive),
    close: () => inner.close(),
  };
  const release = async () => {
    const messages = held ?? [];
    held = undefined;
    for (const m of messages) await inner.publish(m);
  };

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Leaf, Hooked]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const reader = await store.roles.create({ code: `lvb-reader-${stamp}`, name: 'Reader' });
    const menus: number[] = [];
    for (const model of [Leaf, Hooked]) menus.push((await store.menus.createModelMenu(model)).menu.id);
    await store.roles.setMenus(reader.id, menus);
    for (const [name, isAdmin] of [
      ['admin', true],
      ['bob', false],
    ] as const) {
      const row = await store.users.create({ account: `${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (!isAdmin) await store.users.setRoles(row.id, [reader.id]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    data = fwData({ store, tokens, registry, onBackgroundError: (e) => background.push(e), live: { bus } });
    const app = new Koa();
    app.silent = true;
    app.use(data);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });

  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  after(async () => {
    await store?.destroy();
    server?.close();
    expect(background, 'background work failed').to.deep.equal([]);
  });

  const token = async (who: 'admin' | 'bob') => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const post = async (path: string, body: unknown) => {
    const res = await request(server)
      .post(`/fw-api${path}`)
      .set('token', await token('admin'))
      .send(body as object);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Record<string, unknown>;
  };
  const add = async (model: ModelDefinition, name: string, team: string) => (await post(`/data/modify/${model.name}`, { name, team })).id as number;
  const cell = (model: ModelDefinition, id: number, field: string, value: unknown) => post(`/data/modify/${model.name}/update-cell`, { id, field, value });
  const bobStream = async (model: ModelDefinition) => subscribeSse(server, `/data/events/${model.name}`, { token: await token('bob') }, open);
  const names = (e: SseEvent, id: number) => e.data.id === id || ((e.data.ids as number[] | undefined) ?? []).includes(id);
  /** Sends a marker change Bob sees, and waits for it: every message before it was delivered (in order). */
  const flushed = async (model: ModelDefinition, bob: Sse) => {
    const marker = await add(model, 'marker', 'blue');
    await bob.waitFor((e) => e.event === 'insert' && e.data.id === marker);
  };

  for (const model of [Leaf, Hooked]) {
    it(`${model.name}: a row the page load showed that a cell edit moves out of the filter is a leave (delete, reason filter)`, async () => {
      const shown = await add(model, 'on the page', 'blue');
      const bob = await bobStream(model);
      await cell(model, shown, 'team', 'red');
      const left = await bob.waitFor((e) => e.event === 'delete' && names(e, shown));
      expect(left.data).to.include({ reason: 'filter' });
      expect(left.data.ids).to.deep.equal([shown]);
    });

    it(`${model.name}: the form and a bulk edit moving page-load rows out are leaves too`, async () => {
      const [one, two, three] = [await add(model, 'f1', 'blue'), await add(model, 'b1', 'navy'), await add(model, 'b2', 'blue')];
      const bob = await bobStream(model);
      await post(`/data/modify/${model.name}/update`, { id: one, name: 'f1', team: 'red', price: null });
      await bob.waitFor((e) => e.event === 'delete' && e.data.reason === 'filter' && names(e, one));
      await post(`/data/modify/${model.name}/update-many`, { ids: [two, three], values: { team: 'green' } });
      await bob.waitFor((e) => e.event === 'delete' && e.data.reason === 'filter' && names(e, two) && names(e, three));
    });

    it(`${model.name}: a delete (no trash) of rows the viewer could see is sent, naming only those`, async () => {
      const [blue, red] = [await add(model, 'seen', 'blue'), await add(model, 'unseen', 'red')];
      const bob = await bobStream(model);
      await post(`/data/modify/${model.name}/delete`, { ids: [blue, red] });
      const deleted = await bob.waitFor((e) => e.event === 'delete' && names(e, blue));
      expect(deleted.data.ids).to.deep.equal([blue]);
      expect(deleted.data).to.not.have.property('reason');
    });

    it(`${model.name}: nothing at all about a row the viewer could see neither before nor after`, async () => {
      const red = await add(model, 'never seen', 'red');
      const bob = await bobStream(model);
      await cell(model, red, 'team', 'green');
      await cell(model, red, 'price', 5);
      await post(`/data/modify/${model.name}/update-many`, { ids: [red], values: { team: 'black' } });
      await post(`/data/modify/${model.name}/delete`, { ids: [red] });
      await flushed(model, bob);
      expect(bob.events.filter((e) => names(e, red))).to.deep.equal([]);
    });
  }

  it('a row that stays in the filter while a field the filter reads changes is an update, not an insert', async () => {
    const id = await add(Leaf, 'stays', 'blue');
    const bob = await bobStream(Leaf);
    await cell(Leaf, id, 'team', 'navy');
    const changed = await bob.waitFor((e) => names(e, id));
    expect(changed.event).to.equal('update');
    expect(changed.data.values).to.deep.equal({ team: 'navy' });
  });

  it('judges each message on its own change: a row edited twice in a row leaves once, on the edit that moved it', async () => {
    const id = await add(Leaf, 'twice', 'blue');
    const bob = await bobStream(Leaf);
    // Both commit before the first message is delivered: the row read then is the second edit's
    // (red), whose own before-row is red too; neither may hide the first edit's leave.
    held = [];
    await cell(Leaf, id, 'team', 'red');
    await cell(Leaf, id, 'price', 7);
    await release();
    await flushed(Leaf, bob);
    const about = bob.events.filter((e) => names(e, id));
    expect(about.map((e) => [e.event, e.data.reason])).to.deep.equal([['delete', 'filter']]);
  });
});
