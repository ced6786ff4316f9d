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
const ROUNDS = 5;

let sink = 0; // every answer feeds this so the JIT cannot drop the work

/**
 * Checks per second of each timed loop `run(ms)`: a warm-up each, then ROUNDS rounds in which the
 * loops take turns (so drift in machine load hits all of them alike); the best round of each.
 * Rates are per second of this process's CPU time, not of the wall clock, so time the scheduler
 * gives to other processes on a loaded machine does not count against whichever loop it hit.
 */
async function alternate(runs: Record<string, (ms: number) => Promise<number> | number>): Promise<Record<string, number>> {
  const top: Record<string, number> = {};
  for (const [name, run] of Object.entries(runs)) {
    await run(150);
    top[name] = 0;
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(runs)) top[name] = Math.max(top[name]!, await run(ROUND_MS));
  }
  return top;
}

/** CPU microseconds (user + system) of this process so far. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

// Batches of 1024 keep the clock reads off the measured path.
const BATCH = 1024;

/**
 * Times a synchronous check `fn(i)`. Each loop is compiled from its own source text, so V8 keeps
 * separate type feedback per loop: with one shared loop, the call `fn(...)` would turn polymorphic
 * once a second check ran through it, and whichever check ran first would be measured faster.
 */
function syncLoop(fn: (i: number) => boolean): (ms: number) => number {
  const loop = new Function(
    'fn',
    'cpuMicros',
    'BATCH',
    `return function loop(ms) {
      let ops = 0, hits = 0;
      const start = cpuMicros();
      const limit = ms * 1000;
      for (;;) {
        for (let i = 0; i < BATCH; i++) if (fn(ops + i)) hits += 1;
        ops += BATCH;
        const elapsed = cpuMicros() - start;
        if (elapsed >= limit) return [(ops * 1e6) / elapsed, hits];
      }
    };`,
  )(fn, cpuMicros, BATCH) as (ms: number) => [number, number];
  return (ms) => {
    const [rate, hits] = loop(ms);
    sink += hits;
    return rate;
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

// Every model again, with a synchronous handler that runs on every call (it turns `export` off).
const handled = models.map((m) => defineModel({ name: m.name, power: { powerHandler: (p) => void (p.export = false) }, fields: { title: {} } }));
const handledQuestions = questions.map((q) => ({ model: handled[models.indexOf(q.model)]!, action: q.action }));
for (const q of handledQuestions) {
  if (resolver.check(q.model, user, grants, q.action) !== ability.can(q.action, q.model.name)) throw new Error(`answers differ for ${q.action} on ${q.model.name} (handler)`);
}

const started = Date.now();
const n = questions.length;
const rates = await alternate({
  casl: syncLoop((i) => {
    const q = questions[i % n]!;
    return ability.can(q.action, q.model.name);
  }),
  // The same question answered synchronously from the cache (no handler on these models).
  checked: syncLoop((i) => {
    const q = questions[i % n]!;
    return resolver.check(q.model, user, grants, q.action) === true;
  }),
  checkedHandler: syncLoop((i) => {
    const q = handledQuestions[i % n]!;
    return resolver.check(q.model, user, grants, q.action) === true;
  }),
  // What a request did before `check`: await the effective power, read one flag.
  cached: async (ms) => {
    let ops = 0;
    const start = cpuMicros();
    const limit = ms * 1000;
    for (;;) {
      for (let i = 0; i < BATCH; i++) {
        const q = questions[(ops + i) % n]!;
        const power = await resolver.resolve(q.model, user, grants);
        if (power[q.action]) sink += 1;
      }
      ops += BATCH;
      const elapsed = cpuMicros() - start;
      if (elapsed >= limit) return (ops * 1e6) / elapsed;
    }
  },
  plain: syncLoop((i) => {
    const q = questions[i % n]!;
    return grantedPower(q.model, user, codes)[q.action];
  }),
});
const { casl, checked, checkedHandler, cached, plain } = rates as Record<'casl' | 'checked' | 'checkedHandler' | 'cached' | 'plain', number>;

const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(12);
const line = (label: string, ops: number, note = '') => console.log(`${label.padEnd(52)}${fmt(ops)} checks/s${note ? `   ${note}` : ''}`);
line('baseline @casl/ability can(action, subject)', casl);
line('PowerResolver.check (cached, sync, no handler)', checked, `ratio ours/casl ${(checked / casl).toFixed(2)}`);
line('PowerResolver.check (cached, sync handler each call)', checkedHandler, `ratio ours/casl ${(checkedHandler / casl).toFixed(2)}`);
line('PowerResolver.resolve (cached, awaited) + flag read', cached, `ratio ours/casl ${(cached / casl).toFixed(2)}`);
line('grantedPower (no cache, sync) + flag read', plain, `ratio ours/casl ${(plain / casl).toFixed(2)}`);
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s, best of ${ROUNDS} alternating rounds × ${ROUND_MS} ms of CPU time per figure, checksum ${sink % 997})`);
