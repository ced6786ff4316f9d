import { spawn, spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { loadConfig, verifyPassword } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { FwTokenService, KnexTokenStore, RedisTokenStore } from '@fw/token';
import { createTestDatabase, describeEachSql, describeRedisCluster } from '@fw/test-utils';
import { BIN, fw, fwProcess, modelsFile } from './test-setup.js';

// Most cases run `fw` in this process (runCli with its own input, output and environment); the
// command line errors and the terminal prompts run the real command, a child process.
const MODELS = modelsFile();
const MODELS_V2 = modelsFile({ variant: 'v2' });

/**
 * Runs `fw` on a pseudo-terminal (util-linux `script`), typing `answers` each time `fw` shows a
 * prompt; resolves what the terminal showed.
 */
function fwOnTerminal(args: string[], answers: string[]): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, '--import', 'tsx', '--conditions=fw-source', BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let prompts = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      const shown = (screen.match(/Password for [^:]+: |Again: /g) ?? []).length;
      while (prompts < shown) child.stdin.write(`${answers[prompts++] ?? ''}\r`);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

const hasScript = spawnSync('script', ['--version']).status === 0;

async function signsIn(store: FwStore, account: string, password: string): Promise<boolean> {
  const credentials = await store.users.getCredentials(account);
  return credentials !== undefined && (await verifyPassword(password, credentials));
}

describe('fw (the @fw/cli command)', function () {
  // The database cases migrate several times; the process cases start node with the tsx loader.
  this.timeout(180_000);
  describe('command line errors', () => {
    it('refuses an unknown command, a missing database, a password argument and an unknown option, with one line and exit code 2 (the command as installed: a process)', async () => {
      const unknown = await fwProcess(['frobnicate']);
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.equal('fw: unknown command "frobnicate". Run "fw help" for the commands.\n');
      const noDb = await fw(['migrate']);
      expect(noDb.code).to.equal(2);
      expect(noDb.stderr).to.match(/no database: pass --db <url> or set FW_DB_URL/);
      const argument = await fw(['user', 'add', 'eve', '--password', 'hunter2', '--db', 'sqlite::memory:']);
      expect(argument.code).to.equal(2);
      expect(argument.stderr).to.match(/--password is not accepted/);
      const unknownOption = await fwProcess(['doctor', '--frob']);
      expect(unknownOption.code).to.equal(2);
      expect(unknownOption.stderr).to.match(/Unknown option '--frob'/);
    });

    it('reports an unreachable database in one line without its password', async () => {
      const run = await fw(['doctor', '--db', 'postgres://app:Sup3r-Secret@127.0.0.1:1/app']);
      expect(run.code).to.equal(1);
      expect(run.stderr.trim().split('\n')).to.have.length(1);
      expect(run.stderr).to.match(/^fw: cannot open database postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app: /);
      expect(run.stderr).to.not.contain('Sup3r-Secret');
    });

    it('refuses an empty password and user commands before fw migrate, creating nothing', async () => {
      const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
      try {
        const early = await fw(['user', 'add', 'eve', '--db', db.url], { input: 'pw-1\n' });
        expect(early.code).to.equal(1);
        expect(early.stderr).to.match(/pending migration\(s\): run "fw migrate" first/);
        expect((await fw(['migrate', '--db', db.url])).code).to.equal(0);
        for (const input of ['', '\n', '   \n']) {
          const empty = await fw(['user', 'add', 'eve', '--db', db.url], { input });
          expect(empty.code).to.equal(1);
          expect(empty.stderr).to.match(/empty password refused for eve/);
        }
        const store = createStore(db.url);
        try {
          expect(await store.users.findByAccount('eve')).to.equal(undefined);
        } finally {
          await store.destroy();
        }
      } finally {
        await db.drop();
      }
    });
  });

  describe('passwords typed at a terminal', () => {
    if (!hasScript) {
      it('skipped: util-linux `script` (a pseudo-terminal) is not installed', function () {
        this.skip();
      });
      return;
    }
    it('asks twice with echo off, and refuses two entries that differ', async () => {
      const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
      try {
        expect((await fw(['migrate', '--db', db.url])).code).to.equal(0);
        const typed = await fwOnTerminal(['user', 'add', 'tina', '--db', db.url], ['Typed-Secret-7', 'Typed-Secret-7']);
        expect(typed.screen)
          .to.match(/Password for tina: /)
          .and.match(/Again: /)
          .and.match(/Added user tina/);
        expect(typed.screen).to.not.contain('Typed-Secret');
        expect(typed.code).to.equal(0);
        const differ = await fwOnTerminal(['user', 'passwd', 'tina', '--db', db.url], ['New-Secret-8', 'New-Secret-9']);
        expect(differ.code).to.equal(1);
        expect(differ.screen).to.match(/the two passwords differ/);
        const store = createStore(db.url);
        try {
          expect(await signsIn(store, 'tina', 'Typed-Secret-7')).to.equal(true);
        } finally {
          await store.destroy();
        }
      } finally {
        await db.drop();
      }
    });
  });

  describeEachSql(
    'fw commands',
    (db) => {
      it('migrate creates the built-in and model tables, doctor is clean, then reports a drifted table until migrate applies it', async () => {
        const url = db().url;
        const before = await fw(['doctor', '--db', url, '--models', MODELS]);
        expect(before.code).to.equal(1);
        expect(before.stdout).to.match(/Migrations: \d+ pending/);
        const migrate = await fw(['migrate', '--db', url, '--models', MODELS]);
        expect(migrate.code, migrate.stderr).to.equal(0);
        expect(migrate.stdout).to.match(/Built-in tables: applied 0001_builtin_tables/);
        const clean = await fw(['doctor'], { env: { FW_DB_URL: url, FW_MODELS: MODELS } });
        expect(clean.code, clean.stdout + clean.stderr).to.equal(0);
        expect(clean.stdout).to.match(/Everything matches/);
        // The host adds a field: doctor names the table, the column and the SQL, and fails.
        const drifted = await fw(['doctor', '--db', url, '--models', MODELS_V2]);
        expect(drifted.code).to.equal(1);
        expect(drifted.stdout)
          .to.match(/cli_book/)
          .and.match(/pages/)
          .and.match(/alter table/i);
        expect(drifted.stdout).to.match(/Something differs/);
        expect((await fw(['migrate', '--db', url, '--models', MODELS_V2])).code).to.equal(0);
        expect((await fw(['doctor', '--db', url, '--models', MODELS_V2])).code).to.equal(0);
        // A column no field maps to that holds data cannot be applied safely: doctor prints it, migrate refuses.
        const store = createStore(url);
        try {
          await store.knex('cli_book').insert({ title: 'Dune', pages: 412 });
        } finally {
          await store.destroy();
        }
        const unsafe = await fw(['doctor', '--db', url, '--models', MODELS]);
        expect(unsafe.code).to.equal(1);
        expect(unsafe.stdout)
          .to.match(/cannot be applied safely/)
          .and.match(/pages/);
        const refused = await fw(['migrate', '--db', url, '--models', MODELS]);
        expect(refused.code).to.equal(1);
        expect(refused.stderr).to.match(/Nothing was changed/);
      });

      // The policy is checked before the store is written to, the same on every database.
      it('user add and user passwd hold the password to the policy: no one-character administrator, no "x", no account name, no common password', async () => {
        const url = db().url;
        expect((await fw(['migrate', '--db', url])).code).to.equal(0);
        for (const [input, rule] of [
          ['a\n', 'minLength'],
          ['password123\n', 'notCommon'],
          ['Vera-Admin\n', 'notAccount'],
        ] as const) {
          const add = await fw(['user', 'add', 'vera-admin', '--admin', '--db', url], { input });
          expect(add.code, input).to.equal(1);
          expect(add.stderr).to.match(new RegExp(`password refused for vera-admin, nothing was changed: .*\\(${rule}\\)`));
        }
        const store = createStore(url);
        try {
          expect(await store.users.findByAccount('vera-admin')).to.equal(undefined);
          expect((await fw(['user', 'add', 'vera-admin', '--admin', '--db', url], { input: 'violet-harbour-42\n' })).code).to.equal(0);
          for (const input of ['x\n', 'qwertyuiop\n', 'vera-admin\n']) {
            const passwd = await fw(['user', 'passwd', 'vera-admin', '--db', url], { input });
            expect(passwd.code, input).to.equal(1);
            expect(passwd.stderr).to.match(/password refused for vera-admin/);
          }
          expect(await signsIn(store, 'vera-admin', 'violet-harbour-42')).to.equal(true);
          // The minimum follows the app's configuration.
          const longer = await fw(['user', 'passwd', 'vera-admin', '--db', url], { input: 'amber-lantern-7\n', env: { FW_APP_PASSWORD_MIN_LENGTH: '16' } });
          expect(longer.code).to.equal(1);
          expect(longer.stderr).to.match(/at least 16 characters \(minLength\)/);
        } finally {
          await store.destroy();
        }
      });

      it('user add reads the password from stdin, passwd changes it, token revoke ends the sessions', async () => {
        const url = db().url;
        expect((await fw(['migrate', '--db', url])).code).to.equal(0);
        const add = await fw(['user', 'add', 'root', '--admin', '--name', 'Root', '--db', url], { input: 'first-Pass-1\n' });
        expect(add.code, add.stderr).to.equal(0);
        expect(add.stdout).to.match(/Added administrator root/);
        expect(add.stdout + add.stderr).to.not.contain('first-Pass-1');
        const again = await fw(['user', 'add', 'root', '--db', url], { input: 'x\n' });
        expect(again.code).to.equal(1);
        expect(again.stderr).to.match(/already exists/);
        const store = createStore(url);
        try {
          const root = await store.users.findByAccount('root');
          expect(root).to.include({ isAdmin: true, name: 'Root' });
          expect(await signsIn(store, 'root', 'first-Pass-1')).to.equal(true);

          // A new password ends the sessions already open (issue 10 §3), as an API change does.
          const before = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config: loadConfig({ env: false }) });
          const open = await before.loginToken({ id: root!.id, account: 'root', name: 'Root', isAdmin: true });
          const passwd = await fw(['user', 'passwd', 'root', '--db', url], { input: 'second-Pass-2\r\n' });
          expect(passwd.code, passwd.stderr).to.equal(0);
          expect(passwd.stdout).to.match(/1 open session\(s\) ended/);
          expect(await before.resolve(open.token)).to.equal(undefined);
          expect(await signsIn(store, 'root', 'first-Pass-1')).to.equal(false);
          expect(await signsIn(store, 'root', 'second-Pass-2')).to.equal(true);
          expect((await fw(['user', 'passwd', 'nobody', '--db', url], { input: 'p\n' })).stderr).to.match(/no account "nobody"/);

          // A sign-on account: no local password, whatever is piped.
          const sso = await fw(['user', 'add', 'carol', '--no-password', '--db', url], { input: 'ignored\n' });
          expect(sso.code, sso.stderr).to.equal(0);
          expect((await store.users.findByAccount('carol'))?.hasPassword).to.equal(false);
          expect(await signsIn(store, 'carol', 'ignored')).to.equal(false);

          const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config: loadConfig({ env: false }) });
          const issued = await tokens.loginToken({ id: root!.id, account: 'root', name: 'Root', isAdmin: true });
          expect(await tokens.resolve(issued.token)).to.not.equal(undefined);
          const revoke = await fw(['token', 'revoke', '--user', 'root', '--db', url]);
          expect(revoke.code, revoke.stderr).to.equal(0);
          expect(revoke.stdout).to.match(/Revoked 1 token\(s\) of root/);
          expect(await tokens.resolve(issued.token)).to.equal(undefined);
        } finally {
          await store.destroy();
        }
      });
    },
    ['sqlite', 'postgres', 'mysql'],
  );
});

describeRedisCluster('fw token revoke --redis <node URLs>', (cluster) => {
  it('revokes the tokens a Redis Cluster holds, given comma-separated node URLs, and refuses a bad list', async function () {
    this.timeout(60_000);
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const store = createStore(db.url);
    const redis = await cluster().connect();
    try {
      expect((await fw(['migrate', '--db', db.url])).code).to.equal(0);
      const user = await store.users.create({ account: 'dana', password: 'dana-Pass-1', mustChangePassword: false });
      const prefix = 'fw-cli-cluster:';
      const tokens = new FwTokenService({ store: new RedisTokenStore({ redis, prefix }), config: loadConfig({ env: false }) });
      const issued = [await tokens.loginToken({ id: user.id, account: 'dana' }), await tokens.loginToken({ id: user.id, account: 'dana' })];
      const nodes = cluster().urls.slice(0, 2).join(',');
      const revoke = await fw(['token', 'revoke', '--user', 'dana', '--db', db.url, '--redis', nodes, '--redis-prefix', prefix]);
      expect(revoke.code, revoke.stderr).to.equal(0);
      expect(revoke.stdout).to.contain(`Revoked 2 token(s) of dana in Redis Cluster ${nodes}`);
      for (const { token } of issued) expect(await tokens.resolve(token)).to.equal(undefined);
      const bad = await fw(['token', 'revoke', '--user', 'dana', '--db', db.url, '--redis', 'redis://:s3cret@h:1,redis://h'], { env: {} });
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain('createRedisCluster.nodes').and.not.contain('s3cret');
    } finally {
      redis.disconnect();
      await store.destroy();
      await db.drop();
    }
  });
});
