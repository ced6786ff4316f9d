// Unknown account vs wrong password: the median time of 50 logins of each, through the real
// HTTP route on a SQLite database. The two must not be told apart by timing; the target is a
// difference under 25%. Run: npm run bench -- login-timing
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import { encodePassword, fwLogin } from '@fw/login';
import { createStore } from '@fw/store';
import { FwTokenService, MemoryEphemeralStore, MemoryTokenStore } from '@fw/token';

const SAMPLES = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-login-'));
const store = await createStore(`sqlite:${join(dir, 'bench.db')}`);
try {
  await store.migrate.latest();
  await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false });
  // Lockout and captcha off the path: every attempt must reach the credential check. Issue 19 §6:
  // with every failure written to the login log (caps out of reach), then with none written.
  const modes = [
    ['failures logged', { 'fw-app.failedLoginLogIpPerMinute': 100000, 'fw-app.failedLoginLogPerMinute': 1000000 }],
    ['failures not logged', { 'fw-app.failedLoginLogIpPerMinute': 0 }],
  ] as const;
  const medians: number[] = [];
  for (const [mode, caps] of modes) {
    const config = loadConfig({ env: false, values: { 'fw-app.verifyCodeCount': 1000, 'fw-app.loginLockCount': 1000, 'fw-app.loginIpLockCount': 100000, ...caps } });
    const app = new Koa();
    app.use(fwLogin({ store, tokens: new FwTokenService({ store: new MemoryTokenStore(), config }), ephemeral: new MemoryEphemeralStore(), config }));
    const agent = request(app.callback());
    const time = async (account: string): Promise<number> => {
      const start = process.hrtime.bigint();
      const res = await agent.post('/fw-api/login').send({ account, pwd: encodePassword('wrong-password') });
      if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    for (let i = 0; i < 5; i += 1) await time(i % 2 ? 'alice' : 'nobody'); // warm-up
    const unknown: number[] = [];
    const wrong: number[] = [];
    // Interleaved, so drift in machine load hits both series alike.
    for (let i = 0; i < SAMPLES; i += 1) {
      unknown.push(await time(`nobody-${i}`));
      wrong.push(await time('alice'));
    }
    const mu = median(unknown);
    const mw = median(wrong);
    medians.push(median([...unknown, ...wrong]));
    const diff = Math.abs(mu - mw) / Math.max(mu, mw);
    console.log(`login timing, ${mode}, ${SAMPLES} samples each (median):`);
    console.log(`  unknown account   ${mu.toFixed(2)} ms`);
    console.log(`  wrong password    ${mw.toFixed(2)} ms`);
    console.log(`  ratio unknown/wrong ${(mu / mw).toFixed(3)}; difference ${(diff * 100).toFixed(1)}% (target < 25%)`);
  }
  console.log(`  logged minus not logged: ${(medians[0]! - medians[1]!).toFixed(2)} ms per failed login (median; the noise of the machine included)`);
} finally {
  await store.destroy();
  rmSync(dir, { recursive: true, force: true });
}
