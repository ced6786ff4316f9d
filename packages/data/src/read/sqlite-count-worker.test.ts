import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { SqliteCountWorker } from './sqlite-count-worker.js';

// Counts of a SQLite file on a worker thread: the right number, the event loop free meanwhile,
// a count past its time limit stopped (and the next one answered by a new worker).
describe('SqliteCountWorker', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'fw-count-worker-'));
  const file = join(dir, 'rows.db');
  let counter: SqliteCountWorker;

  before(() => {
    const Driver = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { exec(sql: string): void; close(): void };
    const db = new Driver(file);
    db.exec(`pragma journal_mode = wal;
      create table t (id integer primary key, kind text);
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 300000)
      insert into t (id, kind) select i, case when i % 3 = 0 then 'a' else 'b' end from n;`);
    db.close();
    counter = new SqliteCountWorker(file);
  });
  after(() => {
    counter?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts, with bindings, what the statement selects', async () => {
    expect(await counter.count('select count(*) as n from t', [], 30_000)).to.equal(300_000);
    expect(await counter.count('select count(*) as n from t where kind = ?', ['a'], 30_000)).to.equal(100_000);
  });

  it('leaves the event loop free while it counts', async () => {
    const order: string[] = [];
    const counting = counter.count('select count(*) as n from t where kind like ?', ['%a%'], 30_000).then(() => order.push('count'));
    setTimeout(() => order.push('timer'), 0);
    await counting;
    // A count on this thread would have answered before any timer could run.
    expect(order).to.deep.equal(['timer', 'count']);
  });

  it('stops a count past its time limit, and the next count gets a new worker', async () => {
    // Six million combinations take far longer than 5 ms (and end on their own soon after).
    expect(await counter.count('select count(*) as n from t a, (select 1 from t limit 20) b', [], 5)).to.equal(undefined);
    expect(await counter.count('select count(*) as n from t where id <= ?', [10], 30_000)).to.equal(10);
  });

  it('rejects a statement the database refuses', async () => {
    let error: unknown;
    try {
      await counter.count('select count(*) from no_such_table', [], 30_000);
    } catch (e) {
      error = e;
    }
    expect(String((error as Error | undefined)?.message)).to.match(/no such table/);
  });
});
