// Shared fixture of the flow tests: the flows over a fresh SQLite database, no Koa app at all.
import { loadConfig, type FwConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase } from '@fw/test-utils';
import { FwTokenService, MemoryEphemeralStore, MemoryTokenStore } from '@fw/token';
import { encodePassword } from '../client.js';
import type { FwLoginOptions } from '../login-options.js';
import { loginFlows, type LoginFlows } from './login-flows.js';
import type { FlowRequest } from './flow-request.js';

/** What {@link flowSetup} builds. */
export interface FlowFixture {
  flows: LoginFlows;
  store: FwStore;
  tokens: FwTokenService;
  config: FwConfig;
  alice: { id: number; account: string };
  /** Errors the flows reported, in order. */
  reported: unknown[];
  /** A request from one address, reporting into {@link reported}. */
  request: FlowRequest;
  cleanup(): Promise<void>;
}

/** `pwd` as a client sends it under the default transfer encoding. */
export const sent = (pwd: string): string => encodePassword(pwd);

/** A request from `ip` that reports nowhere. */
export const flowRequestFor = (ip: string): FlowRequest => ({ ip, userAgent: null });

/** What `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, the promise resolved');
}

/**
 * The flows of `fwLogin` over a fresh SQLite database holding `alice` (password `alice-pass`) and
 * the administrator `root` (password `root-pass`), both with passwords of their own choosing.
 */
export async function flowSetup(options: { config?: Record<string, unknown>; login?: Partial<FwLoginOptions> } = {}): Promise<FlowFixture> {
  const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
  const store = await createStore(db.url);
  await store.migrate.latest();
  const config = loadConfig({ env: false, values: options.config ?? {} });
  const tokens = new FwTokenService({ store: new MemoryTokenStore(), config });
  const alice = await store.users.create({ account: 'alice', name: 'Alice', password: 'alice-pass', mustChangePassword: false });
  await store.users.create({ account: 'root', name: 'Root', password: 'root-pass', isAdmin: true, mustChangePassword: false });
  const reported: unknown[] = [];
  return {
    flows: loginFlows({ store, tokens, ephemeral: new MemoryEphemeralStore(), config, ...options.login }),
    store,
    tokens,
    config,
    alice: { id: alice.id, account: 'alice' },
    reported,
    request: { ip: '10.0.0.7', userAgent: 'flow-test', report: (error) => reported.push(error) },
    async cleanup() {
      await store.destroy();
      await db.drop();
    },
  };
}
