// One Fw instance of bench/two-instances.bench.ts, in a process of its own: fwData on the
// database named by argv[2], tokens in that database or, when argv[3] names a Redis
// (argv[4] the key prefix), in Redis; listens on a free loopback port and prints its URL.
import Koa from 'koa';
import { createRegistry } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore } from '@fw/store';
import { FwTokenService, KnexTokenStore, RedisTokenStore, createRedis } from '@fw/token';
import { listen, ready } from './lib.js';
import { Task } from './task-model.js';

const store = createStore(process.argv[2]!);
const redis = process.argv[3] ? createRedis(process.argv[3]) : undefined;
// The client refuses commands until it is connected (no offline queue): wait for it.
if (redis) await ready(redis);
const tokens = new FwTokenService({ store: redis ? new RedisTokenStore({ redis, prefix: process.argv[4] }) : new KnexTokenStore({ knex: store.knex }) });
const app = new Koa();
// GET /bench-cpu: this process's CPU time (µs) and the requests it answered, so the benchmark can
// tell CPU spent per request from time spent waiting.
let answered = 0;
app.use(async (ctx, next) => {
  if (ctx.path === '/bench-cpu') {
    const { user, system } = process.cpuUsage();
    ctx.body = { cpu: user + system, answered };
    return;
  }
  await next();
  answered += 1;
});
app.use(fwData({ store, tokens, registry: createRegistry([Task]) }));
const server = await listen(app);
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  server.close();
  redis?.disconnect();
  void store.destroy().then(() => process.exit(0));
});
