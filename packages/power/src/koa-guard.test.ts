import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import { FwDefinitionError, defineModel, type PowerFlag } from '@fw/core';
import { PowerResolver, requirePower, type PowerUser } from './index.js';

/**
 * A real Koa app without any error middleware: `/<model>/<action>` runs `requirePower` for the
 * action's flags with the power of `ann` (grants: Book menu + Book@EDIT), then a handler that
 * counts how often it was reached.
 */
function setup(flags: PowerFlag | PowerFlag[], options: { resolveDelayMs?: number } = {}) {
  const models = new Map([
    ['Book', defineModel({ name: 'Book', fields: {} })],
    ['Author', defineModel({ name: 'Author', fields: {} })],
  ]);
  const resolver = new PowerResolver();
  const ann: PowerUser = { id: 7, account: 'ann' };
  const grants = { codes: new Set(['Book', 'Book@EDIT']), version: 1 };
  let reached = 0;
  const app = new Koa();
  app.use(
    requirePower(
      flags,
      async (ctx) => {
        if (options.resolveDelayMs) await new Promise((resolve) => setTimeout(resolve, options.resolveDelayMs));
        const model = models.get(ctx.path.split('/')[1] ?? '');
        return model && resolver.resolve(model, ann, grants);
      },
      { modelName: (ctx) => ctx.path.split('/')[1] },
    ),
  );
  app.use((ctx) => {
    reached += 1;
    ctx.body = { ok: true };
  });
  return { request: supertest(app.callback()), reached: () => reached };
}

describe('requirePower(flags, resolve)', () => {
  it('passes through when the flag is on', async () => {
    const { request, reached } = setup('edit');
    const res = await request.get('/Book/edit').expect(200);
    expect(res.body).to.deep.equal({ ok: true });
    expect(reached()).to.equal(1);
  });

  it('answers 403 in the Fw error body when the flag is off, without reaching the route', async () => {
    const { request, reached } = setup('delete');
    const res = await request.post('/Book/delete').expect(403).expect('content-type', /json/);
    expect(res.body).to.deep.equal({ error: { code: 'POWER_DENIED', message: 'Not permitted: delete on Book', model: 'Book', flag: 'delete' } });
    expect(reached()).to.equal(0);
  });

  it('answers 403 without the model menu, for a flag the model declares on', async () => {
    const { request, reached } = setup('query');
    const res = await request.get('/Author/query').expect(403);
    expect(res.body).to.deep.equal({ error: { code: 'POWER_DENIED', message: 'Not permitted: query on Author', model: 'Author', flag: 'query' } });
    expect(reached()).to.equal(0);
  });

  it('requires every flag of a list, naming the first one off', async () => {
    const ok = setup(['query', 'edit']);
    await ok.request.get('/Book/x').expect(200);
    const denied = setup(['query', 'edit', 'add'], { resolveDelayMs: 2 });
    const res = await denied.request.get('/Book/x').expect(403);
    expect(res.body).to.deep.equal({ error: { code: 'POWER_DENIED', message: 'Not permitted: add on Book', model: 'Book', flag: 'add' } });
    expect(denied.reached()).to.equal(0);
  });

  it('answers 404 MODEL_NOT_FOUND when resolve finds no model', async () => {
    const { request, reached } = setup('query');
    const res = await request.get('/Nope/query').expect(404);
    expect(res.body).to.deep.equal({ error: { code: 'MODEL_NOT_FOUND', message: 'Unknown model: Nope', model: 'Nope' } });
    expect(reached()).to.equal(0);
  });

  it('names the route’s fw parameter by default, else "this model"', async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (ctx.path === '/param') Object.assign(ctx, { params: { fw: 'Book' } });
      await next();
    });
    app.use(requirePower('export', () => defineModel({ name: 'Book', fields: {} }).power));
    app.use((ctx) => void (ctx.body = 'unreachable'));
    const request = supertest(app.callback());
    expect((await request.get('/param').expect(403)).body.error.message).to.equal('Not permitted: export on Book');
    expect((await request.get('/plain').expect(403)).body.error.message).to.equal('Not permitted: export on this model');
  });

  it('lets an error of resolve reach the host’s error handling', async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (error) {
        ctx.status = 418;
        ctx.body = { caught: (error as Error).message };
      }
    });
    app.use(
      requirePower('query', () => {
        throw new Error('no user');
      }),
    );
    const res = await supertest(app.callback()).get('/').expect(418);
    expect(res.body).to.deep.equal({ caught: 'no user' });
  });

  it('refuses bad arguments when created', () => {
    const resolve = () => undefined;
    expect(() => requirePower([], resolve)).to.throw(FwDefinitionError, /at least one power flag/);
    expect(() => requirePower(['edit', 'edti' as PowerFlag], resolve)).to.throw(FwDefinitionError, /unknown power flag "edti"/);
    expect(() => requirePower('edit', 'nope' as unknown as typeof resolve)).to.throw(FwDefinitionError, /requirePower.resolve/);
  });

  it('does not follow later changes to the caller’s flag array', async () => {
    const flags: PowerFlag[] = ['edit'];
    const app = new Koa();
    app.use(requirePower(flags, () => defineModel({ name: 'Book', power: { delete: false }, fields: {} }).power));
    app.use((ctx) => void (ctx.body = 'ok'));
    flags.push('delete');
    await supertest(app.callback()).get('/').expect(200, 'ok');
  });
});
