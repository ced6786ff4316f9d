import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, EditType, FwDefinitionError, createRegistry, defineModel, loadConfig, type FieldDefinitionInput } from '@fw/core';
import { mcpRoutes } from '@fw/ai';
import { describeRoutes } from '@fw/http';
import { activityRoutes, loginRoutes, prefRoutes, sessionRoutes } from '@fw/login';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase, thrown } from '@fw/test-utils';
import { fwAdmin, type FwAdminOptions } from './fw-admin.js';
import { openApiDocument, type OpenApiDocument } from './openapi.js';
import { fwOpenApi, openApiRoutes } from './openapi-route.js';

// ATTACHMENT arrives with the attachments work; described either way, tested when the core has it.
const hasAttachment = 'ATTACHMENT' in EditType;
const attachment: Record<string, FieldDefinitionInput> = hasAttachment
  ? {
      cover: { edit: { type: 'ATTACHMENT' as never, attachment: { image: true } } as never },
      papers: { edit: { type: 'ATTACHMENT' as never, attachment: { multiple: true } } as never },
    }
  : {};

const Book = defineModel({
  name: 'Book',
  table: 'oa_book',
  power: { export: true, importable: true },
  fields: {
    title: { edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 200 }] },
    genre: { edit: { type: 'CHOICE', choices: [{ value: 'novel', label: 'Novel' }, { value: 'essay' }] } },
    price: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    isbn: { rules: [{ type: 'pattern', pattern: /^[0-9]{10}$/ }] },
    pages: { edit: { type: 'NUMBER', integer: true, notNull: true, defaultValue: 1 } },
    published: { edit: { type: 'DATE' } },
    seen: { edit: { type: 'DATETIME' } },
    inPrint: { edit: { type: 'BOOLEAN' } },
    tags: { edit: { type: 'TAGS' } },
    prizes: { edit: { type: 'MULTI_CHOICE', choices: [{ value: 'hugo' }, { value: 'nebula' }] } },
    secret: { edit: { type: 'PASSWORD', hashed: false } },
    note: { edit: { type: 'TEXTAREA', readonly: true } },
    ...attachment,
  },
});
const Locked = defineModel({ name: 'Locked', table: 'oa_locked', power: { print: false, cellEdit: false, delete: false }, fields: { name: { edit: {} } } });

function describeApp(options: Partial<Parameters<typeof openApiDocument>[0]> = {}): OpenApiDocument {
  return openApiDocument({ registry: createRegistry([...BUILTIN_MODELS, Book, Locked]), config: loadConfig({ values: {} }), ...options });
}

describe('openApiDocument(options)', () => {
  it('is a valid OpenAPI 3.1 document (standard validator), every schema compiling as JSON Schema 2020-12', async () => {
    for (const openapi of ['token', 'open', false] as const) {
      const doc = describeApp({ openapi });
      const result = await new Validator().validate(doc);
      expect(result.errors ?? [], `openapi: ${String(openapi)}`).to.deep.equal([]);
      expect(result.valid).to.equal(true);
    }
    const doc = describeApp();
    // Each component compiles, with the whole components object as its reference base.
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'fw:doc', components: doc.components } as never);
    for (const name of Object.keys((doc.components as { schemas: object }).schemas)) ajv.compile({ $ref: `fw:doc#/components/schemas/${name}` });
    // A document that is not one is refused by the same validator (so the check above has teeth).
    expect((await new Validator().validate({ ...doc, paths: { '/x': { get: { responses: { 200: { content: 5 } } } } } })).valid).to.equal(false);
  });

  it('describes each model: field types, required fields, choices as enums, secrets kept out of answers', () => {
    const doc = describeApp();
    const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required?: string[] }> }).schemas;
    const row = schemas.BookRow!;
    expect(row.properties.genre)
      .to.include({ title: 'genre' })
      .and.to.deep.include({ enum: ['novel', 'essay', null] });
    expect(row.properties.price).to.deep.include({ type: ['number', 'null'] });
    expect(row.properties.pages).to.deep.include({ type: ['integer', 'null'] });
    expect(row.properties.published).to.deep.include({ type: ['string', 'null'], format: 'date' });
    expect(row.properties.seen).to.deep.include({ format: 'date-time' });
    expect(row.properties.inPrint).to.deep.include({ type: ['boolean', 'null'] });
    expect(row.properties.prizes).to.deep.include({ type: ['array', 'null'], items: { enum: ['hugo', 'nebula'] } });
    expect(row.properties.id).to.deep.include({ type: 'integer' });
    expect(row.properties).to.not.have.property('secret');
    expect(row.required).to.deep.equal(['id']);
    // The add body: notNull without a default is required; a default or a read-only field is not.
    expect(schemas.BookInput!.required).to.deep.equal(['title']);
    expect(schemas.BookInput!.properties).to.have.property('secret');
    expect(schemas.BookInput!.properties.note).to.deep.include({ readOnly: true });
    // Declared rules bound the bodies (not the answers: rows stored under older rules still read).
    expect(schemas.BookInput!.properties.title).to.deep.include({ minLength: 1, maxLength: 200 });
    expect(schemas.BookInput!.properties.price).to.deep.include({ minimum: 0, maximum: 10000 });
    expect(schemas.BookInput!.properties.isbn).to.deep.include({ pattern: '^[0-9]{10}$' });
    expect(row.properties.title).to.not.have.property('maxLength');
    expect(schemas.BookUpdate!.required).to.deep.equal(['id']);
    expect(schemas.BookCell!.properties.field).to.deep.equal({ enum: ['title', 'genre', 'price', 'isbn', 'pages', 'published', 'seen', 'inPrint', 'tags', 'prizes'] });
    expect(schemas.FwUserRow!.properties).to.not.have.property('password');
    expect(schemas.FwError!.required).to.deep.equal(['error']);
    if (hasAttachment) {
      expect(row.properties.cover).to.deep.include({ type: ['array', 'null'], items: { $ref: '#/components/schemas/FwAttachment' } });
      expect(schemas.BookCell!.properties.field!.enum).to.not.include('cover');
    }
  });

  it('lists every route the declared power lets answer, with its status codes and security', () => {
    const doc = describeApp({ openapi: 'token' });
    const paths = doc.paths;
    for (const path of [
      '/login',
      '/logout',
      '/change-pwd',
      '/code-img',
      '/userinfo',
      '/menu',
      '/login-settings',
      '/open-api/token',
      '/sessions',
      '/sessions/{id}',
      '/sessions/revoke-others',
      '/sessions/online',
      '/my/activity',
      '/ai/mcp',
      '/openapi.json',
    ]) {
      expect(paths, path).to.have.property(path);
    }
    expect(Object.keys(paths['/logout']!)).to.deep.equal(['get', 'post']);
    for (const path of [
      '/build/Book',
      '/data/table/Book',
      '/data/Book/{id}',
      '/data/modify/Book',
      '/data/modify/Book/update',
      '/data/modify/Book/update-cell',
      '/data/modify/Book/delete',
      '/data/modify/Book/copy',
      '/data/export/Book',
      '/data/import/Book',
      '/data/import-template/Book',
      '/data/print/Book/{id}',
      '/data/print.css',
      '/data/reference/FwUser/{field}',
      '/power/grantable',
      '/power/assignable',
      '/power/explain/Book',
      // Issue 23: saved views and the trash, from their own declarations.
      '/views/Book',
      '/views/Book/{id}',
      '/data/trash/Book',
      '/data/modify/Book/undelete',
    ]) {
      expect(paths, path).to.have.property(path);
    }
    // Declared off: never anything but 403, so not described.
    for (const path of [
      '/data/print/Locked/{id}',
      '/data/modify/Locked/update-cell',
      '/data/modify/Locked/delete',
      '/data/export/Locked',
      '/data/import/Locked',
      '/data/reference/Book/{field}',
    ]) {
      expect(paths, path).to.not.have.property(path);
    }
    const exportOp = paths['/data/export/Book']!.get as { parameters: Array<{ name: string; schema: unknown }>; security: unknown[]; responses: Record<string, unknown> };
    expect(exportOp.parameters.find((p) => p.name === 'format')!.schema).to.deep.equal({ enum: ['csv', 'xlsx'], default: 'csv' });
    expect(exportOp.security).to.deep.include({ fwQueryToken: [] });
    expect(Object.keys(exportOp.responses)).to.deep.equal(['200', '400', '401', '403', '500', '503']);
    const importOp = paths['/data/import/Book']!.post as { requestBody: { content: object } };
    expect(Object.keys(importOp.requestBody.content)).to.include.members(['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'multipart/form-data']);
    expect((paths['/login']!.post as { security: unknown[] }).security).to.deep.equal([]);
    expect(doc.security).to.deep.equal([{ fwToken: [] }, { fwBearer: [] }]);
    expect(doc.servers).to.deep.equal([{ url: '/fw-api' }]);
    if (hasAttachment) {
      expect(paths).to.have.property('/data/upload/Book/{field}');
      expect(paths).to.have.property('/data/file/Book/{field}/{rowId}/{fileId}');
    }
    const bare = describeApp({ login: false, ai: false });
    expect(bare.paths).to.not.have.property('/login');
    expect(bare.paths).to.not.have.property('/ai/mcp');
    expect(bare.paths).to.not.have.property('/openapi.json');
  });

  it('describes the login, session, preference, activity, MCP and openapi routes from their declarations', async () => {
    const doc = describeApp({ openapi: 'open' });
    const declared = describeRoutes([...loginRoutes, ...sessionRoutes, ...activityRoutes, ...prefRoutes, ...mcpRoutes, ...openApiRoutes.open]);
    for (const [path, operations] of Object.entries(declared)) expect(doc.paths[path], path).to.deep.equal(operations);
    expect((describeApp({ openapi: 'token' }).paths['/openapi.json'] as Record<string, unknown>).get).to.deep.equal(describeRoutes(openApiRoutes.token)['/openapi.json']!.get);
    // fwOpenApi serves what its declaration says: GET (and HEAD) of the path, no other method.
    const agent = request(new Koa().use(fwOpenApi({ document: doc, mode: 'open', config: loadConfig({ values: {} }) })).callback());
    for (const route of openApiRoutes.open) {
      expect((await agent[route.method](`/fw-api${route.path}`).expect(200)).body.openapi).to.equal('3.1.0');
      await agent.head(`/fw-api${route.path}`).expect(200);
      expect((await agent.delete(`/fw-api${route.path}`).expect(405)).headers.allow).to.equal('GET, HEAD');
    }
  });

  it('takes the server URL and title from the configuration', () => {
    const doc = describeApp({ config: loadConfig({ values: { 'fw-app.apiPrefix': '/api/v2', 'fw-app.title': 'Shop' } }) });
    expect(doc.servers).to.deep.equal([{ url: '/api/v2' }]);
    expect(doc.info).to.include({ title: 'Shop API', version: '0.1.0' });
  });

  it('refuses a missing registry', () => {
    expect(thrown(() => openApiDocument({} as never), FwDefinitionError).key).to.equal('openApiDocument.registry');
    expect(thrown(() => fwOpenApi({ document: {} as never }), FwDefinitionError).key).to.equal('fwOpenApi.document');
    expect(thrown(() => fwOpenApi({ document: describeApp() }), FwDefinitionError).key).to.equal('fwOpenApi.tokens');
  });
});

describe('fwAdmin: GET /fw-api/openapi.json', () => {
  async function setup(openapi?: FwAdminOptions['openapi']) {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, {
      db: db.url,
      models: [Book],
      ui: false,
      ...(openapi !== undefined ? { openapi } : {}),
      admin: { account: 'admin', password: 'harbour-lights-1' },
    });
    app.use(fw.middleware);
    // The administrator has changed the first password (a first one reaches only the password change).
    await fw.store.users.setPassword(fw.firstAdmin!.id, 'harbour-lights-1');
    const agent = request(app.callback());
    const token = (
      await agent
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('harbour-lights-1') })
        .expect(200)
    ).body.token as string;
    return { agent, token, cleanup: async () => (await fw.close(), await db.drop()) };
  }

  it('by default answers signed-in callers only', async () => {
    const { agent, token, cleanup } = await setup();
    try {
      const refused = await agent.get('/fw-api/openapi.json').expect(401);
      expect(refused.body.error.code).to.equal('UNAUTHENTICATED');
      expect((await agent.get('/fw-api/openapi.json').set('token', 'x'.repeat(16)).expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
      const answer = await agent
        .get('/fw-api/openapi.json')
        .set('Authorization', `Bearer ${token}`)
        .expect(200)
        .expect('Content-Type', /application\/json/);
      expect(answer.headers['cache-control']).to.equal('no-store');
      expect(answer.body.openapi).to.equal('3.1.0');
      expect(answer.body.paths).to.have.property('/data/table/Book');
      expect((answer.body.paths['/openapi.json'].get as { security: unknown[] }).security).to.deep.equal([{ fwToken: [] }, { fwBearer: [] }]);
      expect((await agent.post('/fw-api/openapi.json').set('token', token).expect(405)).headers.allow).to.equal('GET, HEAD');
    } finally {
      await cleanup();
    }
  });

  it('is served under the configured API prefix', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, { db: db.url, models: [Book], ui: false, openapi: 'open', config: { 'fw-app.apiPrefix': '/api' } });
    app.use(fw.middleware);
    try {
      const answer = await request(app.callback()).get('/api/openapi.json').expect(200);
      expect(answer.body.servers).to.deep.equal([{ url: '/api' }]);
      await request(app.callback()).get('/fw-api/openapi.json').expect(404);
    } finally {
      await fw.close();
      await db.drop();
    }
  });

  it("'open' answers anyone; false serves nothing", async () => {
    const open = await setup('open');
    try {
      const answer = await open.agent.get('/fw-api/openapi.json').expect(200);
      expect(answer.body.paths['/openapi.json'].get.security).to.deep.equal([]);
    } finally {
      await open.cleanup();
    }
    const off = await setup(false);
    try {
      expect((await off.agent.get('/fw-api/openapi.json').set('token', off.token).expect(404)).body.error.code).to.equal('NOT_FOUND');
    } finally {
      await off.cleanup();
    }
  });

  it('refuses an unknown mode at start-up', async () => {
    let error: unknown;
    await fwAdmin(new Koa(), { db: 'sqlite::memory:', openapi: 'public' as never }).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(FwDefinitionError);
    expect((error as FwDefinitionError).key).to.equal('fwAdmin.openapi');
  });
});
