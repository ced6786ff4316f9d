// Heap held by live tokens in the memory store: 100,000 tokens issued through the token service
// (spread over 10,000 users), heap measured after full garbage collections before and after, with
// the per-token cost. The goal is at most 50 MB for 100,000 tokens. A few seconds.
// Run: npm run bench -- token-memory
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryTokenStore, createTokenService } from '@fw/token';

const TOKENS = 100_000;
const USERS = 10_000;

// A full collection without asking for --expose-gc on the command line.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

const before = settledHeap();
const store = new MemoryTokenStore({ maxEntries: TOKENS });
const service = createTokenService({ store });
// The tokens themselves are the clients' business and are not kept here: only the store's heap counts.
for (let i = 0; i < TOKENS; i++) await service.loginToken({ id: 1 + (i % USERS), account: `u${i % USERS}` });
const after = settledHeap();
if (store.size !== TOKENS) throw new Error(`expected ${TOKENS} tokens in the store, found ${store.size}`);

const bytes = after - before;
const mb = (n: number) => (n / 1e6).toFixed(1);
console.log(`memory store, ${TOKENS.toLocaleString('en-US')} live tokens of ${USERS.toLocaleString('en-US')} users:`);
console.log(`  heap held   ${mb(bytes)} MB (goal <= 50 MB)`);
console.log(`  per token   ${Math.round(bytes / TOKENS)} bytes`);
