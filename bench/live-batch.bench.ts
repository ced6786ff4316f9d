// The live hub's batches (docs/data.md, "Batches under load"), in one process on PostgreSQL (else SQLite):
// the CPU time of delivering 256 one-row cell-edit messages (BENCH_BATCH) to 250 streams of 50
// filtered viewers (the share of one instance in bench/live.bench.ts) one message at a time, against
// the same messages delivered as one batch. Nobody reads the streams (each holds what it was sent, read after the
// timing and compared), so only the hub's work is timed. Rounds alternate, the median of each is shown.
// Knobs: BENCH_ROUNDS (default 7), BENCH_BATCH (256). Run: npm run bench -- live-batch
import { BUILTIN_MODELS, createRegistry, type FwUser } from '@fw/core';
import { createStore } from '@fw/store';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { DataService } from '../packages/data/src/service.js';
import { liveMessageId, type LiveMessage } from '../packages/data/src/live/bus.js';
import { deliverBatch } from '../packages/data/src/live/deliver.js';
import { LiveStream } from '../packages/data/src/live/stream.js';
import { median } from './lib.js';
import { BUCKETS, LiveRow } from './live-model.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const VIEWERS = 50;
const STREAMS = 250;
const ROWS = 1000;
/** Messages in the batch (BENCH_BATCH): about what one interval holds at the full rate of bench/live.bench.ts. */
const BATCH_MESSAGES = Number(process.env.BENCH_BATCH ?? 256);

// PostgreSQL when FW_TEST_PG_URL is set (as bench/live.bench.ts), else a SQLite file.
const backends = sqlBackends();
const spec = backends.find((b) => b.dialect === 'postgres' && b.serverUrl) ?? backends.find((b) => b.dialect === 'sqlite')!;
const database = await createTestDatabase(spec);
const store = createStore(database.url);
try {
  await store.migrate.latest();
  const registry = createRegistry([...BUILTIN_MODELS, LiveRow]);
  await store.createModelTables(registry.list());
  for (let i = 0; i < ROWS; i += 200) await store.knex('bench_live_row').insert(Array.from({ length: 200 }, (_, j) => ({ bucket: (i + j) % BUCKETS, note: 'start' })));
  const { menu } = await store.menus.createModelMenu(LiveRow);
  const role = await store.roles.create({ code: 'lb-viewer', name: 'Viewer' });
  await store.roles.setMenus(role.id, [menu.id]);
  const users: FwUser[] = [];
  for (let k = 0; k < VIEWERS; k += 1) {
    const user = await store.users.create({ account: `lv-${k}`, password: 'lv-password-1', mustChangePassword: false });
    await store.users.setRoles(user.id, [role.id]);
    users.push({ id: user.id, account: user.account, isAdmin: false });
  }
  const service = new DataService({ store, registry });
  const errors: unknown[] = [];
  const streams = () =>
    Array.from(
      { length: STREAMS },
      (_, n) =>
        new LiveStream(
          LiveRow,
          { user: users[n % VIEWERS]!, ip: null, source: 'http' },
          't',
          { queueSize: 100_000, heartbeatMs: 600_000, tokenCheckMs: 600_000 },
          async () => true,
          () => undefined,
        ),
    );
  const messages = (): LiveMessage[] =>
    Array.from({ length: BATCH_MESSAGES }, () => ({
      id: liveMessageId('bench'),
      origin: 'bench',
      model: 'LiveRow',
      kind: 'update',
      ids: [1 + Math.floor(Math.random() * ROWS)],
      changed: ['note'],
      actor: { id: 1, account: 'admin' },
      at: new Date().toISOString(),
    }));
  const cpu = async (run: () => Promise<void>) => {
    const start = process.cpuUsage();
    await run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const oneByOne: number[] = [];
  const batched: number[] = [];
  // What the streams were sent, read after the timing: the batch must have sent the same text.
  const sent = async (list: LiveStream[]) => {
    const texts = list.map(() => '');
    list.forEach((s, i) => s.body.on('data', (chunk: Buffer) => (texts[i] += chunk.toString())));
    await new Promise((resolve) => setTimeout(resolve, 50));
    return texts.join('\u0000');
  };
  let bytes = 0;
  for (let round = 0; round <= ROUNDS; round += 1) {
    const a = streams();
    const b = streams();
    const list = messages();
    const t1 = await cpu(async () => {
      for (const message of list) await deliverBatch(service, [{ message, streams: a }], (e) => errors.push(e));
    });
    const t2 = await cpu(() =>
      deliverBatch(
        service,
        list.map((message) => ({ message, streams: b })),
        (e) => errors.push(e),
      ),
    );
    const [textA, textB] = [await sent(a), await sent(b)];
    if (textA !== textB) throw new Error('the batch sent other text than one message at a time');
    bytes = textA.length;
    for (const s of [...a, ...b]) s.abandon();
    // Round 0 warms the JIT and the caches.
    if (round === 0) continue;
    oneByOne.push(t1);
    batched.push(t2);
  }
  if (bytes < STREAMS * 100) throw new Error(`the streams got almost nothing (${bytes} characters): no viewer saw the edited rows`);
  if (errors.length > 0) throw new Error(`delivery failed: ${String(errors[0])}`);
  const [one, all] = [median(oneByOne), median(batched)];
  console.log(
    `live hub batches: ${BATCH_MESSAGES} one-row update messages to ${STREAMS} streams of ${VIEWERS} viewers (two of ${BUCKETS} buckets of ${ROWS} rows each), ${spec.dialect}, ${ROUNDS} rounds`,
  );
  console.log(`  one message at a time: ${one.toFixed(1)} ms CPU (${((one * 1000) / BATCH_MESSAGES).toFixed(0)} µs a message)`);
  console.log(`  as one batch:          ${all.toFixed(1)} ms CPU (${((all * 1000) / BATCH_MESSAGES).toFixed(0)} µs a message)`);
  console.log(`  ratio batch / one at a time: ${(all / one).toFixed(2)}; the streams got the same ${bytes} characters either way`);
} finally {
  await store.destroy();
  await database.drop();
}
