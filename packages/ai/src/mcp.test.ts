import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BUILTIN_MODELS, createRegistry, defineModel, loadConfig, type FwUser } from '@fw/core';
import { fwData, type EditEvent } from '@fw/data';
import { fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { fwMcp } from './mcp.js';
import { AI_ROW_CAP } from './toolbox.js';

const Item = defineModel({
  name: 'Item',
  table: 'ai_item',
  fields: { title: { edit: { notNull: true }, rules: [{ type: 'length', max: 40 }] }, qty: { edit: { type: 'NUMBER', integer: true }, rules: [{ type: 'range', min: 0 }] } },
});
const hookCalls: string[] = [];
const Note = defineModel({
  name: 'Note',
  table: 'ai_note',
  fields: { text: { edit: { notNull: true } }, ownerId: { edit: { type: 'HIDDEN', readonly: true, integer: true } } },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user, source }) => {
      row.ownerId = user.id;
      hookCalls.push(`beforeAdd:${source}`);
    },
  },
});
const Secret = defineModel({ name: 'Secret', table: 'ai_secret', power: { ai: false }, fields: { value: { edit: { notNull: true } } } });

const GATE = 'AI access is disabled for this model: Secret';

describeEachSql('fwMcp(options): the AI toolbox over MCP', (db) => {
  let store: FwStore;
  let tokens: FwTokenService;
  let server: Server;
  let url: string;
  let users: Record<'admin' | 'alice' | 'bob' | 'carol', FwUser>;
  let data: ReturnType<typeof fwData>;
  const clients: Client[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Item, Note, Secret]);
    await store.createModelTables([Item, Note, Secret]);
    const menus: Record<string, number[]> = {};
    for (const model of [Item, Note, Secret]) {
      const { menu, functions } = await store.menus.createModelMenu(model);
      menus[model.name] = [menu.id, ...functions.map((f) => f.id)];
    }
    const stamp = Date.now().toString(36);
    const make = async (account: string, isAdmin = false) => {
      const row = await store.users.create({ account: `${account}-${stamp}`, password: 'x-password-1', isAdmin, mustChangePassword: false });
      return { id: row.id, account: row.account, isAdmin };
    };
    users = { admin: await make('admin', true), alice: await make('alice'), bob: await make('bob'), carol: await make('carol') };
    const full = await store.roles.create({ code: `full-${stamp}`, name: 'Full' });
    const reader = await store.roles.create({ code: `reader-${stamp}`, name: 'Reader' });
    await store.roles.setMenus(full.id, [...menus.Item!, ...menus.Note!, ...menus.Secret!]);
    await store.roles.setMenus(reader.id, [menus.Item![0]!]);
    await store.users.setRoles(users.alice.id, [full.id]);
    await store.users.setRoles(users.bob.id, [reader.id]);
    const config = loadConfig({ env: false });
    tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    data = fwData({ store, tokens, registry, config });
    const app = new Koa();
    app.silent = true;
    app.use(fwLogin({ store, tokens, config, ephemeral: new MemoryEphemeralStore() }));
    app.use(data);
    app.use(fwMcp({ data, tokens, store, config }));
    server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await new Promise<void>((r) => server?.close(() => r()));
    await store?.destroy();
  });
  beforeEach(async () => {
    for (const table of ['ai_item', 'ai_note', 'ai_secret', 'fw_operate_log']) await store.knex(table).delete();
    hookCalls.length = 0;
  });

  async function tokenOf(user: keyof typeof users): Promise<string> {
    return (await tokens.loginToken(users[user], tokens.generateToken())).token;
  }
  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'fw-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/fw-api/ai/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }
  const as = async (user: keyof typeof users) => connect({ token: await tokenOf(user) });
  type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
  const text = (r: Result) => r.content.map((c) => c.text).join('');
  const count = async (table: string) => Number(((await store.knex(table).count({ n: '*' }))[0] as { n: unknown }).n);

  it('lists the seven tools with their argument schemas', async () => {
    const client = await as('alice');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal(['fwModelList', 'fwSchema', 'fwDataQuery', 'findFwDataByPk', 'insertFwData', 'updateFwData', 'deleteFwData']);
    const query = tools.find((t) => t.name === 'fwDataQuery')!;
    expect(query.inputSchema.required).to.deep.equal(['model']);
  });

  it('fwModelList omits the ai: false model, for an administrator too', async () => {
    const admin = (await call(await as('admin'), 'fwModelList')).structuredContent as { result: Array<{ name: string }> };
    const names = admin.result.map((m) => m.name);
    expect(names).to.include.members(['Item', 'Note', 'FwUser']);
    expect(names).to.not.include('Secret');
    const alice = (await call(await as('alice'), 'fwModelList')).structuredContent as { result: Array<{ name: string }> };
    expect(alice.result.map((m) => m.name).sort()).to.deep.equal(['Item', 'Note']);
    const carol = (await call(await as('carol'), 'fwModelList')).structuredContent as { result: unknown[] };
    expect(carol.result).to.deep.equal([]);
  });

  for (const who of ['admin', 'alice'] as const) {
    it(`refuses all six model tools on the ai: false model for ${who === 'admin' ? 'an administrator' : 'a user with every grant'}, reading and writing nothing`, async () => {
      await store.knex('ai_secret').insert({ value: 'the recipe' });
      const before = await store.knex('ai_secret').select('*');
      const client = await as(who);
      const attempts: Array<[string, Record<string, unknown>]> = [
        ['fwSchema', { model: 'Secret' }],
        ['fwDataQuery', { model: 'Secret', filter: {} }],
        ['findFwDataByPk', { model: 'Secret', id: before[0]!.id }],
        ['insertFwData', { model: 'Secret', data: { value: 'x' } }],
        ['updateFwData', { model: 'Secret', id: before[0]!.id, data: { value: 'y' } }],
        ['deleteFwData', { model: 'Secret', ids: [before[0]!.id] }],
      ];
      // Malformed arguments too: the gate answers first.
      attempts.push(['fwSchema', { model: 'Secret', extra: 1 }], ['fwDataQuery', { model: 'Secret', filter: { where: '1=1' } }]);
      for (const [tool, args] of attempts) {
        const result = await call(client, tool, args);
        expect(result.isError, tool).to.equal(true);
        expect(text(result), tool).to.equal(GATE);
        expect(text(result), tool).to.not.contain('the recipe');
      }
      expect(await store.knex('ai_secret').select('*')).to.deep.equal(before);
      expect(await count('fw_operate_log')).to.equal(0);
    });
  }

  it('applies the usual chain on an AI-accessible model: no menu, no add / edit / delete', async () => {
    await store.knex('ai_item').insert({ title: 'Bolt', qty: 3 });
    const [row] = await store.knex('ai_item').select('*');
    const carol = await as('carol');
    expect(text(await call(carol, 'fwDataQuery', { model: 'Item' }))).to.equal('Not permitted: query on Item');
    expect(text(await call(carol, 'fwSchema', { model: 'Item' }))).to.equal('Not permitted: query on Item');
    const bob = await as('bob');
    expect((await call(bob, 'fwDataQuery', { model: 'Item' })).isError).to.not.equal(true);
    expect(text(await call(bob, 'insertFwData', { model: 'Item', data: { title: 'Nut' } }))).to.equal('Not permitted: add on Item');
    expect(text(await call(bob, 'updateFwData', { model: 'Item', id: row.id, data: { title: 'Nut' } }))).to.equal('Not permitted: edit on Item');
    expect(text(await call(bob, 'deleteFwData', { model: 'Item', ids: [row.id] }))).to.equal('Not permitted: delete on Item');
    expect(await store.knex('ai_item').select('*')).to.deep.equal([row]);
  });

  it('holds a user password written by the AI tools to the password policy (issue 19 §2)', async () => {
    const admin = await as('admin');
    const details = (r: Result) => (r.structuredContent as { error: { details: Array<{ path: string; type: string }> } }).error.details.map((d) => `${d.path}:${d.type}`);
    const account = `ai-made-${Date.now().toString(36)}`;
    const weak = await call(admin, 'insertFwData', { model: 'FwUser', data: { account, password: 'qwertyuiop' } });
    expect(weak.isError).to.equal(true);
    expect(details(weak)).to.deep.equal(['password:notCommon']);
    expect(await store.users.findByAccount(account)).to.equal(undefined);
    const made = (await call(admin, 'insertFwData', { model: 'FwUser', data: { account, password: 'violet-harbour-42' } })).structuredContent as { id: number };
    const named = await call(admin, 'updateFwData', { model: 'FwUser', id: made.id, data: { password: `${account}!` } });
    expect(named.isError).to.equal(true);
    expect(details(named)).to.deep.equal(['password:notAccount']);
    const short = await call(admin, 'updateFwData', { model: 'FwUser', id: made.id, data: { password: 'x' } });
    expect(details(short)).to.deep.equal(['password:minLength']);
    await store.users.delete(made.id);
  });

  it('inserts, updates and deletes through validation and hooks, logged as AI operations', async () => {
    const events: EditEvent[] = [];
    const listener = (e: EditEvent) => events.push(e);
    data.events.on('update', listener);
    try {
      const alice = await as('alice');
      const bad = await call(alice, 'insertFwData', { model: 'Item', data: { title: 'x'.repeat(41), qty: -1 } });
      expect(bad.isError).to.equal(true);
      expect((bad.structuredContent as { error: { code: string; details: Array<{ path: string }> } }).error.details.map((d) => d.path).sort()).to.deep.equal(['qty', 'title']);
      expect(await count('ai_item')).to.equal(0);
      const added = (await call(alice, 'insertFwData', { model: 'Item', data: { title: 'Washer', qty: 10 } })).structuredContent as { id: number };
      expect(added).to.include({ title: 'Washer', qty: 10 });
      const updated = await call(alice, 'updateFwData', { model: 'Item', id: added.id, data: { qty: 12 } });
      expect(updated.structuredContent).to.include({ title: 'Washer', qty: 12 });
      expect(events.map((e) => [e.source, e.changed])).to.deep.equal([['ai', ['qty']]]);
      const note = (await call(alice, 'insertFwData', { model: 'Note', data: { text: 'remember' } })).structuredContent as { ownerId: number };
      expect(note.ownerId).to.equal(users.alice.id);
      expect(hookCalls).to.deep.equal(['beforeAdd:ai']);
      const removed = (await call(alice, 'deleteFwData', { model: 'Item', ids: [added.id] })).structuredContent as { deleted: number; batch: string };
      // A delete starts a batch (issue 23): its id is answered with the count.
      expect(removed.deleted).to.equal(1);
      expect(removed.batch).to.match(/^[0-9a-f-]{36}$/);
      const logs = await store.operateLogs.list({ limit: 50 });
      expect(
        logs
          .filter((l) => l.status === 'success')
          .map((l) => `${l.model}:${l.action}:${l.source}`)
          .sort(),
      ).to.deep.equal(['Item:add:ai', 'Item:delete:ai', 'Item:update:ai', 'Note:add:ai'].sort());
      expect(logs.find((l) => l.status === 'failure')).to.include({ model: 'Item', action: 'add', source: 'ai' });
    } finally {
      data.events.off('update', listener);
    }
  });

  it('cannot find, change or delete a row hidden by beforeFetch', async () => {
    await store.knex('ai_note').insert({ text: 'admin only', ownerId: users.admin.id });
    const [hidden] = await store.knex('ai_note').select('*');
    const alice = await as('alice');
    expect(text(await call(alice, 'findFwDataByPk', { model: 'Note', id: hidden.id }))).to.match(/^No Note with id/);
    expect(text(await call(alice, 'updateFwData', { model: 'Note', id: hidden.id, data: { text: 'mine' } }))).to.match(/^No Note with id/);
    expect(text(await call(alice, 'deleteFwData', { model: 'Note', ids: [hidden.id] }))).to.match(/^No Note with id/);
    expect(((await call(alice, 'fwDataQuery', { model: 'Note' })).structuredContent as { total: number }).total).to.equal(0);
    expect(await store.knex('ai_note').select('*')).to.deep.equal([hidden]);
  });

  it('fwDataQuery takes declared fields and known operators only, and caps the rows', async () => {
    await store.knex.batchInsert(
      'ai_item',
      Array.from({ length: AI_ROW_CAP + 30 }, (_, i) => ({ title: `Part ${i}`, qty: i })),
      100,
    );
    const alice = await as('alice');
    const undeclared = await call(alice, 'fwDataQuery', { model: 'Item', filter: { conditions: [{ field: 'qty; drop table ai_item', op: 'eq', value: 1 }] } });
    expect(undeclared.isError).to.equal(true);
    expect((undeclared.structuredContent as { error: { code: string } }).error.code).to.equal('UNKNOWN_FIELD');
    const operator = await call(alice, 'fwDataQuery', { model: 'Item', filter: { conditions: [{ field: 'qty', op: 'regexp', value: '.' }] } });
    expect(operator.isError).to.equal(true);
    expect(text(operator)).to.match(/^Invalid arguments for fwDataQuery/);
    const sql = await call(alice, 'fwDataQuery', { model: 'Item', filter: { where: '1=1' } });
    expect(sql.isError).to.equal(true);
    const oversized = await call(alice, 'fwDataQuery', { model: 'Item', filter: { size: 1000 } });
    expect(oversized.isError).to.equal(true);
    const page = (await call(alice, 'fwDataQuery', { model: 'Item', filter: { size: AI_ROW_CAP, sort: [{ field: 'qty', order: 'desc' }] } })).structuredContent as {
      rows: Array<{ qty: number }>;
      total: number;
    };
    expect(page.rows).to.have.length(AI_ROW_CAP);
    expect(page.total).to.equal(AI_ROW_CAP + 30);
    expect(page.rows[0]!.qty).to.equal(AI_ROW_CAP + 29);
    const filtered = (await call(alice, 'fwDataQuery', { model: 'Item', filter: { conditions: [{ field: 'qty', op: 'between', value: [10, 12] }] } })).structuredContent as {
      rows: unknown[];
    };
    expect(filtered.rows).to.have.length(3);
  });

  describe('who may connect', () => {
    it('refuses a request without a token, with a revoked token, and with a malformed one', async () => {
      await expectRefused({});
      const token = await tokenOf('alice');
      await tokens.revoke(token);
      await expectRefused({ token });
      await expectRefused({ Authorization: 'Bearer not-a-token' });
    });

    it('accepts a Bearer token and an open-API key exchanged for a token, and refuses a wrong secret', async () => {
      const bearer = await connect({ Authorization: `Bearer ${await tokenOf('alice')}` });
      expect((await bearer.listTools()).tools).to.have.length(7);
      const key = await store.openApis.create({ name: 'desktop', userId: users.alice.id });
      const wrong = await fetch(`${url}/fw-api/open-api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appId: key.record.appId, secret: 'not-the-secret' }),
      });
      expect(wrong.status).to.equal(401);
      const right = await fetch(`${url}/fw-api/open-api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appId: key.record.appId, secret: key.secret }),
      });
      expect(right.status).to.equal(200);
      const { token } = (await right.json()) as { token: string };
      expect(token).to.match(/^[A-Za-z0-9]{16}$/);
      const viaKey = await connect({ token });
      const models = (await call(viaKey, 'fwModelList')).structuredContent as { result: Array<{ name: string }> };
      expect(models.result.map((m) => m.name).sort()).to.deep.equal(['Item', 'Note']);
      const [log] = await store.loginLogs.list({ limit: 1 });
      expect(log).to.include({ account: users.alice.account, method: `open-api:${key.record.appId}` });
    });

    it('answers 405 METHOD_NOT_ALLOWED with Allow to GET, DELETE and PUT (the endpoint is stateless)', async () => {
      for (const method of ['GET', 'DELETE', 'PUT']) {
        const res = await fetch(`${url}/fw-api/ai/mcp`, { method, headers: { token: await tokenOf('alice') } });
        expect(res.status, method).to.equal(405);
        expect(res.headers.get('allow'), method).to.equal('POST');
        // The same code as every other route asked with the wrong method (docs/http-api.md).
        expect(((await res.json()) as { error: { code: string } }).error.code, method).to.equal('METHOD_NOT_ALLOWED');
      }
    });
  });

  async function expectRefused(headers: Record<string, string>): Promise<void> {
    let failed: unknown;
    try {
      await connect(headers);
    } catch (error) {
      failed = error;
    }
    expect(failed, JSON.stringify(headers)).to.be.instanceOf(Error);
    expect(String((failed as Error).message)).to.match(/401|Unauthorized|token/i);
    const raw = await fetch(`${url}/fw-api/ai/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).to.equal(401);
  }
});
