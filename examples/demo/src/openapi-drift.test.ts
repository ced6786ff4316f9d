// The description cannot drift from the routes: every route the demo's Fw packages register with
// @koa/router (recorded as they register) must be described in GET /fw-api/openapi.json. The
// every-route test (openapi.test.ts) calls what the description lists; this one catches a route
// added to a package and never described, which that test cannot see.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Router from '@koa/router';
import { expect } from 'chai';
import request from 'supertest';
import { encodePassword } from '@fw/login/client';
import { createDemoApp } from './app.js';

type Register = (this: Router, path: unknown, methods: string[], ...rest: unknown[]) => unknown;

/** The routes registered while `build` runs: the router's prefix and path, and the methods. */
async function recordRoutes<T>(build: () => Promise<T>): Promise<{ result: T; routes: Array<{ path: string; methods: string[] }> }> {
  const routes: Array<{ path: string; methods: string[] }> = [];
  const proto = Router.prototype as unknown as { register: Register };
  const original = proto.register;
  proto.register = function (this: Router, path: unknown, methods: string[], ...rest: unknown[]) {
    if (typeof path === 'string' && methods.length > 0) routes.push({ path: `${this.opts.prefix ?? ''}${path}`, methods: methods.map((m) => m.toUpperCase()) });
    return original.call(this, path, methods, ...rest);
  };
  try {
    return { result: await build(), routes };
  } finally {
    proto.register = original;
  }
}

/** Whether a router path (`/data/upload/:fw/:field`) is a described template (`/data/upload/Author/{field}`). */
function describedBy(routePath: string, template: string): boolean {
  const pattern = routePath
    .split('/')
    .map((segment) => (segment === ':fw' ? '[A-Za-z][A-Za-z0-9_]*' : segment.startsWith(':') ? '\\{[A-Za-z]+\\}' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}$`).test(template);
}

describe('examples/demo: every route a Fw package registers is in the OpenAPI description', () => {
  it('finds each registered API route among the described operations (a new, undescribed route fails here)', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'fw-openapi-drift-'));
    const { result: demo, routes } = await recordRoutes(async () => {
      const app = await createDemoApp({ dbUrl: `sqlite:${join(dir, 'demo.db')}`, adminPassword: 'demo-pass-1', ui: false, filesDir: join(dir, 'files') });
      // The administrator has chosen a password already (a first one reaches only its change).
      await app.store.users.setPassword((await app.store.users.findByAccount('admin'))!.id, 'demo-pass-1');
      // A canary: a route no description lists, registered as a package would; it must be reported.
      new Router({ prefix: '/fw-api' }).get('/data/undescribed/:fw', () => undefined);
      return app;
    });
    try {
      const agent = request(demo.app.callback());
      const token = (
        await agent
          .post('/fw-api/login')
          .send({ account: 'admin', pwd: encodePassword('demo-pass-1') })
          .expect(200)
      ).body.token as string;
      const doc = (await agent.get('/fw-api/openapi.json').set('token', token).expect(200)).body as { paths: Record<string, Record<string, unknown>> };
      const prefix = '/fw-api';
      const api = routes.filter((r) => r.path.startsWith(`${prefix}/`));
      // The recording works: the data, transfer, attachment and login routers all registered.
      for (const known of ['/data/table/:fw', '/data/export/:fw', '/data/upload/:fw/:field', '/login']) expect(api.map((r) => r.path)).to.include(`${prefix}${known}`);
      const missing: string[] = [];
      for (const route of api) {
        const path = route.path.slice(prefix.length);
        for (const method of route.methods.filter((m) => m !== 'HEAD')) {
          const found = Object.entries(doc.paths).some(([template, ops]) => Object.hasOwn(ops, method.toLowerCase()) && describedBy(path, template));
          if (!found) missing.push(`${method} ${path}`);
        }
      }
      expect(missing, 'registered routes the description does not list (only the canary may be)').to.deep.equal(['GET /data/undescribed/:fw']);
    } finally {
      await demo.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the matcher is strict: a route of another shape is not taken for a described one', () => {
    expect(describedBy('/data/upload/:fw/:field', '/data/upload/Author/{field}')).to.equal(true);
    expect(describedBy('/data/:fw/:id', '/data/Book/{id}')).to.equal(true);
    expect(describedBy('/data/print.css', '/data/print.css')).to.equal(true);
    expect(describedBy('/data/print.css', '/data/printxcss')).to.equal(false);
    expect(describedBy('/data/upload/:fw/:field', '/data/upload/Author')).to.equal(false);
    expect(describedBy('/data/new-route/:fw', '/data/table/Book')).to.equal(false);
  });
});
