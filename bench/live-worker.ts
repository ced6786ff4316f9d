// One fwAdmin instance of bench/live.bench.ts, in a process of its own (run with --expose-gc):
// argv[2] the database URL, argv[3] a Redis URL or '-', argv[4] the Redis key prefix. Listens on a
// free loopback port and prints its URL. GET /bench-heap collects garbage and answers the heap in
// use and the open live streams; GET /bench-cpu answers the CPU time used so far and the cell edits
// answered 200.
import Koa from 'koa';
import { fwAdmin } from '@fw/admin';
import { listen } from './lib.js';
import { LiveRow } from './live-model.js';

const redis = process.argv[3] && process.argv[3] !== '-' ? process.argv[3] : undefined;
const app = new Koa();
app.silent = true;
const gc = (globalThis as { gc?: () => void }).gc;
let edits = 0;
app.use(async (ctx, next) => {
  // The CPU this process used so far (µs, user + system) and the cell edits it made: the bench takes deltas over a phase.
  if (ctx.path === '/bench-cpu') {
    const used = process.cpuUsage();
    ctx.body = { cpu: used.user + used.system, edits };
    return;
  }
  if (ctx.path.endsWith('/update-cell')) {
    await next();
    if (ctx.status === 200) edits += 1;
    return;
  }
  if (ctx.path !== '/bench-heap') return next();
  for (let i = 0; i < 3; i += 1) gc?.();
  ctx.body = { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss, streams: admin.data.live.size, gc: gc !== undefined };
});
const admin = await fwAdmin(app, {
  db: process.argv[2]!,
  models: [LiveRow],
  ...(redis ? { redis, redisPrefix: process.argv[4] } : {}),
  ui: false,
  ai: false,
  openapi: false,
  // 500 streams of 50 viewers: 10 each, on one instance at worst.
  data: { live: { maxStreamsPerUser: 50 } },
});
app.use(admin.middleware);
const server = await listen(app);
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  server.close();
  void admin.close().then(() => process.exit(0));
});
