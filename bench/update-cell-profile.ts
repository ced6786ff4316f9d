// A CPU profile of update-cell under load, for docs/performance.md: only the full-stack route
// (no baseline), 10 connections for 6 s on rows 1..1000 in turn, in a process of its own.
// Run: node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx --conditions=fw-source bench/update-cell-profile.ts
// (BENCH_DB=postgres with FW_TEST_PG_URL set for PostgreSQL); open the .cpuprofile in a profiler.
// Not a *.bench.ts file: `npm run bench` does not run it.
import Koa from 'koa';
import { createRegistry } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore } from '@fw/store';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { benchUser, listen, load } from './lib.js';
import { Task } from './task-model.js';

const spec = sqlBackends().find((b) => b.dialect === (process.env.BENCH_DB ?? 'sqlite'));
if (!spec || (spec.envVar && !spec.serverUrl)) throw new Error(`no ${process.env.BENCH_DB} server configured`);
const database = await createTestDatabase(spec);
const store = createStore(database.url);
try {
  await store.migrate.latest();
  const registry = createRegistry([Task]);
  await store.createModelTables(registry.list());
  for (let i = 0; i < 1000; i += 100)
    await store.knex('bench_task').insert(Array.from({ length: 100 }, () => ({ subject: 'Write', note: 'start', startDate: '2024-01-01', endDate: '2024-02-01', done: false })));
  const { tokens, token } = await benchUser(store, Task, true);
  const app = new Koa();
  app.use(fwData({ store, tokens, registry }));
  const server = await listen(app);
  const body = '{"id":[<row>],"field":"note","value":"note [<id>]"}';
  const result = await load(`${server.url}/fw-api/data/modify/Task/update-cell`, { seconds: 6, connections: 10, body, uniqueIds: true, rows: 1000, headers: { token } });
  console.log(result);
  server.close();
} finally {
  await store.destroy();
  await database.drop();
}
