// The generated description against real answers: a signed-in walk through the routes of a real
// fwAdmin app, every JSON answer (successes and refusals) validated with the schema the document
// gives for its path, method and status. A route whose answer drifts from its declaration fails
// here, and so does an answer with a status the route does not declare.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';
import type { OpenApiDocument } from './openapi.js';

const Book = defineModel({
  name: 'Book',
  table: 'oaa_book',
  power: { export: true, importable: true },
  fields: {
    title: { edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 200 }] },
    genre: { edit: { type: 'CHOICE', choices: [{ value: 'novel' }, { value: 'essay' }] } },
    price: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    published: { edit: { type: 'DATE' } },
    inPrint: { edit: { type: 'BOOLEAN' } },
    tags: { edit: { type: 'TAGS' } },
    secret: { edit: { type: 'PASSWORD', hashed: false } },
  },
});

type Checked = { method: string; template: string; status: number };

/** Validates answers against the document; remembers what it checked. */
class AnswerChecker {
  readonly checked: Checked[] = [];
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly doc: OpenApiDocument) {
    addFormats.default(this.#ajv);
    this.#ajv.addSchema({ $id: 'fw:doc', components: doc.components } as never);
    // Literal paths before templated ones (`/sessions/online` before `/sessions/{id}`).
    this.#templates = Object.keys(doc.paths)
      .sort((a, b) => a.split('{').length - b.split('{').length)
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
  }

  check(method: string, path: string, status: number, body: unknown): void {
    const bare = path.replace(/^\/fw-api/, '').split('?')[0]!;
    const found = this.#templates.find((t) => t.pattern.test(bare));
    expect(found, `${method} ${bare} is not in the document`).to.not.equal(undefined);
    const op = this.doc.paths[found!.template]![method.toLowerCase()] as
      { responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> } | undefined;
    expect(op, `${method} ${found!.template} is not in the document`).to.not.equal(undefined);
    let answer = op!.responses[String(status)];
    expect(answer, `${method} ${found!.template} does not declare status ${status}`).to.not.equal(undefined);
    if (answer!.$ref) answer = (this.doc.components as { responses: Record<string, typeof answer> }).responses[answer!.$ref.split('/').pop()!];
    const schema = answer!.content?.['application/json']?.schema;
    if (schema !== undefined) {
      const key = `${method} ${found!.template} ${status}`;
      let validate = this.#compiled.get(key);
      if (!validate) {
        validate = this.#ajv.compile({ $ref: '#/$defs/answer', $defs: { answer: rebase(schema) } });
        this.#compiled.set(key, validate);
      }
      expect(validate(body), `${key}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body).slice(0, 400)}`).to.equal(true);
    }
    this.checked.push({ method, template: found!.template, status });
  }
}

/** Points the document's `#/components/...` references at the schema registered as `fw:doc`. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"fw:doc#/components/'));
}

describe('the OpenAPI description against real answers', function () {
  this.timeout(30_000);

  it('every answer of a signed-in walk through the routes fits the schema declared for its status', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, { db: db.url, models: [Book], ui: false, openapi: 'token', admin: { account: 'admin', password: 'harbour-lights-1' } });
    app.use(fw.middleware);
    try {
      await fw.store.users.setPassword(fw.firstAdmin!.id, 'harbour-lights-1');
      const agent = request(app.callback());
      // Login answers are checked too (the document comes after it, with the token).
      const login = await agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword('harbour-lights-1') });
      const token = login.body.token as string;
      const doc = (await agent.get('/fw-api/openapi.json').set('token', token).expect(200)).body as OpenApiDocument;
      const checker = new AnswerChecker(doc);
      checker.check('POST', '/fw-api/login', login.status, login.body);
      const refused = await agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword('wrong-password-1') });
      checker.check('POST', '/fw-api/login', refused.status, refused.body);

      const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = { token }) => {
        let req = agent[method.toLowerCase() as 'get'](path);
        for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
        const res = body === undefined ? await req : await req.send(body as object);
        checker.check(method, path, res.status, res.body);
        return res;
      };

      for (const path of [
        '/fw-api/userinfo',
        '/fw-api/menu',
        '/fw-api/login-settings',
        '/fw-api/sessions',
        '/fw-api/my/activity',
        '/fw-api/power/grantable',
        '/fw-api/power/assignable',
        '/fw-api/power/explain/Book',
        '/fw-api/build/Book',
        '/fw-api/build/FwUser',
      ]) {
        expect((await call('GET', path)).status, path).to.equal(200);
      }
      const added = await call('POST', '/fw-api/data/modify/Book', {
        title: 'Dune',
        genre: 'novel',
        price: 12.5,
        published: '1965-08-01',
        inPrint: true,
        tags: ['sf'],
        secret: 'spice',
      });
      expect(added.status).to.equal(200);
      const id = added.body.id as number;
      await call('POST', '/fw-api/data/modify/Book', { title: 'Emma', genre: 'novel' });
      expect((await call('POST', '/fw-api/data/table/Book', { page: 1, size: 10, sort: [{ field: 'title', order: 'asc' }] })).body.rows).to.have.length(2);
      await call('POST', '/fw-api/data/table/FwUser', {});
      await call('POST', '/fw-api/data/table/FwLoginLog', { size: 5 });
      const details = await call('GET', `/fw-api/data/Book/${id}`);
      expect(details.status).to.equal(200);
      await call('POST', '/fw-api/data/modify/Book/update', { id, title: 'Dune Messiah' }, { token, 'If-Match': details.headers.etag as string });
      await call('POST', '/fw-api/data/modify/Book/update', { id, title: 'Stale' }, { token, 'If-Match': details.headers.etag as string });
      await call('POST', '/fw-api/data/modify/Book/update-cell', { id, field: 'price', value: 14 });
      const copied = await call('POST', '/fw-api/data/modify/Book/copy', { id, values: { title: 'Dune (copy)' } });
      await call('POST', '/fw-api/data/reference/FwUser/roles', { search: '' });
      await call('PUT', '/fw-api/prefs/table:Book', { value: { order: ['title', 'price'], density: 'small' } });
      await call('GET', '/fw-api/prefs/table:Book');
      await call('DELETE', '/fw-api/prefs/table:Book');
      await call('POST', '/fw-api/data/modify/Book/delete', { ids: [copied.body.id] });
      // Issue 23: bulk edit, history, restore, saved views, the trash.
      expect((await call('POST', '/fw-api/data/modify/Book/update-many', { ids: [id], values: { price: 20 } })).status).to.equal(200);
      expect((await call('POST', '/fw-api/data/modify/Book/update-many', { rows: [{ id, values: { price: 21 } }], dryRun: true })).body.dryRun).to.equal(true);
      expect((await call('POST', '/fw-api/data/modify/Book/update-many', { ids: [id], values: { price: -5 } })).status).to.equal(422);
      const history = await call('GET', `/fw-api/data/Book/${id}/history?page=1&size=5`);
      expect(history.status).to.equal(200);
      const entry = (history.body.rows as Array<{ id: number; action: string }>).find((r) => r.action === 'update')!;
      expect((await call('POST', `/fw-api/data/Book/${id}/restore`, { entry: entry.id })).status).to.equal(200);
      const view = await call('POST', '/fw-api/views/Book', {
        name: 'Cheap',
        conditions: [
          {
            or: [
              { field: 'price', op: 'lt', value: 5 },
              { field: 'genre', value: 'essay' },
            ],
          },
        ],
        sort: [{ field: 'title', order: 'asc' }],
      });
      expect(view.status).to.equal(200);
      expect((await call('GET', '/fw-api/views/Book')).body.views).to.have.length(1);
      await call('DELETE', `/fw-api/views/Book/${view.body.id}`);
      const trash = await call('POST', '/fw-api/data/trash/Book', { page: 1, size: 10 });
      expect(trash.body.rows).to.have.length(1);
      expect((await call('POST', '/fw-api/data/modify/Book/undelete', { ids: [copied.body.id] })).status).to.equal(200);

      // Refusals: each with the Fw error body the document names for that status.
      expect((await call('POST', '/fw-api/data/table/Book', { page: 'x' })).status).to.equal(400);
      expect((await call('POST', '/fw-api/data/modify/Book', { title: '' })).status).to.equal(422);
      expect((await call('GET', '/fw-api/data/Book/999999')).status).to.equal(404);
      expect((await call('GET', '/fw-api/userinfo', undefined, {})).status).to.equal(401);
      expect((await call('POST', '/fw-api/data/modify/Book/update-cell', { id, field: 'nope', value: 1 })).status).to.be.oneOf([400, 403]);
      expect(
        (await call('POST', '/fw-api/change-pwd', { pwd: encodePassword('wrong-password-1'), newPwd: encodePassword('another-pass-9'), newPwd2: encodePassword('another-pass-9') }))
          .status,
      ).to.be.oneOf([400, 422]);
      await call('POST', '/fw-api/sessions/revoke-others', {});
      expect((await call('POST', '/fw-api/logout', {})).status).to.equal(200);

      // The checker has teeth: a body off its schema, or an undeclared status, fails it.
      expect(() => checker.check('GET', '/fw-api/userinfo', 200, { id: 'one' })).to.throw(/GET \/userinfo 200/);
      expect(() => checker.check('GET', '/fw-api/userinfo', 409, {})).to.throw(/does not declare status 409/);
      expect(() => checker.check('GET', '/fw-api/nowhere', 200, {})).to.throw(/not in the document/);

      const statuses = new Set(checker.checked.map((c) => c.status));
      expect([...statuses].sort()).to.include.members([200, 400, 401, 404, 409, 422]);
      expect(checker.checked.length).to.be.greaterThan(30);
    } finally {
      await fw.close();
      await db.drop();
    }
  });
});
