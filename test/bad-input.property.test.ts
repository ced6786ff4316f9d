// Issue 10 §4, as a property: whatever a client sends to any route of the data, login and AI APIs
// — generated bodies, queries, paths, headers — the answer is never a 5xx, every 4xx carries the
// Fw error body (the login's own 401 body aside), nothing unexpected reaches the app's error
// event, and the server keeps answering. Runs on SQLite always, and on PostgreSQL and MariaDB
// when their URLs are set (the same generated requests hit each dialect's own failure modes:
// NUL characters, integer ranges, date bounds, constraint violations).
import { expect } from 'chai';
import fc from 'fast-check';
import Koa from 'koa';
import request from 'supertest';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { defineModel } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';

const api = '/fw-api';
const RUNS = Number(process.env.FW_PROPERTY_RUNS ?? 1000);

const Tag = defineModel({ name: 'FzTag', table: 'fz_tag', fields: { label: { edit: { notNull: true } } } });
const Item = defineModel({
  name: 'FzItem',
  table: 'fz_item',
  power: { export: true, importable: true },
  fields: {
    title: { edit: { notNull: true }, rules: [{ type: 'length', max: 100 }] },
    body: { edit: { type: 'TEXTAREA' } },
    qty: { edit: { type: 'NUMBER', integer: true } },
    price: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 1e9 }] },
    day: { edit: { type: 'DATE' } },
    at: { edit: { type: 'DATETIME' } },
    done: { edit: { type: 'BOOLEAN', defaultValue: false } },
    kind: { edit: { type: 'CHOICE', choices: [{ value: 'a' }, { value: 'b' }] } },
    labels: { edit: { type: 'TAGS' } },
    secret: { edit: { type: 'PASSWORD' } },
    tag: { edit: { type: 'REFERENCE_TABLE', reference: { model: 'FzTag', labelField: 'label' } } },
    tags: { edit: { type: 'COLLECTION', collection: { model: 'FzTag', joinTable: 'fz_item_tag', ownKey: 'item_id', foreignKey: 'tag_id' } } },
  },
});

/** encodeURIComponent, with lone surrogates sent as the raw bytes a client could send. */
function enc(value: unknown): string {
  try {
    return encodeURIComponent(String(value));
  } catch {
    return '%ED%A0%80';
  }
}

const FIELDS = [...Object.keys(Item.fields), 'id'];
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'toLocaleString', '__defineGetter__', 'prototype'];
const MODELS = ['FzItem', 'FzTag', 'FwUser', 'FwRole', 'FwMenu', 'FwOrg', 'FwOpenApi', 'FwOperateLog', 'Nope', '__proto__', 'constructor', 'table'];

// Values aimed at the known soft spots, mixed with anything JSON can carry.
const nasty = fc.constantFrom<unknown>(
  '\u0000',
  'a\u0000b',
  '%00',
  '9'.repeat(30),
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  1e308,
  -0,
  '0001-01-01',
  '9999-12-31T23:59:59.999Z',
  '10000-01-01',
  '2026-02-30',
  '1000-01-01',
  'NaN',
  'Infinity',
  '',
  ' ',
  'x'.repeat(300),
  '\u202e\u200b',
  '\ud800',
  '%',
  '_',
  "'; drop table fz_item; --",
  [],
  {},
  [null],
  true,
  null,
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);
const key = fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 12 }));
const row = fc.dictionary(key, value, { maxKeys: 6 });
const id = fc.oneof(fc.integer({ min: 1, max: 5 }), nasty, fc.integer(), fc.string({ maxLength: 8 }));
const condition = fc.record(
  { field: key, op: fc.oneof(fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'like', 'in', 'isNull', 'notNull'), fc.string({ maxLength: 6 })), value },
  { requiredKeys: [] },
);
const tableBody = fc.record(
  {
    page: id,
    size: fc.oneof(fc.integer({ min: -5, max: 500 }), nasty),
    sort: fc.oneof(fc.array(fc.record({ field: key, order: fc.oneof(fc.constantFrom('asc', 'desc'), value) }), { maxLength: 3 }), value),
    conditions: fc.oneof(fc.array(condition, { maxLength: 4 }), value),
  },
  { requiredKeys: [] },
);
const segment = fc.oneof(fc.constantFrom(...MODELS), fc.string({ minLength: 1, maxLength: 10 }).map(enc), fc.constantFrom('%00', '..', '%2e%2e', 'FzItem%00'));
const anyBody = fc.oneof({ weight: 4, arbitrary: row }, value);

type Probe = { method: 'get' | 'post'; path: string; body?: unknown; raw?: string; contentType?: string; contentEncoding?: string; token: 'admin' | 'user' | 'none' | 'junk' };
const who = fc.constantFrom<Probe['token']>('admin', 'admin', 'user', 'none', 'junk');

const probe: fc.Arbitrary<Probe> = fc.oneof(
  fc
    .record({ m: fc.constantFrom('FzItem', 'FwUser', 'FwRole', 'FwMenu'), body: tableBody, token: who })
    .map(({ m, body, token }) => ({ method: 'post' as const, path: `/data/table/${m}`, body, token })),
  fc.record({ m: segment, body: tableBody, token: who }).map(({ m, body, token }) => ({ method: 'post' as const, path: `/data/table/${m}`, body, token })),
  fc
    .record({ m: fc.constantFrom('FzItem', 'FwUser', 'FwRole', 'FwMenu', 'FwOrg', 'FwOpenApi'), body: anyBody, token: who })
    .map(({ m, body, token }) => ({ method: 'post' as const, path: `/data/modify/${m}`, body, token })),
  fc
    .record({ m: fc.constantFrom('FzItem', 'FwUser', 'FwRole', 'FwMenu', 'FwOrg'), body: row, id, token: who })
    .map(({ m, body, id, token }) => ({ method: 'post' as const, path: `/data/modify/${m}/update`, body: { ...body, id }, token })),
  fc
    .record({ m: fc.constantFrom('FzItem', 'FwUser', 'FwMenu'), field: key, value, id, token: who })
    .map(({ m, field, value, id, token }) => ({ method: 'post' as const, path: `/data/modify/${m}/update-cell`, body: { id, field, value }, token })),
  fc
    .record({ m: fc.constantFrom('FzItem', 'FwUser', 'FwRole', 'FwMenu'), ids: fc.oneof(fc.array(id, { maxLength: 3 }), value), token: who })
    .map(({ m, ids, token }) => ({ method: 'post' as const, path: `/data/modify/${m}/delete`, body: { ids }, token })),
  fc
    .record({ m: fc.constantFrom('FzItem', 'FwUser', 'FwRole', 'FwMenu', 'FwOrg'), id, values: fc.option(row), token: who })
    .map(({ m, id, values, token }) => ({ method: 'post' as const, path: `/data/modify/${m}/copy`, body: values ? { id, values } : { id }, token })),
  fc.record({ m: segment, id: id.map(enc), token: who }).map(({ m, id, token }) => ({ method: 'get' as const, path: `/data/${m}/${id || 0}`, token })),
  fc.record({ m: segment, token: who }).map(({ m, token }) => ({ method: 'get' as const, path: `/build/${m}`, token })),
  fc.record({ m: fc.constantFrom('FzItem', 'FwUser'), id: id.map(enc), token: who }).map(({ m, id, token }) => ({ method: 'get' as const, path: `/data/print/${m}/${id}`, token })),
  fc
    .record({
      m: fc.constantFrom('FzItem', 'FwUser'),
      q: fc.record(
        {
          conditions: fc.oneof(
            fc.array(condition, { maxLength: 3 }).map((c) => JSON.stringify(c)),
            fc.string(),
          ),
          sort: fc.string({ maxLength: 20 }),
        },
        { requiredKeys: [] },
      ),
      token: who,
    })
    .map(({ m, q, token }) => ({
      method: 'get' as const,
      path: `/data/export/${m}?${new URLSearchParams(q as Record<string, string>).toString()}`,
      token,
    })),
  fc
    .record({
      header: fc.array(key, { minLength: 1, maxLength: 4 }),
      cells: fc.array(
        fc.array(
          value.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
          { maxLength: 4 },
        ),
        { maxLength: 4 },
      ),
      token: who,
    })
    .map(({ header, cells, token }) => ({
      method: 'post' as const,
      path: '/data/import/FzItem',
      raw: [header.join(','), ...cells.map((c) => c.map((x) => `"${String(x).replace(/"/g, '""')}"`).join(','))].join('\n'),
      contentType: 'text/csv',
      token,
    })),
  fc
    .record({
      path: fc.constantFrom('/data/table/FzItem', '/data/modify/FzItem', '/login', '/change-pwd', '/open-api/token', '/ai/mcp'),
      raw: fc.string({ unit: 'binary', maxLength: 60 }),
      contentType: fc.constantFrom('application/json', 'text/plain', 'text/csv', 'application/x-www-form-urlencoded', 'multipart/form-data'),
      token: who,
    })
    .map(({ path, raw, contentType, token }) => ({ method: 'post' as const, path, raw, contentType, token })),
  // A body in an encoding the readers do not take (issue 13: 415, never decoded).
  fc
    .record({
      path: fc.constantFrom('/data/table/FzItem', '/data/modify/FzItem', '/data/import/FzItem', '/login', '/ai/mcp'),
      raw: fc.string({ unit: 'binary', maxLength: 60 }),
      contentType: fc.constantFrom('application/json', 'text/csv', 'multipart/form-data; boundary=fz'),
      contentEncoding: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-junk', ''),
      token: who,
    })
    .map(({ path, raw, contentType, contentEncoding, token }) => ({ method: 'post' as const, path, raw, contentType, contentEncoding, token })),
  // Crafted multipart bodies for the import (issue 13): odd names and file names, parts without a
  // type, bodies cut short, a boundary that is not the declared one.
  fc
    .record({
      parts: fc.array(
        fc.record({
          name: fc.oneof(fc.constantFrom('file', 'a', '__proto__', 'constructor'), fc.string({ maxLength: 8 })),
          filename: fc.option(fc.oneof(fc.constantFrom('../../etc/passwd', 'a.xlsx', 'b.csv', '..\\..\\c.csv', '%00.csv', '"q".csv'), fc.string({ maxLength: 12 }))),
          type: fc.option(fc.constantFrom('text/csv', 'application/octet-stream', 'image/png', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')),
          content: fc.oneof(fc.constantFrom('title\nok', 'PK\u0003\u0004junk', ''), fc.string({ unit: 'binary', maxLength: 80 })),
        }),
        { maxLength: 4 },
      ),
      cut: fc.option(fc.nat(300)),
      boundary: fc.constantFrom('fzb', 'fzb', 'other', ''),
      token: who,
    })
    .map(({ parts, cut, boundary, token }) => {
      const raw =
        parts
          .map((p) => {
            const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename === null ? '' : `; filename="${p.filename}"`}`;
            return `--fzb\r\n${disposition}\r\n${p.type === null ? '' : `Content-Type: ${p.type}\r\n`}\r\n${p.content}\r\n`;
          })
          .join('') + '--fzb--\r\n';
      return {
        method: 'post' as const,
        path: '/data/import/FzItem',
        raw: cut === null ? raw : raw.slice(0, cut),
        contentType: boundary ? `multipart/form-data; boundary=${boundary}` : 'multipart/form-data',
        token,
      };
    }),
  fc
    .record({ account: value, pwd: value, verifyCode: fc.option(value), verifyCodeMark: fc.option(value) }, { requiredKeys: [] })
    .map((body) => ({ method: 'post' as const, path: '/login', body, token: 'none' as const })),
  fc.record({ pwd: value, newPwd: value, newPwd2: value }, { requiredKeys: [] }).map((body) => ({ method: 'post' as const, path: '/change-pwd', body, token: 'user' as const })),
  fc.record({ appId: value, secret: value }, { requiredKeys: [] }).map((body) => ({ method: 'post' as const, path: '/open-api/token', body, token: 'none' as const })),
  fc
    .record({ mark: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('%00', 'a'.repeat(70))), token: who })
    .map(({ mark, token }) => ({ method: 'get' as const, path: `/code-img?mark=${enc(mark)}`, token })),
  fc
    .record({ path: fc.constantFrom('/userinfo', '/menu', '/logout', '/data/table/FzItem', '/data/modify/FzItem/update', '/ai/mcp'), token: who })
    .map(({ path, token }) => ({ method: 'get' as const, path, token })),
  fc
    .record({
      name: fc.oneof(fc.constantFrom('fwModelList', 'fwSchema', 'fwDataQuery', 'findFwDataByPk', 'insertFwData', 'updateFwData', 'deleteFwData'), fc.string({ maxLength: 10 })),
      args: fc.record(
        { model: fc.oneof(fc.constantFrom(...MODELS), value), id, ids: fc.array(id, { maxLength: 3 }), data: anyBody, filter: fc.oneof(tableBody, value) },
        { requiredKeys: [] },
      ),
      token: who,
    })
    .map(({ name, args, token }) => ({
      method: 'post' as const,
      path: '/ai/mcp',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      token,
    })),
);

describeEachSql('every route answers bad input with a 4xx and the Fw error body (property)', (db, spec) => {
  let fw: FwAdmin;
  let agent: ReturnType<typeof request>;
  const tokens: Record<'admin' | 'user', string> = { admin: '', user: '' };
  const unexpected: unknown[] = [];

  before(async function () {
    this.timeout(120_000);
    const app = new Koa();
    app.on('error', (error: unknown) => unexpected.push(error));
    app.silent = true;
    fw = await fwAdmin(app, { db: db().url, models: [Tag, Item], config: { 'fw-app.pwdTransferEncrypt': false, 'fw-app.verifyCodeCount': 1000 } });
    app.use(fw.middleware);
    agent = request(app.callback());
    const admin = await fw.store.users.create({ account: 'fz-admin', password: 'fz-password-1', isAdmin: true, mustChangePassword: false });
    const user = await fw.store.users.create({ account: 'fz-user', password: 'fz-password-1', mustChangePassword: false });
    const role = await fw.store.roles.create({ code: 'fz-role', name: 'Fuzz' });
    const menus = (await fw.store.knex('fw_menu').whereNotNull('code').select('id', 'code')) as Array<{ id: number; code: string }>;
    await fw.store.roles.setMenus(
      role.id,
      menus.filter((m) => /^(FzItem|FzTag|FwUser|FwRole|FwMenu)/.test(m.code)).map((m) => Number(m.id)),
    );
    await fw.store.users.setRoles(user.id, [role.id]);
    tokens.admin = (await fw.tokens.loginToken({ id: admin.id, account: admin.account, isAdmin: true })).token;
    tokens.user = (await fw.tokens.loginToken({ id: user.id, account: user.account, isAdmin: false })).token;
    const tag = await agent.post(`${api}/data/modify/FzTag`).set('token', tokens.admin).send({ label: 't' }).expect(200);
    for (let i = 0; i < 3; i++)
      await agent
        .post(`${api}/data/modify/FzItem`)
        .set('token', tokens.admin)
        .send({ title: `item ${i}`, qty: i, tag: tag.body.id, tags: [tag.body.id] })
        .expect(200);
  });
  after(() => fw?.close());

  async function send(p: Probe): Promise<request.Response> {
    let req = p.method === 'get' ? agent.get(`${api}${p.path}`) : agent.post(`${api}${p.path}`);
    if (p.path === '/ai/mcp') req = req.set('Accept', 'application/json, text/event-stream');
    if (p.token === 'admin' || p.token === 'user') req = req.set('token', tokens[p.token]);
    if (p.token === 'junk') req = req.set('Authorization', 'Bearer \u00ffjunk-\u00e9\u00e9-token');
    if (p.contentEncoding) req = req.set('Content-Encoding', p.contentEncoding);
    if (p.raw !== undefined) return req.set('Content-Type', p.contentType ?? 'application/json').send(p.raw);
    if (p.method === 'post') return req.set('Content-Type', 'application/json').send(JSON.stringify(p.body ?? null));
    return req;
  }

  it(`never a 5xx, always the error body, on ${spec.label}`, async function () {
    this.timeout(600_000);
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const before = unexpected.length;
        const res = await send(p);
        const where = `${p.method.toUpperCase()} ${p.path} → ${res.status} ${String(res.text ?? '').slice(0, 300)}`;
        expect(res.status, where).to.be.below(500);
        if (res.status >= 400 && !(p.path === '/login' && res.status === 401)) {
          expect(res.body?.error?.code, where).to.match(/^[A-Z][A-Z0-9_]+$/);
          expect(res.body.error.message, where).to.be.a('string');
        }
        if (p.path === '/ai/mcp' && res.status === 200 && res.body?.result?.isError) {
          // A tool failure is an MCP result carrying the Fw error body; never an internal one.
          const code = res.body.result.structuredContent?.error?.code as string;
          expect(code, where).to.match(/^[A-Z][A-Z0-9_]+$/);
          expect(code, where).to.not.equal('INTERNAL');
        }
        expect(unexpected.slice(before).map(String), where).to.deep.equal([]);
      }),
      { numRuns: RUNS, ...(process.env.FW_PROPERTY_SEED ? { seed: Number(process.env.FW_PROPERTY_SEED) } : {}) },
    );
    // Still answering. (The probes may have changed or deleted the accounts they ran as, so ask
    // with a fresh administrator.)
    const checker = await fw.store.users.create({ account: `fz-check-${Date.now()}`, password: 'fz-password-1', isAdmin: true, mustChangePassword: false });
    const token = (await fw.tokens.loginToken({ id: checker.id, account: checker.account, isAdmin: true })).token;
    const still = await agent.post(`${api}/data/table/FzTag`).set('token', token).send({}).expect(200);
    expect(still.body.total).to.be.at.least(1);
  });
});
