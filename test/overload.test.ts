// Issue 19 §4: a burst of sign-in attempts is overload, not an outage. fwAdmin sheds what exceeds
// its in-flight budgets as 503 OVERLOADED with Retry-After before the work starts (never a 503
// UNAVAILABLE from a pool that timed out, never a 500), and a signed-in user's read during the
// burst is served.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { encodePassword } from '@fw/login/client';
import { createStore } from '@fw/store';
import { createTestDatabase, sqlBackends, type TestDatabase } from '@fw/test-utils';

const PASSWORD = 'burst-pass-19';
/** Connections opened at once: enough to pass the default budgets (32 sign-ins, 256 in all) several times over. */
const BURST = 200;

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
}

/** One request on a connection of its own (no keep-alive agent), as a flood of clients would open. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code?: string } }).error?.code;
        } catch {
          code = undefined;
        }
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, code, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Setup {
  port: number;
  fw: FwAdmin;
  db: TestDatabase;
  close(): Promise<void>;
}

async function setup(spec: Parameters<typeof createTestDatabase>[0]): Promise<Setup> {
  const db = await createTestDatabase(spec);
  const seed = createStore(db.url);
  try {
    await seed.migrate.latest();
    await seed.users.create({ account: 'admin', password: PASSWORD, isAdmin: true, mustChangePassword: false });
  } finally {
    await seed.destroy();
  }
  const app = new Koa();
  app.silent = true;
  const fw = await fwAdmin(app, { db: db.url, ui: false, ai: false, purgeIntervalMs: false, config: { 'fw-app.pwdTransferEncrypt': true } });
  app.use(fw.middleware);
  const server: Server = createServer(app.callback());
  // The kernel's accept queue must hold the burst, or the client sees resets instead of answers.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: BURST * 2 }, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    fw,
    db,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fw.close();
      await db.drop();
    },
  };
}

for (const spec of sqlBackends().filter((b) => b.dialect !== 'mssql')) {
  describe(`fwAdmin under a sign-in burst on ${spec.label} (overload)`, function () {
    if (spec.envVar && !spec.serverUrl) {
      it(`skipped: ${spec.envVar} is not set, so the ${spec.label} overload suite did not run`, function () {
        this.skip();
      });
      return;
    }
    this.timeout(120_000);

    it(`sheds a burst of ${BURST} sign-ins as 503 OVERLOADED with Retry-After (never UNAVAILABLE, never 500), while a signed-in read is served`, async () => {
      const s = await setup(spec);
      try {
        const login = JSON.stringify({ account: 'admin', pwd: encodePassword(PASSWORD) });
        const signedIn = await send(s.port, 'POST', '/fw-api/login', {}, login);
        expect(signedIn.status).to.equal(200);
        const token = await new Promise<string>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/fw-api/login', headers: { 'content-type': 'application/json' } }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve((JSON.parse(text) as { token: string }).token));
          });
          req.on('error', reject);
          req.end(login);
        });

        // The burst, plus variants of the path that the router also answers (they must not escape the budget).
        const paths = ['/fw-api/login', '/fw-api/login/', '/FW-API/Login'];
        const burst = Array.from({ length: BURST }, (_, i) => send(s.port, 'POST', paths[i % paths.length]!, {}, login));
        // While it runs: a signed-in user's reads.
        await new Promise((resolve) => setTimeout(resolve, 20));
        const inFlightDuring = s.fw.loadShed!.stats().publicInFlight;
        const reads = await Promise.all([send(s.port, 'GET', '/fw-api/userinfo', { token }), send(s.port, 'GET', '/fw-api/menu', { token })]);
        const answers = await Promise.all(burst);

        const tally = new Map<string, number>();
        for (const a of answers) tally.set(`${a.status} ${a.code ?? ''}`.trim(), (tally.get(`${a.status} ${a.code ?? ''}`.trim()) ?? 0) + 1);
        const unexpected = [...tally].filter(([key]) => key !== '200' && key !== '503 OVERLOADED');
        expect(unexpected, `answers other than 200 and 503 OVERLOADED: ${JSON.stringify([...tally])}`).to.deep.equal([]);
        expect(tally.get('503 OVERLOADED') ?? 0, 'some of the burst was shed').to.be.above(0);
        expect(tally.get('200') ?? 0, 'some of the burst signed in').to.be.above(0);
        for (const a of answers.filter((x) => x.status === 503)) expect(a.retryAfter).to.match(/^\d+$/);
        expect(inFlightDuring, 'sign-ins in flight during the burst').to.be.at.most(32);
        expect(
          reads.map((r) => r.status),
          'signed-in reads during the burst',
        ).to.deep.equal([200, 200]);
        const stats = s.fw.loadShed!.stats();
        expect(stats.peakInFlight).to.be.at.most(256);
        expect(stats.shedPublic).to.equal(tally.get('503 OVERLOADED'));
      } finally {
        await s.close();
      }
    });
  });
}
