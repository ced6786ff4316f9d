// Live tables across two instances (issue 24, figures): two fwAdmin processes (bench/live-worker.ts)
// on one database — PostgreSQL when FW_TEST_PG_URL is set, else a SQLite file — with the Redis bus
// when FW_TEST_REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY (SQLite without Redis has no bus
// between instances: nothing is measured). 500 event streams of 50 viewers (each sees two of ten
// buckets of 1,000 rows through a row filter) are spread over both instances and read by this
// process; an administrator edits one cell at a time, 50 times a second, on both instances in turn.
// Measured:
// - delivery latency: the subscriber's receipt of an event minus the `at` of its message (set when
//   the writer's transaction committed, same clock), p50 and p99;
// - memory per open stream: heap in use (after collection) of both instances with the streams open
//   minus without, over the streams;
// - cell-edit throughput (autocannon, 5 connections per instance) with 0 and 500 open streams, in
//   turn (each phase with streams between two without), the median of the ratios 500 / 0; the
//   instances' CPU per edit; and the CPU time the instances and this process
//   used in each phase. Every edit's fan-out is Fw's cost; reading the 500 streams is the
//   subscribers', so in that phase this process only counts events, on bare sockets that read into
//   one reused buffer (no HTTP parser, no JSON.parse, next to no garbage), to take as little as it
//   can of the cores the instances share with it; each edit writes a value never written before;
// - a restart: while edits go on, one instance is killed (after its edits in flight answered) and
//   started again; its subscribers reconnect with Last-Event-ID, half to the survivor at once, half
//   to the restarted instance. Each subscriber must receive one event per committed edit of each of
//   its rows (none lost, none twice, the last value the row's), or be told to reload.
// Knobs: BENCH_SECONDS (each phase, default 6), BENCH_STREAMS (500), BENCH_EDITS (per second, 50),
// BENCH_THROUGHPUT_ROUNDS (phases with streams, each between two without; 3), BENCH_PROFILE_DIR (a CPU
// profile of each instance written there when it exits).
// Run: npm run bench -- live
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { BUILTIN_MODELS, createRegistry } from '@fw/core';
import { createStore } from '@fw/store';
import { FwTokenService, KnexTokenStore, RedisTokenStore, createRedis } from '@fw/token';
import { Redis } from 'ioredis';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { load, median, ready, type LoadResult } from './lib.js';
import { BUCKETS, LiveRow, bucketsOf } from './live-model.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 500);
const RATE = Number(process.env.BENCH_EDITS ?? 50);
const VIEWERS = 50;
/** Phases with the streams open, each between two without (BENCH_THROUGHPUT_ROUNDS). */
const THROUGHPUT_ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 3);
const ROWS = 1000;

const backends = sqlBackends();
const pgSpec = backends.find((b) => b.dialect === 'postgres' && b.serverUrl);
const redisUrl = process.env.FW_TEST_REDIS_URL;
if (!pgSpec && !redisUrl) {
  console.log('live: neither FW_TEST_PG_URL nor FW_TEST_REDIS_URL is set (two instances on SQLite need Redis to hear each other), nothing measured');
  process.exit(0);
}
const database = await createTestDatabase(pgSpec ?? backends.find((b) => b.dialect === 'sqlite')!);
const prefix = `fw-live-bench-${process.pid}:`;
const setting = `${pgSpec ? 'PostgreSQL' : 'SQLite (one file)'}, bus ${redisUrl ? 'Redis pub/sub' : 'PostgreSQL LISTEN/NOTIFY'}`;
const workers = new Map<'a' | 'b', ChildProcess>();
const urls: Record<'a' | 'b', string | undefined> = { a: undefined, b: undefined };

/** Starts instance `name`; resolves once it listens. */
function start(name: 'a' | 'b'): Promise<string> {
  return new Promise((resolve, reject) => {
    const script = join(dirname(fileURLToPath(import.meta.url)), 'live-worker.ts');
    const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const child = spawn(process.execPath, [...profile, '--expose-gc', '--import', 'tsx', '--conditions=fw-source', script, database.url, redisUrl ?? '-', prefix], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    workers.set(name, child);
    child.once('exit', (code, signal) => signal !== 'SIGKILL' && reject(new Error(`instance ${name} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (url) => {
      urls[name] = url;
      resolve(url);
    });
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

// ---- subscribers ----
interface Subscriber {
  n: number;
  viewer: number;
  on: 'a' | 'b';
  token: string;
  lastId?: string;
  req?: ClientRequest;
  /** The bare socket of a throughput phase (openCounting). */
  counting?: Socket;
  /** Events per row id, and (message id, row) pairs seen. */
  perRow: Map<number, number>;
  pairs: Set<string>;
  twice: number;
  last: Map<number, string>;
  reload?: string;
  closed?: string;
  reconnected: number;
  noIdReconnect: boolean;
}
let measuring = false;
// During the throughput phases the reader only counts events and looks for a reload (openCounting):
// parsing each event's JSON is the subscriber's cost, not Fw's, and would take CPU from the instances.
let counted = 0;
const EVENT_MARK = Buffer.from('\nevent: ');
const RELOAD_MARK = Buffer.from('event: reload');
const latencies: number[] = [];
let lastEventAt = 0;

/** Opens (or reopens) the stream of `s`; resolves with the status, 0 when the connection failed. `onDrop` hears of a stream the server or network ended without a word. */
function open(s: Subscriber, onDrop: (s: Subscriber) => void): Promise<number> {
  const url = new URL(`${urls[s.on]}/fw-api/data/events/LiveRow`);
  return new Promise((resolve) => {
    let dropped = false;
    const drop = () => {
      resolve(0);
      if (dropped || s.req !== req) return;
      dropped = true;
      s.req = undefined;
      onDrop(s);
    };
    const headers: Record<string, string> = { token: s.token, ...(s.lastId ? { 'last-event-id': s.lastId } : {}) };
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers, agent: false }, (res) => {
      resolve(res.statusCode ?? 0);
      let buffer = '';
      const decoder = new StringDecoder('utf8');
      res.on('data', (chunk: Buffer) => {
        buffer += decoder.write(chunk);
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) continue;
          let id: string | undefined;
          let event = '';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          lastEventAt = Date.now();
          if (event === 'reload') s.reload = (JSON.parse(data) as { reason: string }).reason;
          else if (event === 'closed') s.closed = (JSON.parse(data) as { reason: string }).reason;
          else if (event === 'update' && id) {
            s.lastId = id;
            const body = JSON.parse(data) as { id: number; at: string; values: { note?: string } };
            const note = body.values.note;
            if (!measuring || !note?.startsWith('e')) continue;
            latencies.push(Date.now() - Date.parse(body.at));
            const pair = `${id}/${body.id}`;
            if (s.pairs.has(pair)) s.twice += 1;
            s.pairs.add(pair);
            s.perRow.set(body.id, (s.perRow.get(body.id) ?? 0) + 1);
            s.last.set(body.id, note);
          } else if (id) s.lastId = id;
        }
      });
      res.on('close', () => {
        if (!s.reload && !s.closed) drop();
      });
    });
    req.on('error', drop);
    s.req = req;
    req.end();
  });
}

/**
 * Opens the stream of `s` for a throughput phase, where this process only counts: a bare socket
 * that reads into one buffer reused for every read (no HTTP parser, no Buffer per read, so next to
 * no garbage to collect), counting the event markers in the raw bytes (an event's text is written
 * whole inside one chunk, so chunked framing never cuts a marker; the marker cut by a read boundary
 * is found through the bytes carried over). Resolves with the status, 0 when the connection failed.
 */
function openCounting(s: Subscriber): Promise<number> {
  const url = new URL(`${urls[s.on]}/fw-api/data/events/LiveRow`);
  return new Promise((resolve) => {
    let status = -1;
    let head = '';
    // The last bytes of the previous read, and how many of them there are.
    const carry = Buffer.alloc(RELOAD_MARK.length * 2);
    let carried = 0;
    // `bytes` ends where the read did (the shared buffer holds older reads' bytes past it).
    const scan = (bytes: Buffer, from: number) => {
      for (let at = bytes.indexOf(EVENT_MARK, from); at >= 0; at = bytes.indexOf(EVENT_MARK, at + EVENT_MARK.length)) counted += 1;
      if (bytes.includes(RELOAD_MARK, from)) s.reload = 'overflow';
    };
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      onread: {
        buffer: READ_BUFFER,
        callback: (nread: number, buffer: Uint8Array) => {
          const bytes = (buffer as Buffer).subarray(0, nread);
          let from = 0;
          if (status < 0) {
            head += bytes.toString('latin1', 0, nread);
            const end = head.indexOf('\r\n\r\n');
            if (end < 0) return true;
            status = Number(head.slice(9, 12)) || 0;
            resolve(status);
            from = nread - (head.length - end - 4);
          }
          // A marker across the boundary: the carried bytes and the start of this read, joined small.
          if (carried > 0) {
            const joined = Buffer.concat([carry.subarray(0, carried), bytes.subarray(from, Math.min(nread, from + RELOAD_MARK.length))]);
            for (let at = joined.indexOf(EVENT_MARK); at >= 0; at = joined.indexOf(EVENT_MARK, at + 1)) if (at < carried && at + EVENT_MARK.length > carried) counted += 1;
            const reload = joined.indexOf(RELOAD_MARK);
            if (reload >= 0 && reload < carried && reload + RELOAD_MARK.length > carried) s.reload = 'overflow';
          }
          scan(bytes, from);
          // Keep the last bytes seen (a short read keeps some of the carried ones before it).
          const keep = RELOAD_MARK.length - 1;
          const fresh = nread - from;
          if (fresh >= keep) carried = bytes.copy(carry, 0, nread - keep, nread);
          else {
            const old = Math.min(carried, keep - fresh);
            carry.copy(carry, 0, carried - old, carried);
            carried = old + bytes.copy(carry, old, from, nread);
          }
          return true;
        },
      },
    });
    socket.on('connect', () => socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\ntoken: ${s.token}\r\nConnection: close\r\n\r\n`));
    socket.on('error', () => resolve(0));
    socket.on('close', () => {
      if (status < 0) resolve(0);
    });
    s.counting = socket;
  });
}
/** The one buffer every counting socket reads into (this process reads one socket at a time). */
const READ_BUFFER = Buffer.alloc(256 * 1024);

// ---- edits ----
const committed = new Map<number, number>(); // seq → row
const finalNote = new Map<number, string>();
let failedEdits = 0;
let bDown = false;
const inFlight = new Set<Promise<unknown>>();
const inFlightB = new Set<Promise<unknown>>();

function pacer(adminToken: string): { stop: () => Promise<void> } {
  let seq = 0;
  let turn = 0;
  const timer = setInterval(() => {
    seq += 1;
    const n = seq;
    const row = 1 + Math.floor(Math.random() * ROWS);
    turn += 1;
    const on: 'a' | 'b' = bDown || turn % 2 === 0 ? 'a' : 'b';
    const value = `e${n}`;
    const sent = fetch(`${urls[on]}/fw-api/data/modify/LiveRow/update-cell`, {
      method: 'POST',
      headers: { token: adminToken, 'content-type': 'application/json' },
      body: JSON.stringify({ id: row, field: 'note', value }),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(String(res.status));
        committed.set(n, row);
      })
      .catch(() => (failedEdits += 1));
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
    if (on === 'b') {
      inFlightB.add(sent);
      void sent.finally(() => inFlightB.delete(sent));
    }
  }, 1000 / RATE);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...inFlight]);
    },
  };
}

const heap = async () => {
  const all = await Promise.all((['a', 'b'] as const).map(async (w) => (await (await fetch(`${urls[w]}/bench-heap`)).json()) as { heap: number; rss: number; streams: number }));
  return { heap: all.reduce((n, x) => n + x.heap, 0), rss: all.reduce((n, x) => n + x.rss, 0), streams: all.reduce((n, x) => n + x.streams, 0) };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const load0 = loadavg();
const startedAt = new Date();
try {
  // Rows in ten buckets, the viewers, an administrator who edits.
  const seedStore = createStore(database.url);
  await seedStore.migrate.latest();
  const registry = createRegistry([...BUILTIN_MODELS, LiveRow]);
  await seedStore.createModelTables(registry.list());
  for (let i = 0; i < ROWS; i += 200) await seedStore.knex('bench_live_row').insert(Array.from({ length: 200 }, (_, j) => ({ bucket: (i + j) % BUCKETS, note: 'start' })));
  const buckets = new Map((await seedStore.knex('bench_live_row').select('id', 'bucket')).map((r: { id: number; bucket: number }) => [Number(r.id), Number(r.bucket)]));
  const { menu } = await seedStore.menus.createModelMenu(LiveRow);
  const role = await seedStore.roles.create({ code: 'lv-viewer', name: 'Viewer' });
  await seedStore.roles.setMenus(role.id, [menu.id]);
  const redis = redisUrl ? createRedis(redisUrl) : undefined;
  if (redis) await ready(redis);
  const tokens = new FwTokenService({ store: redis ? new RedisTokenStore({ redis, prefix }) : new KnexTokenStore({ knex: seedStore.knex }) });
  const admin = await seedStore.users.create({ account: 'lv-admin', password: 'lv-password-1', isAdmin: true, mustChangePassword: false });
  const adminToken = (await tokens.loginToken({ id: admin.id, account: admin.account, isAdmin: true }, tokens.generateToken())).token;
  const viewerTokens: string[] = [];
  for (let k = 0; k < VIEWERS; k += 1) {
    const user = await seedStore.users.create({ account: `lv-${k}`, password: 'lv-password-1', mustChangePassword: false });
    await seedStore.users.setRoles(user.id, [role.id]);
    viewerTokens.push((await tokens.loginToken({ id: user.id, account: user.account }, tokens.generateToken())).token);
  }
  redis?.disconnect();
  await seedStore.destroy();
  await Promise.all([start('a'), start('b')]);

  // Throughput without streams (measured again at the end).
  // Every edit writes a value no edit wrote before (the phase and instance in it, besides the load
  // worker's own count): an edit that wrote what the row held would change nothing and call for no
  // event, which would flatter the phases with streams.
  let phase = 0;
  const throughput = async (): Promise<LoadResult> => {
    phase += 1;
    const [x, y] = await Promise.all(
      (['a', 'b'] as const).map((w) =>
        load(`${urls[w]}/fw-api/data/modify/LiveRow/update-cell`, {
          seconds: SECONDS,
          connections: 5,
          body: `{"id":[<row>],"field":"note","value":"${w}${phase}-[<id>]"}`,
          uniqueIds: true,
          rows: ROWS,
          headers: { token: adminToken },
        }),
      ),
    );
    return { rps: x!.rps + y!.rps, mean: (x!.mean + y!.mean) / 2, p99: Math.max(x!.p99, y!.p99), failed: x!.failed + y!.failed };
  };
  // CPU µs of both instances and the cell edits they answered, so far; over a phase, with this
  // process's own CPU (the subscribers' reader).
  const workerCpu = async () => {
    const all = await Promise.all((['a', 'b'] as const).map(async (w) => (await (await fetch(`${urls[w]}/bench-cpu`)).json()) as { cpu: number; edits: number }));
    return { cpu: all.reduce((n, x) => n + x.cpu, 0), edits: all.reduce((n, x) => n + x.edits, 0) };
  };
  const withCpu = async (run: () => Promise<LoadResult>) => {
    const w0 = await workerCpu();
    const own = process.cpuUsage();
    const result = await run();
    const mine = process.cpuUsage(own);
    const w1 = await workerCpu();
    return { ...result, instancesCpu: (w1.cpu - w0.cpu) / 1e6, edits: w1.edits - w0.edits, readerCpu: (mine.user + mine.system) / 1e6 };
  };
  await throughput(); // warm-up
  const none1 = await withCpu(throughput);
  const heapBefore = await heap();

  // The streams: viewer n % 50, on instance a or b in turn.
  const subs: Subscriber[] = Array.from({ length: STREAMS }, (_, n) => ({
    n,
    viewer: n % VIEWERS,
    on: n % 2 === 0 ? 'a' : 'b',
    token: viewerTokens[n % VIEWERS]!,
    perRow: new Map(),
    pairs: new Set(),
    twice: 0,
    last: new Map(),
    reconnected: 0,
    noIdReconnect: false,
  }));
  const waitingForB: Subscriber[] = [];
  const onDrop = (s: Subscriber) => {
    s.req = undefined;
    if (!s.lastId) s.noIdReconnect = true;
    s.reconnected += 1;
    // Half go to the survivor at once (as a load balancer would send them), half wait for the restart.
    if (s.n % 4 === 1) s.on = 'a';
    if (s.on === 'b' && bDown) waitingForB.push(s);
    else setTimeout(() => void open(s, onDrop), 100);
  };
  const hangUp = (list: Subscriber[]) => {
    for (const s of list) {
      const req = s.req;
      s.req = undefined;
      req?.destroy();
      s.counting?.destroy();
      s.counting = undefined;
    }
  };
  const statuses = [];
  for (let i = 0; i < subs.length; i += 50) statuses.push(...(await Promise.all(subs.slice(i, i + 50).map((s) => open(s, onDrop)))));
  if (statuses.some((c) => c !== 200))
    throw new Error(`streams refused: ${statuses.filter((c) => c !== 200).length} (${[...new Set(statuses)].join(', ')}); throughput run failed ${none1.failed}`);
  await sleep(1000);
  const heapWith = await heap();

  // Latency at RATE edits a second, then the restart while edits go on.
  measuring = true;
  const edits = pacer(adminToken);
  await sleep(SECONDS * 1000);
  const steady = [...latencies];
  bDown = true;
  await Promise.all([...inFlightB]);
  const killedAt = Date.now();
  workers.get('b')!.kill('SIGKILL');
  await start('b');
  const downMs = Date.now() - killedAt;
  bDown = false;
  for (const s of waitingForB.splice(0)) void open(s, onDrop);
  await sleep(SECONDS * 1000);
  await edits.stop();
  // Until the hubs caught up: nothing received for 3 s (at most 120 s).
  const drainFrom = Date.now();
  while (Date.now() - lastEventAt < 3000 && Date.now() - drainFrom < 120_000) await sleep(250);
  const drainMs = Date.now() - drainFrom;
  measuring = false;
  // The last value of each row as stored (two edits of one row in flight at once may commit in either order).
  const readStore = createStore(database.url);
  for (const r of (await readStore.knex('bench_live_row').select('id', 'note')) as Array<{ id: number; note: string }>) finalNote.set(Number(r.id), r.note);
  await readStore.destroy();

  // Every subscriber against what was committed on its rows.
  const expected = (viewer: number) => {
    const mine = new Set(bucketsOf(viewer));
    const perRow = new Map<number, number>();
    for (const row of committed.values()) if (mine.has(buckets.get(row)!)) perRow.set(row, (perRow.get(row) ?? 0) + 1);
    return perRow;
  };
  // Per group: streams never cut, cut and resumed on the survivor, cut and reopened on the restarted instance.
  const groups = new Map<string, { streams: number; complete: number; reload: Map<string, number>; lost: number; twice: number; staleLast: number; noId: number }>();
  for (const s of subs) {
    const name =
      s.reconnected === 0
        ? 'never cut'
        : s.noIdReconnect
          ? 'cut before any event reached it (no Last-Event-ID to send)'
          : s.n % 4 === 1
            ? 'cut, resumed on the survivor'
            : 'cut, reopened on the restarted instance';
    let g = groups.get(name);
    if (!g) groups.set(name, (g = { streams: 0, complete: 0, reload: new Map(), lost: 0, twice: 0, staleLast: 0, noId: 0 }));
    g.streams += 1;
    g.twice += s.twice;
    if (s.noIdReconnect) g.noId += 1;
    if (s.reload) {
      g.reload.set(s.reload, (g.reload.get(s.reload) ?? 0) + 1);
      continue;
    }
    let ok = s.twice === 0 && !s.noIdReconnect;
    for (const [row, count] of expected(s.viewer)) {
      const got = s.perRow.get(row) ?? 0;
      if (got < count) g.lost += count - got;
      if (got > count) g.twice += got - count;
      if (got !== count) ok = false;
      if (s.last.get(row) !== finalNote.get(row)) {
        g.staleLast += 1;
        ok = false;
      }
    }
    if (ok) g.complete += 1;
  }
  hangUp(subs);
  await sleep(500);

  // Throughput with the streams open, then without again, THROUGHPUT_ROUNDS times: the rate of one
  // phase moves with whatever else the machine does, so each ratio is taken against the phases
  // without streams just before and after it, and the median of those ratios is the figure.
  // The restarted instance warms up first (its first seconds run unoptimized code).
  await throughput();
  const withRuns: Array<Awaited<ReturnType<typeof withCpu>>> = [];
  // Events an edit calls for: the streams whose viewer sees its row's bucket, averaged over the buckets (rows are spread evenly).
  const perEditEvents = Array.from({ length: BUCKETS }, (_, b) => subs.filter((s) => bucketsOf(s.viewer).includes(b)).length).reduce((n, x) => n + x, 0) / BUCKETS;
  const delivered: Array<{ share: number; lagMs: number }> = [];
  const noneRuns = [none1];
  let overflowed = 0;
  for (let round = 0; round < THROUGHPUT_ROUNDS; round += 1) {
    const reopened: Subscriber[] = subs.map((s) => ({ ...s, on: s.n % 2 === 0 ? 'a' : 'b', lastId: undefined, reload: undefined, closed: undefined }));
    const opened: number[] = [];
    for (let i = 0; i < reopened.length; i += 50) opened.push(...(await Promise.all(reopened.slice(i, i + 50).map((s) => openCounting(s)))));
    if (opened.some((c) => c !== 200)) throw new Error(`streams refused in round ${round + 1}: ${opened.filter((c) => c !== 200).length} (${[...new Set(opened)].join(', ')})`);
    const countedBefore = counted;
    const run = await withCpu(throughput);
    withRuns.push(run);
    // The events still owed when the writes stopped: waited for (until none came for a second) and
    // reported, so a hub that fell behind shows here instead of flattering the ratio.
    const ended = Date.now();
    let [seen, lastAt] = [counted, ended];
    while (Date.now() - lastAt < 1000 && Date.now() - ended < 60_000) {
      await sleep(100);
      if (counted !== seen) [seen, lastAt] = [counted, Date.now()];
    }
    delivered.push({ share: (counted - countedBefore) / (run.edits * perEditEvents), lagMs: lastAt - ended });
    overflowed += reopened.filter((s) => s.reload === 'overflow').length;
    hangUp(reopened);
    await sleep(1000);
    noneRuns.push(await withCpu(throughput));
  }
  const failed = [...noneRuns, ...withRuns].reduce((n, r) => n + r.failed, 0);
  const load1 = loadavg();
  const ratios = withRuns.map((w, i) => w.rps / ((noneRuns[i]!.rps + noneRuns[i + 1]!.rps) / 2));
  const ratio = median(ratios);
  const perEdit = (runs: typeof noneRuns) => median(runs.map((r) => (r.instancesCpu * 1000) / Math.max(1, r.edits)));
  const withStreams = withRuns[withRuns.length - 1]!;
  const none2 = noneRuns[noneRuns.length - 1]!;
  const perStream = (heapWith.heap - heapBefore.heap) / Math.max(1, heapWith.streams - heapBefore.streams);
  console.log(
    `live tables, two fwAdmin instances: ${setting}; ${STREAMS} streams of ${VIEWERS} viewers (two of ${BUCKETS} buckets of ${ROWS} rows each), ${RATE} cell edits/s, phases of ${SECONDS} s`,
  );
  console.log(
    `  started ${startedAt.toISOString()}, load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start, ${load1.map((x) => x.toFixed(1)).join(' ')} at the end`,
  );
  console.log(
    `  delivery latency, commit to subscriber socket (${steady.length} events, steady ${SECONDS} s before the restart): p50 ${median(steady)} ms, p99 ${pct(steady, 99)} ms`,
  );
  console.log(
    `  memory per open stream: heap ${(perStream / 1024).toFixed(1)} KiB (both instances ${((heapWith.heap - heapBefore.heap) / 1048576).toFixed(1)} MiB for ${heapWith.streams} streams), rss ${((heapWith.rss - heapBefore.rss) / Math.max(1, heapWith.streams) / 1024).toFixed(1)} KiB`,
  );
  console.log(
    `  cell-edit throughput, phases in turn: 0 streams ${noneRuns.map((r) => r.rps.toFixed(0)).join(', ')} req/s; ${STREAMS} streams ${withRuns.map((r) => r.rps.toFixed(0)).join(', ')} req/s; ratio per round (against the phases either side) ${ratios.map((r) => r.toFixed(2)).join(', ')}, median ${ratio.toFixed(2)} (goal >= 0.9); ${overflowed} streams overflowed (reload) under that load; ${failed} failed requests`,
  );
  console.log(
    `  events delivered in each phase with streams: ${delivered.map((d) => `${(d.share * 100).toFixed(1)} %`).join(', ')} of those its edits called for (the ready events of the opening streams included); the last of them ${delivered.map((d) => d.lagMs).join(', ')} ms after the phase's writes ended`,
  );
  console.log(
    `  instance CPU per edit (median of the phases): 0 streams ${perEdit(noneRuns).toFixed(2)} ms, ${STREAMS} streams ${perEdit(withRuns).toFixed(2)} ms; last phases, instances / this process (which reads the streams): 0 streams ${none2.instancesCpu.toFixed(1)} / ${none2.readerCpu.toFixed(1)} s, ${STREAMS} streams ${withStreams.instancesCpu.toFixed(1)} / ${withStreams.readerCpu.toFixed(1)} s (${counted} events counted, not parsed)`,
  );
  console.log(
    `  restart of one instance (down ${downMs} ms, killed after ${SECONDS} s of edits) during ${committed.size} committed edits (${failedEdits} failed); caught up ${drainMs} ms after the last edit:`,
  );
  for (const [name, g] of groups) {
    const reload = [...g.reload].map(([r, n]) => `${n} (${r})`).join(', ') || 'none';
    console.log(
      `    ${name}: ${g.streams} streams, ${g.complete} got every event once, told to reload ${reload}; events lost ${g.lost}, duplicated ${g.twice}, rows left on a stale value ${g.staleLast}, reconnected without an id ${g.noId}`,
    );
  }
} finally {
  for (const child of workers.values()) {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  await sleep(500);
  await database.drop();
  if (redisUrl) {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}
