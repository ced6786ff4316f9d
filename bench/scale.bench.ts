// Tables at scale (issue 21): the same requests on tables of 10,000 to 10,000,000 rows, through
// Fw (`fwAdmin`, a non-admin user, POST /fw-api/data/table/ScaleRow) and through a bare route
// (Koa + knex doing the same page with OFFSET and a `count(*)`, no authentication), on a SQLite
// file (WAL) always, and on PostgreSQL / MariaDB when FW_TEST_PG_URL / FW_TEST_MYSQL_URL are set.
// Each request is measured with one connection (median ms per request, timed one after another)
// and with 10 (requests per second), Fw and bare alternating; the load comes from a second process.
//
// The seeded databases are kept for the next run (bench/scale-seed.ts): SQLite files under
// FW_SCALE_DIR (default /tmp/fw-scale), databases fw_scale_<size> on the servers.
//
// Env: FW_SCALE_SIZES (default 10000,100000,1000000,10000000), FW_SCALE_SECONDS (each run,
// default 3), FW_SCALE_DB (e.g. sqlite,postgres; default every backend available), FW_SCALE_DIR,
// FW_SCALE_FRESH=1 (seed again), FW_SCALE_SEED_ONLY=1 (seed, measure nothing).
// FW_SCALE_PEER=directus (PostgreSQL and MariaDB/MySQL): Directus too, started on each size's database by
// bench/peer-directus.ts (installed outside the repository, FW_PEER_DIRECTUS_DIR), a non-admin user
// asking GET /items/scale_rows with `meta=<FW_SCALE_DIRECTUS_META, default filter_count>`.
// Run: node --import tsx --conditions=fw-source bench/scale.bench.ts (Fw from source), or, after `npm run build` and
// `npm run build -w @fw/test-utils`, node --import tsx bench/scale.bench.ts (Fw from dist/).
import { loadavg, cpus } from 'node:os';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import knexFactory, { type Knex } from 'knex';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import type { ModelDefinition } from '@fw/core';
import { knexConfigFor, sqlBackends } from '@fw/test-utils';
import { listen, load } from './lib.js';
import { startDirectus, type DirectusPeer } from './peer-directus.js';
import { FILTER_STATUS, TABLE, declaredIndexes, ensureSeeded, scaleDatabase, scaleModel } from './scale-seed.js';
import { directusLine, markdownTable, peerLine, sizeName, type Cell, type Measured, type RequestSpec } from './scale-report.js';

const SIZES = (process.env.FW_SCALE_SIZES ?? '10000,100000,1000000,10000000').split(',').map((s) => Number(s.trim().replaceAll('_', '')));
if (SIZES.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('FW_SCALE_SIZES: whole numbers of at least 100, comma-separated');
SIZES.sort((a, b) => a - b);
const SECONDS = Number(process.env.FW_SCALE_SECONDS ?? 3);
const CONNECTIONS = 10;
const WARM_UP = Math.min(SECONDS, 1);
// FW_SCALE_SEED_ONLY=1: seed (or check) the tables and stop, e.g. to seed 10M rows ahead of a run.
const SEED_ONLY = process.env.FW_SCALE_SEED_ONLY === '1';
const PAGE = 20;
const only = process.env.FW_SCALE_DB?.split(',').map((s) => s.trim());
const PEER = process.env.FW_SCALE_PEER;
if (PEER !== undefined && PEER !== '' && PEER !== 'directus') throw new Error(`FW_SCALE_PEER: only "directus" is known, not "${PEER}"`);
// Which count Directus is asked for with each page: filter_count (the rows the query's filter
// keeps, what a table page shows) or total_count (the whole collection).
const DIRECTUS_META = process.env.FW_SCALE_DIRECTUS_META ?? 'filter_count';

const REQUESTS: RequestSpec[] = [
  { id: 'page1', label: 'page 1 of 20, with the total', goal: true },
  { id: 'next', label: 'next page (Fw: cursor; bare: page 2 by offset)', goal: true },
  { id: 'last', label: 'last page (Fw: `last: true`; bare: offset)', goal: true },
  { id: 'deep', label: 'a middle page (Fw: cursor from the row before; bare: offset)', goal: true },
  { id: 'filter', label: `page 1, \`status\` = ${FILTER_STATUS} (indexed)`, goal: true },
  { id: 'sort', label: 'page 1 sorted by `score` desc (indexed)', goal: true },
  { id: 'random', label: 'a random page by number (offset on both: the compatibility path)', goal: false },
];

interface Answer {
  status: number;
  rows: Array<Record<string, unknown>>;
  total?: number;
  totalIsEstimate?: boolean;
  cursors?: { prev: string | null; next: string | null };
  code?: string;
  message?: string;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = (await response.json()) as Omit<Answer, 'status'>;
  return { ...json, rows: json.rows ?? [], status: response.status };
}

/** A non-admin user whose role grants the model's menu (kept between runs, like the data); returns a fresh token. */
async function scaleUser(fw: FwAdmin, model: ModelDefinition): Promise<string> {
  const { menu } = await fw.store.menus.createModelMenu(model);
  const role = (await fw.store.roles.findByCode('scale-bench')) ?? (await fw.store.roles.create({ code: 'scale-bench', name: 'Scale bench' }));
  await fw.store.roles.setMenus(role.id, [menu.id]);
  const user =
    (await fw.store.users.findByAccount('scale-bench')) ?? (await fw.store.users.create({ account: 'scale-bench', password: 'scale-bench-password', mustChangePassword: false }));
  await fw.store.users.setRoles(user.id, [role.id]);
  return (await fw.tokens.loginToken({ id: user.id, account: 'scale-bench' })).token;
}

/**
 * The bare route: body `{ page, size, status?, sort? }`, the page by OFFSET and the total by
 * `count(*)`, on a knex of its own (knex's defaults, as a hand-written route would have them).
 */
function bareApp(knex: Knex, model: ModelDefinition): Koa {
  const col = (f: string) => `${TABLE}.${model.fields[f]!.column}`;
  const columns = ['id', 'title', 'status', 'score', 'created'].map((f) => (f === 'id' ? `${TABLE}.id` : col(f)));
  const bare = new Koa();
  bare.use(bodyParser());
  bare.use(async (ctx) => {
    const { page = 1, size = PAGE, status, sort } = ctx.request.body as { page?: number; size?: number; status?: string; sort?: 'score' };
    const where = () => (status === undefined ? knex(TABLE) : knex(TABLE).where(col('status'), status));
    const rows = where().select(columns);
    // Ties broken by the key in the direction of the sort, as Fw does (one index serves it).
    if (sort === 'score') rows.orderBy(col('score'), 'desc');
    const [found, counted] = await Promise.all([
      rows
        .orderBy(`${TABLE}.id`, sort === 'score' ? 'desc' : 'asc')
        .limit(size)
        .offset((page - 1) * size),
      where().count({ n: '*' }),
    ]);
    ctx.body = { rows: found, total: Number((counted as Array<{ n: unknown }>)[0]?.n), page, size };
  });
  return bare;
}

/** Counts the requests being answered (put first on both apps), so the store closes once they are done. */
function tracked(inFlight: { n: number; last: number }): Koa.Middleware {
  return async function tracked(_ctx, next) {
    inFlight.n += 1;
    try {
      await next();
    } finally {
      inFlight.n -= 1;
      inFlight.last = Date.now();
    }
  };
}

/**
 * Waits until no request has been answered for a whole second. A run ends with up to 10 requests
 * still queued (on a 10M-row table each can take seconds): the next run must not start behind
 * them. On SQLite the bare route's queries block the event loop, so queued requests wait in the
 * socket unseen by the counter: only a quiet second shows that none is left.
 */
async function settle(inFlight: { n: number; last: number }): Promise<void> {
  for (let waited = 0; (inFlight.n > 0 || Date.now() - inFlight.last < 1000) && waited < 600_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

const ids = (a: Answer) => a.rows.map((r) => Number(r.id)).join(',');

/**
 * The bodies of each request for Fw and for the bare route at this size, found by asking once
 * (which also warms the caches): the cursors come from Fw's answers. A request Fw cannot make on
 * this build gets a note instead of a body.
 */
async function plan(fwUrl: string, bareUrl: string, token: string, size: number, cells: Map<string, Map<number, Cell>>, peer?: DirectusPeer) {
  const lastPage = Math.ceil(size / PAGE);
  const middle = Math.max(1, Math.floor(lastPage / 2));
  const first = await post(fwUrl, { page: 1, size: PAGE }, { token });
  if (first.status !== 200) throw new Error(`Fw answered ${first.status} ${first.code ?? ''}: ${first.message ?? ''}`);
  const cursors = first.cursors !== undefined;
  const atMiddle = cursors ? await post(fwUrl, { page: middle, size: PAGE }, { token }) : undefined;
  const filter = [{ field: 'status', op: 'eq', value: FILTER_STATUS }];
  const sort = [{ field: 'score', order: 'desc' }];
  const noCursor = 'cursor paging not available';
  const specs: Record<string, { fw?: unknown; bare: unknown; note?: string; random?: number; peer?: string }> = {
    page1: { fw: { page: 1, size: PAGE }, bare: { page: 1, size: PAGE } },
    next:
      cursors && first.cursors!.next
        ? { fw: { after: first.cursors!.next, page: 2, size: PAGE }, bare: { page: 2, size: PAGE } }
        : { bare: { page: 2, size: PAGE }, note: noCursor },
    last: cursors ? { fw: { last: true, size: PAGE }, bare: { page: lastPage, size: PAGE } } : { bare: { page: lastPage, size: PAGE }, note: noCursor },
    deep: atMiddle?.cursors?.next
      ? { fw: { after: atMiddle.cursors.next, page: middle + 1, size: PAGE }, bare: { page: middle + 1, size: PAGE } }
      : { bare: { page: middle + 1, size: PAGE }, note: noCursor },
    filter: { fw: { page: 1, size: PAGE, conditions: filter }, bare: { page: 1, size: PAGE, status: FILTER_STATUS } },
    sort: { fw: { page: 1, size: PAGE, sort }, bare: { page: 1, size: PAGE, sort: 'score' } },
    // The probe asks for a fixed page a third of the way in; the load asks for any page at random.
    random: { fw: { page: Math.max(1, Math.floor(lastPage / 3)), size: PAGE }, bare: { page: Math.max(1, Math.floor(lastPage / 3)), size: PAGE }, random: lastPage },
  };
  if (peer) {
    // Directus pages by number only (no cursors): the same page as the bare route, by offset.
    const pages: Record<string, number | string> = { page1: 1, next: 2, last: lastPage, deep: middle + 1, filter: 1, sort: 1, random: Math.max(1, Math.floor(lastPage / 3)) };
    for (const [id, spec] of Object.entries(specs)) spec.peer = directusPath(pages[id]!, id);
  }
  for (const [id, spec] of Object.entries(specs)) {
    const cell: Cell = {};
    if (!cells.has(id)) cells.set(id, new Map());
    cells.get(id)!.set(size, cell);
    const bare = await post(bareUrl, spec.bare);
    if (peer && spec.peer !== undefined) {
      const answer = await getDirectus(peer, spec.peer);
      if (answer.status !== 200) {
        cell.peerNote = `Directus: ${answer.status}`;
        spec.peer = undefined;
      } else {
        cell.peerTotal = answer.total;
        if (ids(answer) !== ids(bare)) cell.peerMismatch = `Directus ${ids(answer).slice(0, 60)} vs bare ${ids(bare).slice(0, 60)}`;
      }
    }
    if (spec.fw === undefined) {
      cell.fwNote = spec.note;
      continue;
    }
    const fw = await post(fwUrl, spec.fw, { token });
    if (fw.status !== 200) {
      cell.fwNote = `Fw: ${fw.status} ${fw.code ?? ''}`;
      spec.fw = undefined;
      continue;
    }
    cell.total = { value: fw.total ?? NaN, estimate: fw.totalIsEstimate };
    if (ids(fw) !== ids(bare)) cell.mismatch = `Fw ${ids(fw).slice(0, 60)} vs bare ${ids(bare).slice(0, 60)}`;
  }
  return specs;
}

/**
 * The path of a request to Directus: 20 rows of page `page` (a number, or `[<random>]` for the
 * load to fill), ordered by the key as Fw and the bare route order them, with the count of
 * DIRECTUS_META; the filtered and sorted requests as Fw's.
 */
function directusPath(page: number | string, id: string): string {
  const filter = id === 'filter' ? `&filter[status][_eq]=${FILTER_STATUS}` : '';
  const sort = id === 'sort' ? '-score,-id' : 'id';
  return `/items/${TABLE}?limit=${PAGE}&page=${page}&sort=${sort}${filter}&meta=${DIRECTUS_META}`;
}

async function getDirectus(peer: DirectusPeer, path: string): Promise<Answer> {
  const response = await fetch(`${peer.url}${path}`, { headers: { authorization: `Bearer ${peer.token}` } });
  const json = (await response.json()) as { data?: Array<Record<string, unknown>>; meta?: Record<string, number> };
  const count = json.meta?.[DIRECTUS_META];
  return { status: response.status, rows: json.data ?? [], ...(count !== undefined ? { total: Number(count) } : {}) };
}

/** One run of the load worker with `body` (a `[<random>]` page when `random` is the page count). */
function run(url: string, body: unknown, sequential: boolean, headers: Record<string, string>, random: number | undefined, seconds = SECONDS): Promise<Measured> {
  // A GET (Directus): no body, the page number in the URL, `[<random>]` filled there per request.
  if (body === undefined) {
    return load(url, {
      seconds,
      connections: sequential ? 1 : CONNECTIONS,
      method: 'GET',
      headers,
      sequential,
      ...(random !== undefined ? { uniqueIds: true, rows: random } : {}),
    });
  }
  const text = random === undefined ? JSON.stringify(body) : JSON.stringify({ ...(body as object), page: '__PAGE__' }).replace('"__PAGE__"', '[<random>]');
  return load(url, {
    seconds,
    connections: sequential ? 1 : CONNECTIONS,
    body: text,
    headers,
    sequential,
    ...(random !== undefined ? { uniqueIds: true, rows: random } : {}),
  });
}

const backends = sqlBackends().filter((b) => (b.dialect === 'sqlite' || (b.serverUrl !== undefined && b.dialect !== 'mssql')) && (!only || only.includes(b.dialect)));
const model = scaleModel();
const declared = await declaredIndexes(model);
let fwFrom = 'unknown';
try {
  fwFrom = import.meta.resolve('@fw/admin').includes('/dist/') ? 'dist/' : 'source (fw-source condition)';
} catch {
  // Older Node.js without import.meta.resolve: leave it unknown.
}
console.log(
  `Tables at scale: sizes ${SIZES.map(sizeName).join(', ')}; ${SECONDS} s per run, 1 and ${CONNECTIONS} connections; Fw from ${fwFrom}; ` +
    `declared indexes ${declared.length > 0 ? `made by createModelTables (${declared.join(', ')})` : 'not available on this build (the seed makes indexes on status and score itself)'}; ` +
    `${cpus().length} cores, Node.js ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);

/** The databases Directus runs on here (SQLite would need its own file and driver). */
const PEER_DIALECTS = ['postgres', 'mysql'];
if (PEER && !SEED_ONLY && backends.some((b) => !PEER_DIALECTS.includes(b.dialect))) {
  console.log(
    `FW_SCALE_PEER=${PEER}: the peer is measured on PostgreSQL and MariaDB/MySQL only (not on ${backends
      .filter((b) => !PEER_DIALECTS.includes(b.dialect))
      .map((b) => b.label)
      .join(', ')})`,
  );
}

for (const backend of backends) {
  const cells = new Map<string, Map<number, Cell>>();
  const seeds: string[] = [];
  for (const size of SIZES) {
    const database = await scaleDatabase(backend.dialect, backend.serverUrl, size);
    const seed = await ensureSeeded(database, model, declared, size, (line) => console.log(line));
    seeds.push(`${sizeName(size)} ${seed.reused ? 'reused' : `seeded in ${seed.seconds.toFixed(1)} s`}`);
    console.log(`\n${backend.label}, ${size.toLocaleString('en')} rows: ${seeds[seeds.length - 1]}`);
    if (SEED_ONLY) continue;
    const app = new Koa();
    const fw = await fwAdmin(app, { db: database.url, models: [model], ui: false, ai: false, openapi: false, purgeIntervalMs: false, queryTimeoutMs: 60_000 });
    app.use(fw.middleware);
    const inFlight = { n: 0, last: 0 };
    const closers: Array<() => void> = [];
    const knexes: Knex[] = [];
    let peer: DirectusPeer | undefined;
    try {
      const token = await scaleUser(fw, model);
      if (PEER === 'directus' && PEER_DIALECTS.includes(backend.dialect)) {
        peer = await startDirectus({ databaseUrl: database.url });
        console.log(`  Directus ${peer.version} at ${peer.url} (a non-admin user, meta=${DIRECTUS_META})`);
      }
      const bareKnex = knexFactory({ ...knexConfigFor(database.url), ...(backend.dialect === 'sqlite' ? {} : { pool: { min: 1, max: 10 } }) });
      knexes.push(bareKnex);
      const bare = bareApp(bareKnex, model);
      for (const a of [app, bare]) a.middleware.unshift(tracked(inFlight));
      const fwServer = await listen(app);
      const bareServer = await listen(bare);
      closers.push(fwServer.close, bareServer.close);
      const fwUrl = `${fwServer.url}/fw-api/data/table/ScaleRow`;
      const bareUrl = `${bareServer.url}/bare`;
      const specs = await plan(fwUrl, bareUrl, token, size, cells, peer);
      for (const req of REQUESTS) {
        const spec = specs[req.id]!;
        const cell = cells.get(req.id)!.get(size)!;
        // Each run starts on an idle server (settled: no request of the run before still queued).
        const bareRun = async (sequential: boolean, seconds?: number) => {
          await settle(inFlight);
          return run(bareUrl, spec.bare, sequential, {}, spec.random, seconds);
        };
        const fwRun = async (sequential: boolean, seconds?: number) => {
          if (spec.fw === undefined) return undefined;
          await settle(inFlight);
          return run(fwUrl, spec.fw, sequential, { token }, spec.random, seconds);
        };
        // Directus is another process: its queued requests are not counted by `inFlight`, so each of
        // its runs is followed by a quiet second of its own.
        const peerRun = async (sequential: boolean, seconds?: number) => {
          if (!peer || spec.peer === undefined) return undefined;
          await settle(inFlight);
          // The probe asked a fixed page; the load asks any page at random, as on the other sides.
          const path = spec.random !== undefined ? directusPath('[<random>]', req.id) : spec.peer;
          const result = await run(`${peer.url}${path}`, undefined, sequential, { authorization: `Bearer ${peer.token}` }, spec.random, seconds);
          await new Promise((resolve) => setTimeout(resolve, 1000));
          return result;
        };
        // Not counted: each side warms its JIT and the database's cache on this request first.
        await bareRun(false, WARM_UP);
        await fwRun(false, WARM_UP);
        await peerRun(false, WARM_UP);
        // Bare, Fw (and Directus) alternate, so a change of machine load hits each.
        const bareOne = await bareRun(true);
        const fwOne = await fwRun(true);
        const peerOne = await peerRun(true);
        const bareTen = await bareRun(false);
        const fwTen = await fwRun(false);
        const peerTen = await peerRun(false);
        cell.bare = { one: bareOne, ten: bareTen };
        if (fwOne && fwTen) cell.fw = { one: fwOne, ten: fwTen };
        if (peerOne && peerTen) cell.peer = { one: peerOne, ten: peerTen };
        const f = (r: Measured | undefined) => (r ? `${(r.p50 ?? r.mean).toFixed(2)} ms, ${r.rps.toFixed(0)}/s${r.failed ? ` (${r.failed} failed)` : ''}` : cell.fwNote);
        console.log(
          `  ${req.label}: Fw ${f(fwOne)} | ${f(fwTen)}; bare ${f(bareOne)} | ${f(bareTen)}` +
            `${cell.total ? `; Fw total ${cell.total.value}${cell.total.estimate === undefined ? ' (no totalIsEstimate)' : cell.total.estimate ? ' (estimate)' : ' (exact)'}` : ''}` +
            `${cell.mismatch ? `; ROWS DIFFER: ${cell.mismatch}` : ''}` +
            `${peer ? `; Directus ${cell.peerNote ?? `${f(peerOne)} | ${f(peerTen)}, ${DIRECTUS_META} ${cell.peerTotal ?? 'missing'}`}` : ''}` +
            `${cell.peerMismatch ? `; DIRECTUS ROWS DIFFER: ${cell.peerMismatch}` : ''}`,
        );
      }
    } finally {
      for (const close of closers) close();
      // The load stops with slow requests still running: closing the store under them would fail them.
      await settle(inFlight);
      // Fw finishes some work after answering (a token's last use): give it a moment before closing.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const knex of knexes) await knex.destroy();
      await fw.close();
      await peer?.stop();
    }
  }
  if (SEED_ONLY) continue;
  console.log(`\n### ${backend.label} (${seeds.join('; ')})\n`);
  console.log('Each cell: median ms per request with 1 connection · requests per second with 10. Fw / bare (Fw / Directus): above 1 means Fw is faster.\n');
  console.log(markdownTable(REQUESTS, SIZES, cells));
  const peer = peerLine(backend.label, cells);
  if (peer) console.log(`\n${peer}`);
  const directus = directusLine(cells);
  if (directus) console.log(directus);
}
