import { expect } from 'chai';
import { createStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { fw, modelsFile } from './test-setup.js';

// `fw` runs in this process (runCli); cli.test.ts runs the command as a process.
const PLAIN = modelsFile({ indexes: 'plain' });
const DECLARED = modelsFile({ indexes: 'declared' });

describe('fw doctor --large-table-rows', function () {
  this.timeout(180_000);
  it('refuses a threshold that is not a positive whole number, exit code 2', async () => {
    for (const bad of ['0', '1e5']) {
      const run = await fw(['doctor', '--db', 'sqlite::memory:', `--large-table-rows=${bad}`]);
      expect(run.code, bad).to.equal(2);
      expect(run.stderr).to.contain('--large-table-rows must be a positive whole number of rows');
    }
  });
});

describeEachSql('fw doctor: index advice for large tables (issue 21 §3)', (db) => {
  it('names each filtered or sorted field of a large table without an index, as advice that does not fail doctor; declaring the index ends it', async function () {
    this.timeout(180_000);
    const url = db().url;
    const migrate = await fw(['migrate', '--db', url, '--models', PLAIN]);
    expect(migrate.code, migrate.stderr).to.equal(0);
    const store = createStore(url);
    try {
      await store.knex('cli_ticket').insert([1, 2, 3, 4, 5].map((n) => ({ status: n % 2 ? 'open' : 'done', score: n, note: 'x', internal: 'i' })));
    } finally {
      await store.destroy();
    }
    // Five rows are not a large table by default.
    const small = await fw(['doctor', '--db', url, '--models', PLAIN]);
    expect(small.code, small.stdout + small.stderr).to.equal(0);
    expect(small.stdout).to.contain('Indexes: no large table (100,000 rows or more) lacks an index').and.not.contain('Advice:');

    const large = await fw(['doctor', '--db', url, '--models', PLAIN, '--large-table-rows', '5']);
    expect(large.code, large.stdout + large.stderr).to.equal(0);
    const advice = large.stdout.split('\n').filter((line) => line.startsWith('Advice:'));
    // status: shown (filtered) and sortable; score: hidden from the form but sortable. The note
    // (long text), the secret, the key and a field neither filtered nor sorted get no advice.
    expect(advice).to.have.length(2);
    expect(advice[0]).to.match(
      /^Advice: CliTicket\.status \(cli_ticket\.status, about 5 rows\) is used to filter and sort with no index starting with it: declare status: \{ index: true, … \}/,
    );
    expect(advice[1]).to.match(/^Advice: CliTicket\.score \(cli_ticket\.score, about 5 rows\) is used to sort /);
    expect(large.stdout).to.contain('Everything matches');

    // Declared, the index is a difference doctor reports and migrate applies; then only score remains.
    const missing = await fw(['doctor', '--db', url, '--models', DECLARED, '--large-table-rows', '5']);
    expect(missing.code).to.equal(1);
    expect(missing.stdout).to.contain('index fw_ix_cli_ticket_status on cli_ticket (status) does not exist; it is created');
    expect((await fw(['migrate', '--db', url, '--models', DECLARED])).code).to.equal(0);
    const after = await fw(['doctor', '--db', url, '--models', DECLARED, '--large-table-rows', '5']);
    expect(after.code, after.stdout + after.stderr).to.equal(0);
    expect(after.stdout.split('\n').filter((line) => line.startsWith('Advice:'))).to.deep.equal([
      'Advice: CliTicket.score (cli_ticket.score, about 5 rows) is used to sort with no index starting with it: declare score: { index: true, … } (or list it first in the model\'s indexes), then run "fw migrate"',
    ]);
  });
});
