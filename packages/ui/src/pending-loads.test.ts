import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { QueryClient, type Query } from '@tanstack/query-core';

// Issue 24 §3: a live event's patch is kept for the page load in flight when it came (that load
// may have read the rows before the change) and applied to what it brings, and to that load only:
// a refetch that cancels it (the invalidation after an Undo) reads after the event, and the patch
// must not take out rows that came back since. The model page's pendingLoads.ts runs here against
// a real TanStack QueryClient whose loads are answered by hand.
const MODULE = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'model', 'pendingLoads.ts');

type Rows = string[];
interface PendingLoads {
  keep(query: Query, patch: (data: unknown) => unknown): void;
  stop(): void;
}

async function load(): Promise<(client: QueryClient) => PendingLoads> {
  return ((await import(pathToFileURL(MODULE).href)) as { followLoads: (client: QueryClient) => PendingLoads }).followLoads;
}

const KEY = ['fw', 'Book', 'table', { page: 1 }];

/** A query client whose loads of KEY wait until `answer` is called; `loads` counts them. */
function client() {
  const waiting: Array<{ resolve: (rows: Rows) => void; reject: (error: Error) => void }> = [];
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity } } });
  const options = {
    queryKey: KEY,
    queryFn: ({ signal }: { signal: AbortSignal }) =>
      new Promise<Rows>((resolve, reject) => {
        waiting.push({ resolve, reject });
        signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      }),
  };
  const query = () => queryClient.getQueryCache().find({ queryKey: KEY }) as Query;
  return {
    queryClient,
    options,
    query,
    data: () => queryClient.getQueryData<Rows>(KEY),
    /** Answers the oldest load still waiting (a cancelled one's answer lands nowhere). */
    answer: async (rows: Rows) => {
      waiting.shift()?.resolve(rows);
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
    /** Fails the oldest load still waiting (the network went away). */
    fail: async () => {
      waiting.shift()?.reject(new TypeError('Failed to fetch'));
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
    waiting,
  };
}

const without = (title: string) => (data: unknown) => (data as Rows).filter((t) => t !== title);

describe('ui live tables: patches kept for the load in flight (pendingLoads.ts)', function () {
  let followLoads: (client: QueryClient) => PendingLoads;
  before(async function () {
    followLoads = await load();
  });

  it('a delete that comes while a load is in flight is applied to what the load brings', async function () {
    const c = client();
    const pending = followLoads(c.queryClient);
    c.queryClient.setQueryData(KEY, ['Leaves of Grass', 'The Waste Land', 'Walden']);
    const loading = c.queryClient.fetchQuery({ ...c.options, staleTime: 0 });
    expect(c.query().state.fetchStatus).to.equal('fetching');
    // The delete event: the cached page is patched, and the patch kept for the load.
    c.queryClient.setQueryData(KEY, without('Walden')(c.data()));
    pending.keep(c.query(), without('Walden'));
    // The load read before the delete.
    await c.answer(['Leaves of Grass', 'The Waste Land', 'Walden']);
    await loading;
    expect(c.data()).to.deep.equal(['Leaves of Grass', 'The Waste Land']);
    pending.stop();
  });

  it('a load that replaced the one in flight (cancelRefetch) read after the event: its rows stay', async function () {
    const c = client();
    const pending = followLoads(c.queryClient);
    c.queryClient.setQueryData(KEY, ['Leaves of Grass', 'The Waste Land', 'Walden']);
    void c.queryClient.fetchQuery({ ...c.options, staleTime: 0 }).catch(() => undefined);
    // Two rows deleted while the first load is in flight.
    pending.keep(c.query(), without('Leaves of Grass'));
    pending.keep(c.query(), without('The Waste Land'));
    c.queryClient.setQueryData(KEY, ['Walden']);
    // Undo puts them back and invalidates the model: the load in flight is cancelled, a new one starts.
    const again = c.queryClient.refetchQueries({ queryKey: KEY }, { cancelRefetch: true });
    expect(c.waiting).to.have.length(2);
    expect(c.query().state.fetchStatus).to.equal('fetching');
    c.waiting.shift(); // the cancelled load never answers
    await c.answer(['Leaves of Grass', 'The Waste Land', 'Walden']);
    await again;
    expect(c.data()).to.deep.equal(['Leaves of Grass', 'The Waste Land', 'Walden']);
    pending.stop();
  });

  it('a replacing load that TanStack starts without a fetch action (same meta) still lands as it is', async function () {
    const c = client();
    const pending = followLoads(c.queryClient);
    c.queryClient.setQueryData(KEY, ['Leaves of Grass', 'Walden']);
    const query = c.query() ?? c.queryClient.getQueryCache().build(c.queryClient, c.options);
    const actions: string[] = [];
    const unsubscribe = c.queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated') actions.push(event.action.type);
    });
    void query.fetch(c.options, { meta: null } as never).catch(() => undefined);
    pending.keep(query, without('Leaves of Grass'));
    // The same meta as the load in flight: the query stays 'fetching' and no `fetch` action is sent.
    const again = query.fetch(c.options, { cancelRefetch: true, meta: null } as never);
    expect(
      actions.filter((a) => a === 'fetch'),
      'actions seen',
    ).to.have.length(1);
    c.waiting.shift();
    await c.answer(['Leaves of Grass', 'Walden']);
    await again;
    expect(c.data()).to.deep.equal(['Leaves of Grass', 'Walden']);
    unsubscribe();
    pending.stop();
  });

  it('an event during the replacing load is kept for that load', async function () {
    const c = client();
    const pending = followLoads(c.queryClient);
    c.queryClient.setQueryData(KEY, ['Leaves of Grass', 'Walden']);
    void c.queryClient.fetchQuery({ ...c.options, staleTime: 0 }).catch(() => undefined);
    pending.keep(c.query(), without('Leaves of Grass'));
    const again = c.queryClient.refetchQueries({ queryKey: KEY }, { cancelRefetch: true });
    pending.keep(c.query(), without('Walden'));
    c.waiting.shift();
    await c.answer(['Leaves of Grass', 'Walden']);
    await again;
    expect(c.data()).to.deep.equal(['Leaves of Grass']);
    pending.stop();
  });

  it('a load that failed drops what was kept: the next load is not patched', async function () {
    const c = client();
    const pending = followLoads(c.queryClient);
    c.queryClient.setQueryData(KEY, ['Walden']);
    const failing = c.queryClient.fetchQuery({ ...c.options, staleTime: 0 }).catch((error: unknown) => error);
    pending.keep(c.query(), without('Walden'));
    // The first load fails (a network error).
    await c.fail();
    expect(await failing).to.be.instanceOf(TypeError);
    const next = c.queryClient.fetchQuery({ ...c.options, staleTime: 0 });
    await c.answer(['Walden']);
    await next;
    expect(c.data()).to.deep.equal(['Walden']);
    pending.stop();
  });

  it('nothing is kept when no load is in flight', async function () {
    const c = client();
    const pending = followLoads(c.queryClient);
    c.queryClient.setQueryData(KEY, ['Walden']);
    pending.keep(c.query(), without('Walden'));
    const next = c.queryClient.fetchQuery({ ...c.options, staleTime: 0 });
    await c.answer(['Walden']);
    await next;
    expect(c.data()).to.deep.equal(['Walden']);
    pending.stop();
  });
});
