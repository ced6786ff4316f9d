import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FwDefinitionError } from '@fw/core';
import { thrown } from '@fw/test-utils';
import { expect } from 'chai';
import Koa from 'koa';
import { fwLoadShed, type FwLoadShedOptions } from './load-shed.js';

/** A server whose every request waits until `release()`, behind fwLoadShed(options). */
async function setup(options: FwLoadShedOptions) {
  const waiting: Array<() => void> = [];
  const app = new Koa();
  app.silent = true;
  const errors: unknown[] = [];
  app.on('error', (error) => errors.push(error));
  const shed = fwLoadShed(options);
  app.use(shed);
  app.use(async (ctx) => {
    if (ctx.path !== '/instant') await new Promise<void>((resolve) => waiting.push(resolve));
    ctx.body = { ok: ctx.path };
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    shed,
    errors,
    get: (path: string) => fetch(`${base}${path}`),
    /** Waits until `n` requests are held in the handler. */
    async held(n: number) {
      while (waiting.length < n) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    release() {
      for (const resolve of waiting.splice(0)) resolve();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('fwLoadShed(options)', function () {
  it('answers 503 OVERLOADED with Retry-After past maxInFlight, before the handler runs, and admits again once requests finish', async function () {
    const s = await setup({ maxInFlight: 3, maxPublicInFlight: 1 });
    try {
      const first = [s.get('/a'), s.get('/b'), s.get('/c')];
      await s.held(3);
      const shed = await s.get('/instant');
      expect(shed.status).to.equal(503);
      expect(shed.headers.get('retry-after')).to.equal('2');
      expect(shed.headers.get('cache-control')).to.equal('no-store');
      expect(((await shed.json()) as { error: { code: string } }).error.code).to.equal('OVERLOADED');
      expect(s.shed.stats()).to.include({ inFlight: 3, peakInFlight: 3, shed: 1 });
      // A refused request is not an error of the app: a flood must not write a log line each.
      expect(s.errors).to.deep.equal([]);
      s.release();
      for (const res of await Promise.all(first)) expect(res.status).to.equal(200);
      expect((await s.get('/instant')).status).to.equal(200);
      expect(s.shed.stats()).to.include({ inFlight: 0, admitted: 4 });
    } finally {
      s.release();
      await s.close();
    }
  });

  it('gives public requests a smaller budget inside the total: a flood of them cannot take the slots of the others', async function () {
    const s = await setup({ maxInFlight: 4, maxPublicInFlight: 2, isPublic: (ctx) => ctx.path.startsWith('/login'), retryAfterSeconds: 7 });
    try {
      const logins = [s.get('/login'), s.get('/login')];
      await s.held(2);
      const third = await s.get('/login');
      expect(third.status).to.equal(503);
      expect(third.headers.get('retry-after')).to.equal('7');
      // A signed-in read still gets in: the public budget is full, the total is not.
      expect((await s.get('/instant')).status).to.equal(200);
      expect(s.shed.stats()).to.include({ publicInFlight: 2, shed: 1, shedPublic: 1 });
      s.release();
      await Promise.all(logins);
    } finally {
      s.release();
      await s.close();
    }
  });

  it('leaves requests it does not apply to uncounted', async function () {
    const s = await setup({ maxInFlight: 1, applies: (ctx) => ctx.path.startsWith('/api') });
    try {
      const held = s.get('/api/slow');
      await s.held(1);
      expect((await s.get('/instant')).status).to.equal(200);
      s.release();
      expect((await held).status).to.equal(200);
    } finally {
      s.release();
      await s.close();
    }
  });

  it('refuses bad bounds at start-up', function () {
    for (const [options, key] of [
      [{ maxInFlight: 0 }, 'fwLoadShed.maxInFlight'],
      [{ maxInFlight: 2.5 }, 'fwLoadShed.maxInFlight'],
      [{ maxInFlight: 4, maxPublicInFlight: 5 }, 'fwLoadShed.maxPublicInFlight'],
      [{ retryAfterSeconds: -1 }, 'fwLoadShed.retryAfterSeconds'],
      [{ isPublic: 'login' }, 'fwLoadShed.isPublic'],
    ] as const) {
      expect(thrown(() => fwLoadShed(options as FwLoadShedOptions), FwDefinitionError).key).to.equal(key);
    }
  });
});
