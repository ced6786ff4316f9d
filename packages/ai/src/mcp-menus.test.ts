import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BUILTIN_MODELS, createRegistry, loadConfig, type FwUser } from '@fw/core';
import { fwData } from '@fw/data';
import { fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { fwMcp } from './mcp.js';

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
type Refusal = { error: { code: string; details?: Array<{ path?: string }> } };

// Issue 19 §1 through the AI tools: FwMenu is open to AI (the built-in default), so an AI client
// acting for a menu manager must meet the same rules as the data API — who may set a menu's type
// or value, and where a page may point.
describeEachSql('fwMcp(options): menus through the AI tools (issue 19 §1)', (db) => {
  let store: FwStore;
  let tokens: FwTokenService;
  let server: Server;
  let url: string;
  let admin: FwUser;
  let erin: FwUser;
  const menu: Record<string, number> = {};
  const clients: Client[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS]);
    for (const model of registry.list()) await store.menus.createModelMenu(model);
    const rows: Array<{ id: unknown; code: string }> = await store.knex('fw_menu').whereNotNull('code').select('id', 'code');
    for (const r of rows) menu[r.code] = Number(r.id);
    const stamp = Date.now().toString(36);
    const make = async (account: string, isAdmin = false): Promise<FwUser> => {
      const row = await store.users.create({ account: `${account}-${stamp}`, password: 'x-password-1', isAdmin, mustChangePassword: false });
      return { id: row.id, account: row.account, isAdmin };
    };
    admin = await make('admin', true);
    erin = await make('erin');
    const role = await store.roles.create({ code: `menus-${stamp}`, name: 'Menu manager' });
    await store.roles.setMenus(
      role.id,
      Object.keys(menu)
        .filter((code) => /^FwMenu(@|$)/.test(code))
        .map((code) => menu[code]!),
    );
    await store.users.setRoles(erin.id, [role.id]);
    await store.grants.bump();
    const config = loadConfig({ env: false });
    tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    const data = fwData({ store, tokens, registry, config });
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

  async function client(user: FwUser): Promise<{ client: Client; token: string }> {
    const { token } = await tokens.loginToken(user, tokens.generateToken());
    const c = new Client({ name: 'fw-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/fw-api/ai/mcp`), { requestInit: { headers: { token } } }));
    clients.push(c);
    return { client: c, token };
  }
  const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as Result;
  const refusal = (r: Result) => {
    expect(r.isError, JSON.stringify(r)).to.equal(true);
    return (r.structuredContent as Refusal).error;
  };
  const menuCount = async () => Number(((await store.knex('fw_menu').count({ n: '*' }))[0] as { n: unknown }).n);

  it('a menu manager’s AI client neither adds a page to /auth.html with their token nor retargets the "Users" entry', async () => {
    const { client: erinAi, token } = await client(erin);
    const users = await store.knex('fw_menu').where('id', menu['FwUser']).first();
    const before = await menuCount();
    const added = refusal(await call(erinAi, 'insertFwData', { model: 'FwMenu', data: { name: 'Users', type: 'page', value: `/auth.html?token=${token}` } }));
    expect(added.code).to.equal('GRANT_DENIED');
    expect(added.details?.map((d) => d.path)).to.include('value');
    const updated = refusal(await call(erinAi, 'updateFwData', { model: 'FwMenu', id: menu['FwUser'], data: { type: 'page', value: `/auth.html?token=${token}` } }));
    expect(updated.code).to.equal('GRANT_DENIED');
    const own = refusal(await call(erinAi, 'updateFwData', { model: 'FwMenu', id: menu['FwMenu'], data: { value: 'FwUser' } }));
    expect(own.code).to.equal('GRANT_DENIED');
    expect(own.details?.map((d) => d.path)).to.deep.equal(['value']);
    expect(await menuCount()).to.equal(before);
    expect(await store.knex('fw_menu').where('id', menu['FwUser']).first()).to.deep.equal(users);
  });

  it('an administrator’s AI client is held to where a page may point', async () => {
    const { client: adminAi } = await client(admin);
    for (const value of ['/auth.html?token=abc', '/%61uth.html', 'https://elsewhere.example/login', '//elsewhere.example', 'javascript:alert(1)']) {
      const error = refusal(await call(adminAi, 'insertFwData', { model: 'FwMenu', data: { name: 'Bad', type: 'page', value } }));
      expect(error.code, value).to.equal('VALIDATION_FAILED');
      expect(error.details?.map((d) => d.path)).to.deep.equal(['value']);
    }
    const good = await call(adminAi, 'insertFwData', { model: 'FwMenu', data: { name: 'Reports', type: 'page', value: '/reports' } });
    expect(good.isError, JSON.stringify(good)).to.not.equal(true);
    const id = (good.structuredContent as { id: number }).id;
    const moved = refusal(await call(adminAi, 'updateFwData', { model: 'FwMenu', id, data: { value: '/auth.html?token=abc' } }));
    expect(moved.code).to.equal('VALIDATION_FAILED');
    expect((await store.knex('fw_menu').where('id', id).first()).value).to.equal('/reports');
  });
});
