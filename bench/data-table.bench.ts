// The price of Fw on a read: an authenticated, permission-checked table query (20 rows of
// 100,000, with the total count) through fwData, against the same knex query behind a bare Koa
// route, on one SQLite file. The load comes from autocannon in a second process; runs alternate
// bare / Fw so drift in machine load hits both. Goal: Fw at 0.8 or more of the bare route.
// Run: npm run bench -- data-table
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { createRegistry, defineModel } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore } from '@fw/store';
import { FwTokenService, KnexTokenStore } from '@fw/token';

const run = promisify(execFile);
const ROWS = 100_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;

const Item = defineModel({
  name: 'Item',
  table: 'bench_item',
  fields: {
    title: { edit: { notNull: true } },
    price: { edit: { type: 'NUMBER' } },
    stock: { edit: { type: 'NUMBER', integer: true } },
    active: { edit: { type: 'BOOLEAN' } },
    added: { edit: { type: 'DATE' } },
  },
});

interface Result {
  rps: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, body: string, headers: Record<string, string>): Promise<Result> {
  const args = ['-c', String(CONNECTIONS), '-d', String(SECONDS), '-m', 'POST', '-b', body, '-H', 'content-type=application/json', '--json'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  const { stdout } = await run(process.execPath, [join(process.cwd(), 'node_modules/autocannon/autocannon.js'), ...args, url], { maxBuffer: 64 * 1024 * 1024 });
  const json = JSON.parse(stdout) as { requests: { average: number }; latency: { p99: number }; non2xx: number; errors: number };
  return { rps: json.requests.average, p99: json.latency.p99, non2xx: json.non2xx + json.errors };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-table-'));
const store = createStore(`sqlite:${join(dir, 'bench.db')}`);
const servers: Array<ReturnType<Koa['listen']>> = [];
try {
  await store.migrate.latest();
  const registry = createRegistry([Item]);
  await store.createModelTables(registry.list());
  const started = Date.now();
  await store.knex.transaction(async (trx) => {
    for (let i = 0; i < ROWS; i += 500) {
      const batch = Array.from({ length: Math.min(500, ROWS - i) }, (_, j) => ({
        title: `Item ${i + j}`,
        price: ((i + j) % 1000) / 10,
        stock: (i + j) % 50,
        active: (i + j) % 3 !== 0,
        added: `2024-0${((i + j) % 9) + 1}-1${(i + j) % 10}`,
      }));
      await trx('bench_item').insert(batch);
    }
  });
  console.log(`seeded ${ROWS} rows in ${Date.now() - started} ms`);

  // A normal user whose role grants the model menu: the full permission path, not the admin shortcut.
  const { menu } = await store.menus.createModelMenu(Item);
  const role = await store.roles.create({ code: 'bench', name: 'Bench' });
  await store.roles.setMenus(role.id, [menu.id]);
  const userRow = await store.users.create({ account: 'bench', password: 'bench-password' });
  await store.users.setRoles(userRow.id, [role.id]);
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
  const { token } = await tokens.loginToken({ id: userRow.id, account: 'bench' }, tokens.generateToken());

  const fw = new Koa();
  fw.use(fwData({ store, tokens, registry }));
  // The baseline is what a hand-written route would be: the standard body parser, the page and
  // size from the body, the same two queries fwData sends (one page in key order, and the total),
  // and no authentication, permission check, validation or conversion.
  const bare = new Koa();
  bare.use(bodyParser());
  const columns = ['id', 'title', 'price', 'stock', 'active', 'added'].map((c) => `bench_item.${c}`);
  bare.use(async (ctx) => {
    const { page = 1, size = 20 } = ctx.request.body as { page?: number; size?: number };
    const [rows, counted] = await Promise.all([
      store.knex('bench_item').select(columns).orderBy('bench_item.id', 'asc').limit(size).offset((page - 1) * size),
      store.knex('bench_item').count({ n: '*' }),
    ]);
    ctx.body = { rows, total: Number((counted as Array<{ n: unknown }>)[0]?.n), page, size };
  });
  const listen = (app: Koa) =>
    new Promise<string>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
      servers.push(server);
    });
  const fwUrl = `${await listen(fw)}/fw-api/data/table/Item`;
  const bareUrl = `${await listen(bare)}/bare`;
  const body = JSON.stringify({ page: 1, size: 20 });

  // Same answer on both sides before timing anything.
  const check = async (url: string, headers: Record<string, string>) => (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })).json()) as { rows: unknown[]; total: number };
  const [a, b] = await Promise.all([check(fwUrl, { token }), check(bareUrl, {})]);
  if (a.total !== ROWS || b.total !== ROWS || a.rows.length !== 20 || b.rows.length !== 20) throw new Error(`unexpected answers: ${a.total}/${a.rows.length} vs ${b.total}/${b.rows.length}`);

  await load(bareUrl, body, {}); // warm-up
  await load(fwUrl, body, { token });
  const bareRuns: Result[] = [];
  const fwRuns: Result[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    bareRuns.push(await load(bareUrl, body, {}));
    fwRuns.push(await load(fwUrl, body, { token }));
  }
  const failed = [...bareRuns, ...fwRuns].reduce((n, r) => n + r.non2xx, 0);
  if (failed > 0) throw new Error(`${failed} requests failed during the load`);
  const bareRps = median(bareRuns.map((r) => r.rps));
  const fwRps = median(fwRuns.map((r) => r.rps));
  const bareP99 = median(bareRuns.map((r) => r.p99));
  const fwP99 = median(fwRuns.map((r) => r.p99));
  console.log(`table query, 20 of ${ROWS} rows + count, ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s each (median):`);
  console.log(`  bare knex route     ${bareRps.toFixed(0)} req/s   p99 ${bareP99} ms`);
  console.log(`  fwData (auth+power) ${fwRps.toFixed(0)} req/s   p99 ${fwP99} ms`);
  console.log(`  ratio fw/bare ${(fwRps / bareRps).toFixed(3)} (goal >= 0.8); p99 ratio ${(fwP99 / Math.max(bareP99, 0.001)).toFixed(2)}`);
} finally {
  for (const server of servers) server.close();
  await store.destroy();
  rmSync(dir, { recursive: true, force: true });
}
