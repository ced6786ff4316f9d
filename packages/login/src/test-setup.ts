// Shared fixture of the login tests: a real Koa app on a fresh SQLite database.
import Koa from 'koa';
import request from 'supertest';
import { loadConfig, type FwConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase } from '@fw/test-utils';
import { FwTokenService, MemoryEphemeralStore, MemoryTokenStore, type EphemeralStore } from '@fw/token';
import { fwAuth } from './auth.js';
import { fwLogin, type FwLoginOptions } from './fw-login.js';
import { fwErrorHandler } from '@fw/http';

/** What {@link setup} builds. */
export interface LoginFixture {
  app: Koa;
  agent: ReturnType<typeof request>;
  store: FwStore;
  tokens: FwTokenService;
  ephemeral: EphemeralStore;
  config: FwConfig;
  clock: { now: number };
  alice: { id: number; account: string };
  cleanup(): Promise<void>;
}

/**
 * A Koa app with `fwLogin` and protected routes under `/private` (behind `fwAuth`), on a fresh SQLite database
 * holding `alice` (password `alice-pass`) and the administrator `root` (password `root-pass`), both
 * with a password of their own choosing (no forced change).
 */
export async function setup(options: { config?: Record<string, unknown>; login?: Partial<FwLoginOptions>; ephemeral?: EphemeralStore } = {}): Promise<LoginFixture> {
  const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
  const store = await createStore(db.url);
  await store.migrate.latest();
  const config = loadConfig({ env: false, values: options.config ?? {} });
  const clock = { now: Date.now() };
  const tokens = new FwTokenService({ store: new MemoryTokenStore(), config, now: () => clock.now });
  const ephemeral = options.ephemeral ?? new MemoryEphemeralStore();
  // Both chose their password themselves, so neither is held to the forced change;
  // password-rules.test.ts covers users who must change theirs.
  const aliceRow = await store.users.create({ account: 'alice', name: 'Alice', password: 'alice-pass', mustChangePassword: false });
  await store.users.create({ account: 'root', name: 'Root', password: 'root-pass', isAdmin: true, mustChangePassword: false });
  const app = new Koa();
  app.silent = true;
  app.use(fwErrorHandler());
  app.use(fwLogin({ store, tokens, ephemeral, config, ...options.login }));
  const auth = fwAuth({ tokens, store });
  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/private')) return next();
    await auth(ctx, async () => {
      ctx.body = { user: ctx.state.fw?.user };
    });
  });
  return {
    app,
    agent: request(app.callback()),
    store,
    tokens,
    ephemeral,
    config,
    clock,
    alice: { id: aliceRow.id, account: 'alice' },
    async cleanup() {
      await store.destroy();
      await db.drop();
    },
  };
}
