// Token throughput: generateToken() against two baselines measured in the same run, and
// resolve() on the memory store against the SHA-256 it cannot avoid. Bounded to a few seconds.
// Run: node --import tsx --conditions=fw-source bench/token.bench.ts
import { randomBytes } from 'node:crypto';
import { MemoryTokenStore, TOKEN_ALPHABET, createTokenService, generateToken, hashToken } from '@fw/token';

const ROUND_MS = 250;
const ROUNDS = 3;

let sink = 0; // results feed this so the JIT cannot drop the work

/** Operations per second of `fn`, best of a few timed rounds after a warm-up. */
async function measure(fn: () => unknown | Promise<unknown>, isAsync: boolean): Promise<number> {
  const run = async (ms: number): Promise<number> => {
    let ops = 0;
    const start = process.hrtime.bigint();
    const limit = BigInt(ms) * 1_000_000n;
    for (;;) {
      // Batches of 256 keep the clock reads off the measured path.
      for (let i = 0; i < 256; i++) {
        const value = isAsync ? await fn() : fn();
        if (typeof value === 'string') sink += value.length;
        else if (value) sink += 1;
      }
      ops += 256;
      const elapsed = process.hrtime.bigint() - start;
      if (elapsed >= limit) return (ops * 1e9) / Number(elapsed);
    }
  };
  await run(100);
  let best = 0;
  for (let r = 0; r < ROUNDS; r++) best = Math.max(best, await run(ROUND_MS));
  return best;
}

/** The textbook version: one random byte per character, reduced with `% 62` (biased). */
function naiveModulo(): string {
  const bytes = randomBytes(16);
  let out = '';
  for (const b of bytes) out += TOKEN_ALPHABET[b % 62];
  return out;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);
const line = (label: string, ops: number, note = '') => console.log(`${label.padEnd(46)}${fmt(ops)} ops/s${note ? `   ${note}` : ''}`);

const started = Date.now();

const ours = await measure(generateToken, false);
const base64url = await measure(() => randomBytes(12).toString('base64url'), false);
const naive = await measure(naiveModulo, false);
line('generateToken()', ours);
line('baseline randomBytes(12).toString(base64url)', base64url, `generateToken is ${(ours / base64url).toFixed(2)}x this`);
line('baseline naive % 62 (biased)', naive, `generateToken is ${(ours / naive).toFixed(2)}x this`);

const store = new MemoryTokenStore();
const service = createTokenService({ store });
const tokens: string[] = [];
for (let i = 0; i < 10_000; i++) tokens.push((await service.loginToken({ id: i % 500, account: `u${i % 500}` })).token);
let k = 0;
const resolveOps = await measure(() => service.resolve(tokens[k++ % tokens.length]), true);
let h = 0;
const hashOps = await measure(() => hashToken(tokens[h++ % tokens.length]!), false);
line('resolve() on MemoryTokenStore (10,000 tokens)', resolveOps);
line('baseline hashToken() alone', hashOps, `resolve is ${(resolveOps / hashOps).toFixed(2)}x this`);

console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s, best of ${ROUNDS} × ${ROUND_MS} ms per figure, checksum ${sink % 997})`);
