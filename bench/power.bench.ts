// Permission checks per second: @fw/power against @casl/ability 6 `can()` for the same rule set,
// measured in the same run. Bounded to a few seconds.
// Run: node --import tsx --conditions=fw-source bench/power.bench.ts
//
// Rule set: one user whose role grants query, add and edit on 10 models (the model menu plus
// <Model>@ADD and <Model>@EDIT) and nothing on 10 others. Models have no power handler. Both sides
// answer the same cycle of (model, action) questions, half on granted models, half not.
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { defineModel, type PowerFlag } from '@fw/core';
import { PowerResolver, grantedPower, type PowerUser } from '@fw/power';

const ROUND_MS = 300;
const ROUNDS = 3;

let sink = 0; // every answer feeds this so the JIT cannot drop the work

/** Checks per second of a timed loop `run(ms)`, best of a few rounds after a warm-up. */
async function best(run: (ms: number) => Promise<number> | number): Promise<number> {
  await run(150);
  let top = 0;
  for (let r = 0; r < ROUNDS; r++) top = Math.max(top, await run(ROUND_MS));
  return top;
}

// Batches of 1024 keep the clock reads off the measured path.
const BATCH = 1024;

/** Times a synchronous check `fn(i)`. */
function syncLoop(fn: (i: number) => boolean): (ms: number) => number {
  return (ms) => {
    let ops = 0;
    const start = process.hrtime.bigint();
    const limit = BigInt(ms) * 1_000_000n;
    for (;;) {
      for (let i = 0; i < BATCH; i++) if (fn(ops + i)) sink += 1;
      ops += BATCH;
      const elapsed = process.hrtime.bigint() - start;
      if (elapsed >= limit) return (ops * 1e9) / Number(elapsed);
    }
  };
}

const granted = Array.from({ length: 10 }, (_, i) => defineModel({ name: `Granted${i}`, fields: { title: {} } }));
const others = Array.from({ length: 10 }, (_, i) => defineModel({ name: `Other${i}`, fields: { title: {} } }));
const models = [...granted, ...others];
const actions: readonly PowerFlag[] = ['query', 'add', 'edit', 'delete'];
const questions = Array.from({ length: models.length * actions.length }, (_, i) => ({
  model: models[i % models.length]!,
  action: actions[Math.floor(i / models.length) % actions.length]!,
}));

const user: PowerUser = { id: 42, account: 'ann' };
const codes = new Set(granted.flatMap((m) => [m.name, `${m.name}@ADD`, `${m.name}@EDIT`]));
const grants = { codes, version: 1 };
const resolver = new PowerResolver();

const { can, build } = new AbilityBuilder(createMongoAbility);
for (const m of granted) can(['query', 'add', 'edit'], m.name);
const ability = build(); // built once, as an app would per user and role version

// Both sides must give the same answers, or the comparison means nothing.
for (const q of questions) {
  const ours = (await resolver.resolve(q.model, user, grants))[q.action];
  if (ours !== ability.can(q.action, q.model.name) || ours !== grantedPower(q.model, user, codes)[q.action]) {
    throw new Error(`answers differ for ${q.action} on ${q.model.name}`);
  }
}

const started = Date.now();
const n = questions.length;
const casl = await best(
  syncLoop((i) => {
    const q = questions[i % n]!;
    return ability.can(q.action, q.model.name);
  }),
);
// What a request does: await the effective power, read one flag.
const cached = await best(async (ms) => {
  let ops = 0;
  const start = process.hrtime.bigint();
  const limit = BigInt(ms) * 1_000_000n;
  for (;;) {
    for (let i = 0; i < BATCH; i++) {
      const q = questions[(ops + i) % n]!;
      const power = await resolver.resolve(q.model, user, grants);
      if (power[q.action]) sink += 1;
    }
    ops += BATCH;
    const elapsed = process.hrtime.bigint() - start;
    if (elapsed >= limit) return (ops * 1e9) / Number(elapsed);
  }
});
const plain = await best(
  syncLoop((i) => {
    const q = questions[i % n]!;
    return grantedPower(q.model, user, codes)[q.action];
  }),
);

const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(12);
const line = (label: string, ops: number, note = '') => console.log(`${label.padEnd(52)}${fmt(ops)} checks/s${note ? `   ${note}` : ''}`);
line('baseline @casl/ability can(action, subject)', casl);
line('PowerResolver.resolve (cached, awaited) + flag read', cached, `ratio ours/casl ${(cached / casl).toFixed(2)}`);
line('grantedPower (no cache, sync) + flag read', plain, `ratio ours/casl ${(plain / casl).toFixed(2)}`);
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s, best of ${ROUNDS} × ${ROUND_MS} ms per figure, checksum ${sink % 997})`);
