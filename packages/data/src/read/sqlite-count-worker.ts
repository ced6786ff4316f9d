// Full counts of a SQLite file on a worker thread. better-sqlite3 runs a statement to its end on
// the thread that called it, so a `count(*)` of ten million rows (about half a second) would stop
// every other request of the process meanwhile. On a worker of its own, with its own read-only
// connection, the count runs beside them; one statement reads one snapshot, so the number is
// exact for the moment it started. A count past its time limit is answered "out of time" at once;
// its worker is told to end, which happens when the statement returns (a running SQLite
// statement cannot be interrupted from JavaScript; a table count ends on its own), and the next
// count starts a new worker. The worker is started on the first count and kept (unref'd).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// The worker's code, plain CommonJS so that it runs the same from TypeScript sources and from
// dist/. It receives `{ id, sql, bindings, all }` and answers `{ id, n }` (the first column of the
// first row: a count), `{ id, rows }` (every row, when `all`) or `{ id, error }`.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
const statements = new Map();
parentPort.on('message', ({ id, sql, bindings, all }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= 100) statements.clear();
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    if (all) {
      parentPort.postMessage({ id, rows: statement.all(bindings) });
      return;
    }
    const row = statement.get(bindings);
    parentPort.postMessage({ id, n: Number(row ? Object.values(row)[0] : 0) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

interface Pending {
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
}

/** The worker could not be started (no worker threads, the driver not found): count otherwise. */
export class CountWorkerUnavailable extends Error {}

/** A started worker and the counts it owes. */
interface Running {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** Counts on a worker thread with a read-only connection to `file`. */
export class SqliteCountWorker {
  readonly #file: string;
  #running: Running | undefined;
  #next = 0;
  // Workers left behind by counts out of time, still finishing their statement.
  #abandoned = 0;

  constructor(file: string) {
    this.#file = file;
  }

  #start(): Running {
    if (this.#running) return this.#running;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file: this.#file } });
    worker.unref();
    const running: Running = { worker, pending: new Map() };
    worker.on('message', ({ id, n, rows, error }: { id: number; n?: number; rows?: unknown[]; error?: string }) => {
      const job = running.pending.get(id);
      if (!job) return;
      running.pending.delete(id);
      if (error !== undefined) job.reject(new Error(error));
      else job.resolve(rows ?? n);
    });
    // A worker that stops (told to end after a time limit, or failed) leaves its counts without
    // an answer: they end as counts out of time, and the next count starts a new worker.
    const stopped = () => {
      if (this.#running === running) this.#running = undefined;
      for (const job of running.pending.values()) job.resolve(undefined);
      running.pending.clear();
    };
    worker.on('error', stopped);
    worker.on('exit', stopped);
    this.#running = running;
    return running;
  }

  /**
   * The single number `sql` selects (a `count(*)`), with `bindings` already in the driver's form;
   * undefined when it takes longer than `timeLimitMs`.
   * @throws {CountWorkerUnavailable} when no worker can be started; {Error} when the statement fails.
   */
  count(sql: string, bindings: readonly unknown[], timeLimitMs: number): Promise<number | undefined> {
    return this.#ask(sql, bindings, false, timeLimitMs) as Promise<number | undefined>;
  }

  /**
   * Every row `sql` selects, read on the worker like {@link count}; undefined when it takes longer
   * than `timeLimitMs`. For background reads whose answer is small (the page anchors).
   * @throws {CountWorkerUnavailable} when no worker can be started; {Error} when the statement fails.
   */
  rows(sql: string, bindings: readonly unknown[], timeLimitMs: number): Promise<Array<Record<string, unknown>> | undefined> {
    return this.#ask(sql, bindings, true, timeLimitMs) as Promise<Array<Record<string, unknown>> | undefined>;
  }

  #ask(sql: string, bindings: readonly unknown[], all: boolean, timeLimitMs: number): Promise<unknown> {
    // Two statements still running past their limit: the database is busy enough; no third.
    if (!this.#running && this.#abandoned >= 2) return Promise.resolve(undefined);
    let running: Running;
    try {
      running = this.#start();
    } catch (error) {
      return Promise.reject(new CountWorkerUnavailable(String((error as Error)?.message ?? error)));
    }
    const id = this.#next++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!running.pending.has(id)) return;
        // Out of time: answered at once. The worker is told to end, which it does when the
        // statement returns; statements queued behind it end then, as out of time.
        running.pending.delete(id);
        resolve(undefined);
        if (this.#running === running) {
          this.#running = undefined;
          this.#abandoned++;
          running.worker.once('exit', () => this.#abandoned--);
          void running.worker.terminate();
        }
      }, timeLimitMs);
      running.pending.set(id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      running.worker.postMessage({ id, sql, bindings: [...bindings], all });
    });
  }

  /** Ends the worker, if running; counts still waiting end as out of time. */
  close(): void {
    const running = this.#running;
    this.#running = undefined;
    if (running) void running.worker.terminate();
  }
}
