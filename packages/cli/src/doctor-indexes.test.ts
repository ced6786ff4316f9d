import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';

const BIN = fileURLToPath(new URL('./bin.ts', import.meta.url));
const MODELS = fileURLToPath(new URL('./test-setup.ts', import.meta.url));

/** Runs `fw` as a child process with the workspace's tsx loader and only the given environment additions. */
function fw(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv.FW_DB_URL;
    delete childEnv.FW_MODELS;
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=fw-source', BIN, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('fw doctor --large-table-rows', function () {
  this.timeout(180_000);
  it('refuses a threshold that is not a positive whole number, exit code 2', async () => {
    for (const bad of ['0', '1e5']) {
      const run = await fw(['doctor', '--db', 'sqlite::memory:', `--large-table-rows=${bad}`], {});
      expect(run.code, bad).to.equal(2);
      expect(run.stderr).to.contain('--large-table-rows must be a positive whole number of rows');
    }
  });
});

describeEachSql('fw doctor: index advice for large tables (issue 21 §3)', (db) => {
  it('names each filtered or sorted field of a large table without an index, as advice that does not fail doctor; declaring the index ends it', async function () {
    this.timeout(180_000);
    const url = db().url;
    const plain = { FW_CLI_TEST_INDEXES: 'plain' };
    const migrate = await fw(['migrate', '--db', url, '--models', MODELS], plain);
    expect(migrate.code, migrate.stderr).to.equal(0);
    const store = createStore(url);
    try {
      await store.knex('cli_ticket').insert([1, 2, 3, 4, 5].map((n) => ({ status: n % 2 ? 'open' : 'done', score: n, note: 'x', internal: 'i' })));
    } finally {
      await store.destroy();
    }
    // Five rows are not a large table by default.
    const small = await fw(['doctor', '--db', url, '--models', MODELS], plain);
    expect(small.code, small.stdout + small.stderr).to.equal(0);
    expect(small.stdout).to.contain('Indexes: no large table (100,000 rows or more) lacks an index').and.not.contain('Advice:');

    const large = await fw(['doctor', '--db', url, '--models', MODELS, '--large-table-rows', '5'], plain);
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
    const declared = { FW_CLI_TEST_INDEXES: 'declared' };
    const missing = await fw(['doctor', '--db', url, '--models', MODELS, '--large-table-rows', '5'], declared);
    expect(missing.code).to.equal(1);
    expect(missing.stdout).to.contain('index fw_ix_cli_ticket_status on cli_ticket (status) does not exist; it is created');
    expect((await fw(['migrate', '--db', url, '--models', MODELS], declared)).code).to.equal(0);
    const after = await fw(['doctor', '--db', url, '--models', MODELS, '--large-table-rows', '5'], declared);
    expect(after.code, after.stdout + after.stderr).to.equal(0);
    expect(after.stdout.split('\n').filter((line) => line.startsWith('Advice:'))).to.deep.equal([
      'Advice: CliTicket.score (cli_ticket.score, about 5 rows) is used to sort with no index starting with it: declare score: { index: true, … } (or list it first in the model\'s indexes), then run "fw migrate"',
    ]);
  });
});
