import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwError, defineModel, isObject } from '@fw/core';
import { defineRoute, describeRoutes, mountRoutes, readJsonBody, routeMiddleware, shape, type FwRoute } from './index.js';

interface Scope {
  flag: string;
}
interface Who {
  name: string;
}
const NOTE = shape<{ text: string }, Scope>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, (value, scope) => {
  if (!isObject(value) || typeof value.text !== 'string') throw new FwError('BAD_REQUEST', `The body must be { text } (${scope.flag})`);
  return { text: value.text };
});

const routes: Array<FwRoute<{ prefix: string }, unknown, Scope, Who>> = [
  defineRoute<{ prefix: string }, { text: string }, Scope, Who>({
    method: 'post',
    path: '/notes/{fw}',
    operationId: 'addNote',
    summary: (model) => `Add a note to ${model.name}`,
    security: 'token',
    perModel: { describedFor: (model) => model.power.add },
    body: { shape: NOTE, required: true },
    answers: { 200: { description: 'The note', json: { type: 'object' } } },
    errors: [400, 401, 403],
    handle: (_ctx, { deps, body, who, params }) => ({ text: `${deps.prefix}${body.text}`, by: who.name, model: params.fw }),
  }),
  defineRoute<{ prefix: string }, { text: string } | undefined, Scope, Who>({
    method: 'post',
    path: '/echo',
    operationId: 'echo',
    summary: 'Echo an optional note',
    security: 'open',
    body: {
      shape: shape<{ text: string } | undefined, Scope>({ type: 'object' }, (value, scope) => (value === undefined ? undefined : NOTE.parse(value, scope))),
      required: false,
    },
    answers: { 200: { description: 'The note or null', json: { type: ['object', 'null'] } } },
    errors: [400],
    handle: (_ctx, { body, who }) => ({ body: body ?? null, who: who ?? null }),
  }),
];

function app(steps: string[]) {
  const router = new Router();
  mountRoutes(router, routes, {
    deps: { prefix: '> ' },
    readJson: (ctx) => (steps.push('json'), readJsonBody(ctx, { limit: 64 })),
    who: async (ctx) => {
      steps.push('who');
      if (ctx.get('token') !== 'ok') throw new FwError('UNAUTHENTICATED', 'No token');
      return { name: 'ann' };
    },
    scope: (ctx) => {
      steps.push('scope');
      if (ctx.params.fw === 'Locked') throw new FwError('POWER_DENIED', 'Not permitted');
      return { flag: 'scoped' };
    },
  });
  const koa = new Koa();
  koa.use(router.routes());
  return request(koa.callback());
}

describe('route contracts: mountRoutes', () => {
  it('runs the caller, the body reader, the scope, the shape, then the handler with typed input', async () => {
    const steps: string[] = [];
    const agent = app(steps);
    const ok = await agent.post('/notes/Book').set('token', 'ok').send({ text: 'hi' }).expect(200);
    expect(ok.body).to.deep.equal({ text: '> hi', by: 'ann', model: 'Book' });
    expect(steps).to.deep.equal(['who', 'json', 'scope']);
    // Each stage's refusal comes from that stage, and later stages never run.
    steps.length = 0;
    expect((await agent.post('/notes/Book').send({ text: 'hi' }).expect(401)).body.error.code).to.equal('UNAUTHENTICATED');
    expect(steps).to.deep.equal(['who']);
    steps.length = 0;
    expect((await agent.post('/notes/Book').set('token', 'ok').set('content-type', 'application/json').send('{"text":').expect(400)).body.error.code).to.equal('INVALID_JSON');
    expect(steps).to.deep.equal(['who', 'json']);
    expect(
      (
        await agent
          .post('/notes/Book')
          .set('token', 'ok')
          .send({ text: 'x'.repeat(100) })
          .expect(413)
      ).body.error.code,
    ).to.equal('PAYLOAD_TOO_LARGE');
    steps.length = 0;
    expect((await agent.post('/notes/Locked').set('token', 'ok').send({ text: 'hi' }).expect(403)).body.error.code).to.equal('POWER_DENIED');
    expect(steps).to.deep.equal(['who', 'json', 'scope']);
    const bad = await agent.post('/notes/Book').set('token', 'ok').send({ text: 5 }).expect(400);
    expect(bad.body.error.message).to.equal('The body must be { text } (scoped)');
    // Every answer, refusals included, carries the Fw API headers.
    expect(bad.headers['cache-control']).to.equal('no-store');
  });

  it('skips the caller on open routes and passes an absent optional body as undefined', async () => {
    const steps: string[] = [];
    const agent = app(steps);
    expect((await agent.post('/echo').expect(200)).body).to.deep.equal({ body: null, who: null });
    expect(steps).to.deep.equal(['scope']);
    expect((await agent.post('/echo').send({ text: 'a' }).expect(200)).body).to.deep.equal({ body: { text: 'a' }, who: null });
    expect((await agent.post('/echo').send({ text: 1 }).expect(400)).body.error.code).to.equal('BAD_REQUEST');
  });
});

describe('route contracts: path parameter checks and routeMiddleware', () => {
  const steps: string[] = [];
  const tag = defineRoute<{ prefix: string }, { text: string }, Scope, Who>({
    method: 'put',
    path: '/tags/{name}',
    operationId: 'putTag',
    summary: 'Store a tag',
    security: 'token',
    params: [
      {
        name: 'name',
        in: 'path',
        schema: { type: 'string', pattern: '^[a-z]+$' },
        check: (value) => {
          steps.push('check');
          if (!/^[a-z]+$/.test(value)) throw new FwError('BAD_REQUEST', 'A tag name is lowercase letters');
        },
      },
    ],
    body: { shape: NOTE, required: true },
    answers: { 200: { description: 'The tag', json: { type: 'object' } } },
    errors: [400, 401],
    handle: (_ctx, { body, params }) => ({ name: params.name, text: body.text }),
  });
  const options = {
    deps: { prefix: '' },
    readJson: (ctx: Koa.Context) => (steps.push('json'), readJsonBody(ctx, { limit: 64 })),
    who: async (ctx: Koa.Context) => {
      steps.push('who');
      if (ctx.get('token') !== 'ok') throw new FwError('UNAUTHENTICATED', 'No token');
      return { name: 'ann' };
    },
    scope: () => ({ flag: 'scoped' }),
  };

  it('checks a path parameter after the caller and before the body is read', async () => {
    const router = new Router();
    mountRoutes(router, [tag], options);
    const agent = request(new Koa().use(router.routes()).callback());
    steps.length = 0;
    expect((await agent.put('/tags/ok').set('token', 'ok').send({ text: 'hi' }).expect(200)).body).to.deep.equal({ name: 'ok', text: 'hi' });
    expect(steps).to.deep.equal(['who', 'check', 'json']);
    steps.length = 0;
    // A bad name is refused before a body too large to read is read.
    const bad = await agent
      .put('/tags/Bad')
      .set('token', 'ok')
      .send({ text: 'x'.repeat(100) })
      .expect(400);
    expect(bad.body.error.message).to.equal('A tag name is lowercase letters');
    expect(steps).to.deep.equal(['who', 'check']);
    steps.length = 0;
    await agent.put('/tags/Bad').send({ text: 'hi' }).expect(401);
    expect(steps).to.deep.equal(['who']);
  });

  it('answers one route wherever the host matches it, with the same stages', async () => {
    const echo = routes[1]!;
    const run = routeMiddleware(echo, options);
    const koa = new Koa().use(async (ctx, next) => (ctx.path === '/only/here' ? run(ctx, next) : next()));
    const agent = request(koa.callback());
    expect((await agent.post('/only/here').send({ text: 'a' }).expect(200)).body).to.deep.equal({ body: { text: 'a' }, who: null });
    const bad = await agent.post('/only/here').send({ text: 1 }).expect(400);
    expect(bad.headers['cache-control']).to.equal('no-store');
    await agent.post('/elsewhere').expect(404);
  });
});

describe('route contracts: describeRoutes', () => {
  const Book = defineModel({ name: 'Book', table: 'rc_book', fields: { title: {} } });
  const Shut = defineModel({ name: 'Shut', table: 'rc_shut', power: { add: false }, fields: { title: {} } });

  it('describes a per-model route once per model it answers for, with the model in path, id, tag and summary', () => {
    const paths = describeRoutes(routes, [Book, Shut]);
    expect(Object.keys(paths).sort()).to.deep.equal(['/echo', '/notes/Book']);
    const op = paths['/notes/Book']!.post!;
    expect(op).to.include({ operationId: 'addNoteBook', summary: 'Add a note to Book' });
    expect(op.tags).to.deep.equal(['Book']);
    expect(op.security).to.deep.equal([{ fwToken: [] }, { fwBearer: [] }]);
    expect(op.requestBody).to.deep.equal({ required: true, content: { 'application/json': { schema: NOTE.schema } } });
    // The declared errors, and 500/503 always, in status order after the answers.
    expect(Object.keys(op.responses as object)).to.deep.equal(['200', '400', '401', '403', '500', '503']);
    expect((paths['/echo']!.post!.security as unknown[]).length).to.equal(0);
  });

  it('refuses two routes on one path and method', () => {
    expect(() => describeRoutes([routes[1]!, routes[1]!])).to.throw('two routes declare POST /echo');
  });
});
