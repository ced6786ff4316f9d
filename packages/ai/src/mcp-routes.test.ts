import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import type { DataService } from '@fw/data';
import { describeRoutes } from '@fw/http';
import type { FwStore } from '@fw/store';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwMcp, mcpRoutes } from './mcp.js';

describe('fwMcp(options): the route it serves is the route it declares (issue 22 §5)', () => {
  // No tool runs here: every request stops at the caller or the method, before the data service.
  const config = loadConfig({ env: false });
  const tokens = new FwTokenService({ store: new MemoryTokenStore(), config });
  const data = { query: () => Promise.reject(new Error('not reached')) } as unknown as DataService;
  const store = { users: { findById: () => Promise.resolve(undefined) } } as unknown as FwStore;
  const agent = (path?: string) => request(new Koa().use(fwMcp({ data, tokens, store, config, ...(path ? { path } : {}) })).callback());

  it('answers the declared method and path (401 before any message is read), 405 to any other method', async () => {
    expect(mcpRoutes.map((r) => `${r.method} ${r.path}`)).to.deep.equal(['post /ai/mcp']);
    const described = describeRoutes(mcpRoutes);
    expect(Object.keys(described)).to.deep.equal(['/ai/mcp']);
    for (const route of mcpRoutes) {
      const res = await agent()[route.method](`/fw-api${route.path}`).send('not json at all');
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal('UNAUTHENTICATED');
      for (const other of ['get', 'put', 'delete'] as const) {
        const refused = await agent()[other](`/fw-api${route.path}`).expect(405);
        expect(refused.headers.allow).to.equal('POST');
      }
    }
    await agent().post('/fw-api/ai/other').expect(404);
  });

  it('serves the same declaration at the path option', async () => {
    await agent('/tools/mcp').post('/fw-api/tools/mcp').send({}).expect(401);
    await agent('/tools/mcp').post('/fw-api/ai/mcp').send({}).expect(404);
  });
});
