// What share of a successful sign-in is the scrypt check: 40 logins through POST /fw-api/login
// (SQLite store, memory token store), each timed on the server (request reaching Koa to the answer)
// and from the client (request to parsed answer), with the
// time of every scrypt call made during it recorded by wrapping node:crypto's scrypt (it runs on
// libuv's thread pool, so a CPU profile of the main thread does not show it). Goal: scrypt at
// least 90% of the login. The rest of the login is profiled on the main thread with --cpu-prof.
// Run: npm run bench -- login-share
import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { loadConfig } from '@fw/core';
import { encodePassword, fwLogin } from '@fw/login';
import { createStore } from '@fw/store';
import { FwTokenService, MemoryEphemeralStore, MemoryTokenStore } from '@fw/token';
import { listen, median } from './lib.js';

const SAMPLES = 40;

// Every scrypt call adds its wall time (call to callback) here.
let scryptMs = 0;
let scryptCalls = 0;
const original = crypto.scrypt;
crypto.scrypt = function timedScrypt(...args: unknown[]): void {
  const callback = args.pop() as (err: Error | null, key: Buffer) => void;
  scryptCalls += 1;
  const start = process.hrtime.bigint();
  (original as (...a: unknown[]) => void)(...args, (err: Error | null, key: Buffer) => {
    scryptMs += Number(process.hrtime.bigint() - start) / 1e6;
    callback(err, key);
  });
} as typeof crypto.scrypt;
syncBuiltinESMExports(); // `import { scrypt } from 'node:crypto'` elsewhere now sees the wrapper

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-login-share-'));
const store = createStore(`sqlite:${join(dir, 'bench.db')}`);
try {
  await store.migrate.latest();
  await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false });
  const config = loadConfig({ env: false, values: { 'fw-app.verifyCodeCount': 1000, 'fw-app.loginLockCount': 1000, 'fw-app.loginIpLockCount': 100000 } });
  const app = new Koa();
  // The server's own time per login: from the request reaching Koa to the answer being set.
  let serverMs = 0;
  app.use(async (_ctx, next) => {
    const start = process.hrtime.bigint();
    await next();
    serverMs = Number(process.hrtime.bigint() - start) / 1e6;
  });
  app.use(fwLogin({ store, tokens: new FwTokenService({ store: new MemoryTokenStore(), config }), ephemeral: new MemoryEphemeralStore(), config }));
  const server = await listen(app);
  const body = JSON.stringify({ account: 'alice', pwd: encodePassword('alice-pass') });
  const login = async (): Promise<{ total: number; server: number; scrypt: number; calls: number }> => {
    scryptMs = 0;
    scryptCalls = 0;
    const start = process.hrtime.bigint();
    const res = await fetch(`${server.url}/fw-api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.json();
    const total = Number(process.hrtime.bigint() - start) / 1e6;
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}`);
    return { total, server: serverMs, scrypt: scryptMs, calls: scryptCalls };
  };
  try {
    for (let i = 0; i < 5; i += 1) await login(); // warm-up
    const runs: Array<{ total: number; server: number; scrypt: number; calls: number }> = [];
    for (let i = 0; i < SAMPLES; i += 1) runs.push(await login());
    const total = median(runs.map((r) => r.total));
    const server = median(runs.map((r) => r.server));
    const scrypt = median(runs.map((r) => r.scrypt));
    const shareServer = median(runs.map((r) => r.scrypt / r.server));
    const shareTotal = median(runs.map((r) => r.scrypt / r.total));
    const counts = [...new Set(runs.map((r) => r.calls))].join(' or ');
    console.log(
      `successful login, ${SAMPLES} samples (medians; ${counts} scrypt call(s) per login; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}):`,
    );
    console.log(`  on the server     ${server.toFixed(2)} ms (request reaching Koa to the answer)`);
    console.log(`  scrypt in it      ${scrypt.toFixed(2)} ms`);
    console.log(`  everything else   ${(server - scrypt).toFixed(2)} ms`);
    console.log(`  scrypt share      ${(shareServer * 100).toFixed(1)}% of the server's time (goal >= 90%)`);
    console.log(`  client round trip ${total.toFixed(2)} ms (fetch from this process, HTTP both ways): scrypt ${(shareTotal * 100).toFixed(1)}% of it`);
  } finally {
    server.close();
  }
} finally {
  await store.destroy();
  rmSync(dir, { recursive: true, force: true });
}
