/**
 * What a new user does before Fw is on a registry (issue 12): pack every package, install the
 * tarballs in a Koa app outside this repository, type-check it under `strict` with
 * `skipLibCheck: false`, start it and sign in. The packages are built and packed by the release
 * script's own steps (scripts/release.ts). koa, better-sqlite3 and the type packages come from the
 * registry (the local npm cache first): when it cannot be reached this test fails, it never skips.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase, sqlBackends, type TestDatabase } from '@fw/test-utils';
import { ROOT, buildAll, builtFresh, packAll, type PackedPackage } from '../scripts/release.js';

/** The host's environment: nothing of this workspace's loaders, conditions or coverage. */
function hostEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', ...extra };
  delete env.NODE_OPTIONS;
  delete env.NODE_V8_COVERAGE;
  return env;
}

function version(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

const SERVER = `import Koa from 'koa';
import { defineModel } from '@fw/core';
import { fwAdmin } from '@fw/admin';

const Book = defineModel({ name: 'Book', power: { export: true, ai: false }, fields: { title: { edit: { notNull: true } } } });

const app = new Koa();
const fw = await fwAdmin(app, {
  db: process.env.FW_DB_URL ?? \`sqlite:\${process.env.FW_HOST_DB ?? './data/app.db'}\`,
  models: [Book],
  admin: { account: 'admin', password: process.env.ADMIN_PASSWORD ?? '' },
});
app.use(fw.middleware);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') console.log(\`listening \${address.port}\`);
});
process.on('SIGTERM', () => {
  server.close();
  void fw.close().then(() => process.exit(0));
});
`;

const SIGN_IN = `import { encodePassword } from '@fw/login/client';

// Signs in over HTTP the way the admin UI does and prints the status and the answer.
const [base, account, password] = process.argv.slice(2) as [string, string, string];
const response = await fetch(\`\${base}/fw-api/login\`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ account, pwd: encodePassword(password) }),
});
console.log(JSON.stringify({ status: response.status, body: (await response.json()) as unknown }));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    rootDir: 'src',
    outDir: 'dist',
    types: ['node'],
  },
  include: ['src'],
};

describe('packed packages in a host outside the repository (issue 12)', function () {
  // Build ≈ 1 min, install ≈ 20 s from the npm cache, type-check ≈ 15 s.
  this.timeout(300_000);

  let work: string;
  let host: string;
  let packed: PackedPackage[];
  let server: ChildProcess | undefined;
  let base: string;
  let output = '';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'fw-packed-host-'));
    expect(relative(ROOT, work).startsWith('..'), `${work} is outside ${ROOT}`).to.equal(true);
    host = join(work, 'host');
    mkdirSync(join(host, 'src'), { recursive: true });

    // `.ci/run` built everything just before the tests: build again only what is out of date.
    // scripts/test.ts runs this file beside the others only when it found the build fresh.
    if (process.env.FW_TEST_BUILT_FRESH !== '1' && !builtFresh()) buildAll(() => {});
    packed = packAll(join(work, 'tarballs'));

    writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'fw-packed-host', private: true, type: 'module' }, null, 2));
    const sqliteDir = join(ROOT, 'node_modules', 'better-sqlite3');
    const sqliteVersion = version(sqliteDir);
    // Scripts are off: better-sqlite3's install would compile its binding (minutes) when no
    // prebuilt one can be downloaded. The workspace's binding of the same version and Node.js is
    // copied instead, or the binding is rebuilt when the versions differ.
    // content-disposition 1 at the top: express 5 (under the MCP SDK) brings content-disposition 2,
    // whose own types lack the `Options` that @types/koa reads (see docs/release.md).
    execFileSync(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        ...packed.map((p) => p.file),
        'koa@^3',
        '@types/koa@^3',
        '@types/node@^20',
        `better-sqlite3@${sqliteVersion}`,
        'content-disposition@^1',
      ],
      { cwd: host, stdio: ['ignore', 'pipe', 'inherit'], env: hostEnv() },
    );
    const binding = join('build', 'Release', 'better_sqlite3.node');
    if (version(join(host, 'node_modules', 'better-sqlite3')) === sqliteVersion && existsSync(join(sqliteDir, binding))) {
      mkdirSync(join(host, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
      copyFileSync(join(sqliteDir, binding), join(host, 'node_modules', 'better-sqlite3', binding));
    } else {
      execFileSync('npm', ['rebuild', 'better-sqlite3'], { cwd: host, stdio: ['ignore', 'pipe', 'inherit'], env: hostEnv() });
    }

    writeFileSync(join(host, 'src', 'server.ts'), SERVER);
    writeFileSync(join(host, 'src', 'sign-in.ts'), SIGN_IN);
    writeFileSync(join(host, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  });

  after(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs every public package with its compiled code and declarations, and no sources or tests', () => {
    const names = packed.map((p) => p.name);
    expect(names).to.include.members(['@fw/core', '@fw/store', '@fw/token', '@fw/login', '@fw/data', '@fw/ui', '@fw/admin']);
    expect(names).to.not.include('@fw/test-utils');
    for (const p of packed) {
      const files = execFileSync('tar', ['tzf', p.file], { encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(files, p.name).to.include(p.name === '@fw/ui' ? 'package/dist-server/index.d.ts' : 'package/dist/index.d.ts');
      expect(
        files.filter((f) => f.startsWith('package/src/') || /\.test\.|test-setup/.test(f)),
        p.name,
      ).to.deep.equal([]);
    }
    const ui = execFileSync('tar', ['tzf', packed.find((p) => p.name === '@fw/ui')!.file], { encoding: 'utf8' });
    expect(ui).to.contain('package/dist/index.html');
  });

  it('installs without ioredis, pg, mysql2 or tedious, and type-checks under strict with skipLibCheck off', () => {
    for (const driver of ['ioredis', 'pg', 'mysql2', 'tedious']) expect(existsSync(join(host, 'node_modules', driver)), driver).to.equal(false);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    let diagnostics = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: host, encoding: 'utf8', env: hostEnv() });
    } catch (error) {
      diagnostics = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(diagnostics).to.equal('');
  });

  /** Starts the host on a database, signs in over HTTP, writes and reads a row, loads the UI, stops it. */
  async function exercise(env: Record<string, string>): Promise<void> {
    output = '';
    server = spawn(process.execPath, ['dist/server.js'], {
      cwd: host,
      env: hostEnv({ ADMIN_PASSWORD: 's3cret-pass', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const m = /listening (\d+)/.exec(output);
        if (m) resolve(Number(m[1]));
      };
      server!.stdout!.on('data', onData);
      server!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      server!.once('exit', (code) => reject(new Error(`the host exited (${code}) before listening:\n${output}`)));
    });
    base = `http://127.0.0.1:${port}`;

    // The host's own program, in its own process: this one resolves @fw/* to their sources.
    const signIn = (account: string, password: string) =>
      JSON.parse(execFileSync(process.execPath, ['dist/sign-in.js', base, account, password], { cwd: host, encoding: 'utf8', env: hostEnv() })) as {
        status: number;
        body: { pass?: boolean; token?: string };
      };
    const refused = signIn('admin', 'not-the-password');
    expect(refused.status).to.equal(401);
    const login = signIn('admin', 's3cret-pass');
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    expect(login.body.pass).to.equal(true);
    expect(login.body.token).to.match(/^[A-Za-z0-9]{16}$/);
    const token = login.body.token!;

    const headers = { token, 'content-type': 'application/json' };
    // The first administrator's first password reaches only its change (issue 19 §3).
    expect((await fetch(`${base}/fw-api/data/table/Book`, { method: 'POST', headers, body: '{}' })).status).to.equal(403);
    const change = { pwd: encodePassword('s3cret-pass'), newPwd: encodePassword('violet-harbour-42'), newPwd2: encodePassword('violet-harbour-42') };
    const changed = await fetch(`${base}/fw-api/change-pwd`, { method: 'POST', headers, body: JSON.stringify(change) });
    expect(changed.status, await changed.clone().text()).to.equal(200);
    const added = await fetch(`${base}/fw-api/data/modify/Book`, { method: 'POST', headers, body: JSON.stringify({ title: 'Dune' }) });
    expect(added.status, await added.clone().text()).to.equal(200);
    const table = await fetch(`${base}/fw-api/data/table/Book`, { method: 'POST', headers, body: JSON.stringify({ page: 1, size: 20 }) });
    expect(table.status).to.equal(200);
    const body = (await table.json()) as { rows: Array<{ title: string }>; total: number };
    expect(body.total).to.equal(1);
    expect(body.rows.map((r) => r.title)).to.deep.equal(['Dune']);

    const unauthenticated = await fetch(`${base}/fw-api/data/table/Book`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauthenticated.status).to.equal(401);

    const page = await fetch(`${base}/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('name="fw-config"');
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server!.kill('SIGTERM');
    await exited;
  }

  it('starts, creates its first administrator, signs in over HTTP and answers a data route and the UI', async () => {
    await exercise({ FW_HOST_DB: join(work, 'app.db') });
  });

  // The same host on PostgreSQL, with only what the docs say: install the driver, set the URL.
  const pg = sqlBackends().find((b) => b.dialect === 'postgres')!;
  it(pg.serverUrl ? 'does the same on PostgreSQL once the host installs pg' : `skipped: ${pg.envVar} is not set, so the PostgreSQL host did not run`, async function () {
    if (!pg.serverUrl) return this.skip();
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', 'pg@^8'], { cwd: host, stdio: ['ignore', 'pipe', 'inherit'], env: hostEnv() });
    let database: TestDatabase | undefined;
    try {
      database = await createTestDatabase(pg);
      await exercise({ FW_DB_URL: database.url });
    } finally {
      await database?.drop();
    }
  });
});
