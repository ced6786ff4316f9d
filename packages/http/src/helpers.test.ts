import { expect } from 'chai';
import Koa, { type Middleware } from 'koa';
import request from 'supertest';
import { composeMiddleware, escapeHtml, fwErrorHandler, requireAuthState, toFwUser } from './index.js';

describe('@fw/http helpers', () => {
  it('escapeHtml turns every character that can end text or an attribute into a numeric reference', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).to.equal('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
    expect(escapeHtml('plain text, é')).to.equal('plain text, é');
  });

  it('toFwUser keeps only the public fields', () => {
    const stored = { id: 3, account: 'ann', name: null, isAdmin: undefined, status: 'locked', expireDate: new Date(), whiteIp: '10.0.0.1' };
    expect(toFwUser(stored)).to.deep.equal({ id: 3, account: 'ann', name: null, isAdmin: false });
  });

  it('requireAuthState: ctx.state.fw first, else the authenticate function (kept for later), else 401', async () => {
    const calls: string[] = [];
    const app = new Koa();
    app.use(fwErrorHandler());
    app.use(async (ctx, next) => {
      if (ctx.get('x-pre')) (ctx.state as Record<string, unknown>).fw = { user: { account: 'pre' } };
      await next();
    });
    app.use(async (ctx) => {
      const state = await requireAuthState(ctx, async (c) => {
        calls.push(c.path);
        return c.get('token') === 'good' ? { user: { account: 'tok' } } : undefined;
      });
      ctx.body = { account: state.user.account, kept: (ctx.state as Record<string, unknown>).fw === state };
    });
    const agent = request(app.callback());
    expect((await agent.get('/a').set('x-pre', '1').expect(200)).body).to.deep.equal({ account: 'pre', kept: true });
    expect(calls).to.deep.equal([]);
    expect((await agent.get('/b').set('token', 'good').expect(200)).body).to.deep.equal({ account: 'tok', kept: true });
    expect((await agent.get('/c').expect(401)).body.error.code).to.equal('UNAUTHENTICATED');
    expect(calls).to.deep.equal(['/b', '/c']);
  });

  it('composeMiddleware runs the list in order, down and back up, and hands on to the outer next', async () => {
    const order: string[] = [];
    const step =
      (name: string): Middleware =>
      async (_ctx, next) => {
        order.push(`${name} in`);
        await next();
        order.push(`${name} out`);
      };
    const app = new Koa();
    app.use(composeMiddleware([step('a'), step('b')]));
    app.use((ctx) => {
      order.push('host');
      ctx.body = 'ok';
    });
    await request(app.callback()).get('/').expect(200);
    expect(order).to.deep.equal(['a in', 'b in', 'host', 'b out', 'a out']);
  });
});
