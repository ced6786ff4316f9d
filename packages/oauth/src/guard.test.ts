import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError } from '@fw/core';
import { fwHostGuard, isOpenPath, STATIC_EXTENSIONS } from './guard.js';

describe('isOpenPath(path)', () => {
  const open = ['/fw-api', '/fw-api/login', '/fw-cloud-api/a/b', ...STATIC_EXTENSIONS.map((ext) => `/assets/file.${ext}`), '/UPPER.CSS'];
  const closed = [
    '/',
    '/admin',
    '/fw-apiX',
    '/fw-api-old/x',
    '/secret.js.map',
    '/x.css/../admin',
    '/./admin.css',
    '/admin/..%2fx.css',
    '/a%2e%2e/b.css',
    '/x.css%00.html',
    '/x.css;jsessionid=1',
    '/a\\b.css',
    '/index.html',
    '/file.cssx',
  ];
  for (const path of open) it(`opens ${path}`, () => expect(isOpenPath(path)).to.equal(true));
  for (const path of closed) it(`guards ${path}`, () => expect(isOpenPath(path)).to.equal(false));

  it('takes extra exact paths and prefixes', () => {
    expect(isOpenPath('/health', ['/health'])).to.equal(true);
    expect(isOpenPath('/health/x', ['/health'])).to.equal(false);
    expect(isOpenPath('/public/a/b', ['/public/**'])).to.equal(true);
    expect(isOpenPath('/publicity', ['/public/**'])).to.equal(false);
  });
});

describe('fwHostGuard(options)', () => {
  it('redirects GET to sign in, answers 401 to the rest, and lets signed-in sessions through', async () => {
    const app = new Koa();
    let signedIn = false;
    app.use(fwHostGuard({ signInPath: '/connect/github', isSignedIn: () => signedIn }));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const agent = request(app.callback());
    await agent.get('/admin?x=.css').expect(302).expect('Location', '/connect/github');
    await agent.post('/admin').expect(401);
    await agent.get('/app.js?v=1').expect(200, 'ok');
    signedIn = true;
    await agent.get('/admin').expect(200, 'ok');
  });

  it('keeps the configured API prefix open, and not the default one', async () => {
    const app = new Koa();
    app.use(fwHostGuard({ signInPath: '/login', apiPrefixes: ['/api/v2', '/fw-cloud-api'], isSignedIn: async () => false }));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const agent = request(app.callback());
    await agent.get('/api/v2/data/table/Book').expect(200);
    await agent.get('/fw-api/data/table/Book').expect(302);
  });

  it('refuses bad options at start-up', () => {
    expect(() => fwHostGuard({ signInPath: 'connect' })).to.throw(FwDefinitionError, /signInPath/);
    expect(() => fwHostGuard({ signInPath: '/c', openPaths: ['health'] })).to.throw(FwDefinitionError, /openPaths/);
  });
});
