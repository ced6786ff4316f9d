import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import request from 'supertest';
import { verifyPassword } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '@fw/test-utils';
import { createDemoApp, defaultDbUrl } from './app.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The parts of an MCP tool result these tests read. */
interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'fw-demo-'));
  return { dir, dbUrl: `sqlite:${join(dir, 'demo.db')}`, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('examples/demo', () => {
  it('defaults to a SQLite file under ./data', () => {
    expect(defaultDbUrl('/srv/app')).to.equal('sqlite:/srv/app/data/fw-demo.db');
  });

  it('migrates, creates the demo tables and menus, seeds admin with FW_ADMIN_PASSWORD, and serves the admin UI at /', async () => {
    const { dbUrl, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, adminPassword: 'demo-pass-1' });
    try {
      expect(demo.generatedAdminPassword).to.equal(undefined);
      const admin = await demo.store.users.findByAccount('admin');
      expect(admin?.isAdmin).to.equal(true);
      const credentials = await demo.store.users.getCredentials('admin');
      expect(credentials).to.not.equal(undefined);
      expect(await verifyPassword('demo-pass-1', credentials!)).to.equal(true);
      for (const model of demo.registry.list().filter((m) => !m.name.startsWith('Fw'))) {
        expect(await demo.store.knex.schema.hasTable(model.table), model.table).to.equal(true);
        expect(await demo.store.menus.findByCode(model.name), `${model.name} menu`).to.not.equal(undefined);
      }
      expect(await demo.store.menus.findByCode('Book@EXPORT')).to.not.equal(undefined);
      expect(await demo.store.menus.findByCode('Salary@EXPORT')).to.equal(undefined);
      const home = await request(demo.app.callback()).get('/').set('Accept', 'text/html').expect(200);
      expect(home.text).to.contain('<meta name="fw-config" content="{&#34;apiPrefix&#34;:&#34;/fw-api&#34;,&#34;base&#34;:&#34;/&#34;,&#34;title&#34;:&#34;Fw demo&#34;}">');
      // A deep link of the UI survives a reload; the host's own JSON route is still its own.
      const deep = await request(demo.app.callback()).get('/model/Book').set('Accept', 'text/html').expect(200);
      expect(deep.text).to.equal(home.text);
      expect((await request(demo.app.callback()).get('/fw-api/login-settings').expect(200)).body).to.include({ title: 'Fw demo' });
      const health = await request(demo.app.callback()).get('/health').expect(200);
      expect(health.body.models).to.include.members(['Book', 'Salary', 'Contract', 'Project', 'Task', 'FwUser', 'FwRole', 'FwMenu']);
    } finally {
      await demo.close();
      cleanup();
    }
  });

  it('generates the admin password once and keeps the account on the next start', async () => {
    const { dbUrl, cleanup } = setup();
    try {
      const first = await createDemoApp({ dbUrl });
      const generated = first.generatedAdminPassword;
      expect(generated).to.be.a('string').with.length.greaterThan(11);
      const menusAfterFirstStart = (await first.store.menus.list()).length;
      const usersAfterFirstStart = (await first.store.users.list()).length;
      await first.close();
      const second = await createDemoApp({ dbUrl, adminPassword: 'ignored-now' });
      try {
        expect(second.generatedAdminPassword).to.equal(undefined);
        const credentials = await second.store.users.getCredentials('admin');
        expect(await verifyPassword(generated!, credentials!)).to.equal(true);
        // A restart creates no second admin and no duplicate menus.
        expect(await second.store.menus.list()).to.have.length(menusAfterFirstStart);
        expect(await second.store.users.list()).to.have.length(usersAfterFirstStart);
        expect(menusAfterFirstStart).to.be.greaterThan(5);
      } finally {
        await second.close();
      }
    } finally {
      cleanup();
    }
  });

  it('serves the login routes: admin logs in, sees every model menu, logs out', async () => {
    const { dbUrl, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, adminPassword: 'harbour-pass-9' });
    try {
      const agent = request(demo.app.callback());
      const { body } = await agent
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('harbour-pass-9') })
        .expect(200);
      expect(body).to.include({ pass: true, resetPwd: true });
      const me = await agent.get('/fw-api/userinfo').set('token', body.token).expect(200);
      expect(me.body).to.include({ account: 'admin', isAdmin: true });
      // The first password reaches nothing but its change (issue 19 §3).
      expect((await agent.get('/fw-api/menu').set('token', body.token).expect(403)).body.error.code).to.equal('PASSWORD_CHANGE_REQUIRED');
      await agent
        .post('/fw-api/change-pwd')
        .set('token', body.token)
        .send({ pwd: encodePassword('harbour-pass-9'), newPwd: encodePassword('violet-harbour-42'), newPwd2: encodePassword('violet-harbour-42') })
        .expect(200);
      const menus = await agent.get('/fw-api/menu').set('token', body.token).expect(200);
      const tables = menus.body.filter((m: { type: string }) => m.type === 'table').map((m: { value: string }) => m.value);
      expect(tables).to.include.members(['Book', 'Salary', 'Contract', 'Project', 'Task', 'FwUser', 'FwRole']);
      await agent.get('/fw-api/logout').set('token', body.token).expect(200);
      await agent.get('/fw-api/userinfo').set('token', body.token).expect(401);
      await agent
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('nope') })
        .expect(401);
    } finally {
      await demo.close();
      cleanup();
    }
  });

  it('serves the data API with each demo switch enforced', async () => {
    const { dbUrl, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, adminPassword: 'harbour-pass-9' });
    // The administrator has chosen a password already (a first one reaches only its change).
    await demo.store.users.setPassword((await demo.store.users.findByAccount('admin'))!.id, 'harbour-pass-9');
    try {
      const agent = request(demo.app.callback());
      const { body } = await agent
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('harbour-pass-9') })
        .expect(200);
      const t = body.token as string;
      const book = (await agent.post('/fw-api/data/modify/Book').set('token', t).send({ title: 'Dune', isbn: '9780441172719', genre: 'novel', price: 9.99 }).expect(200)).body;
      expect(book).to.include({ title: 'Dune', inPrint: true });
      const page = await agent
        .post('/fw-api/data/table/Book')
        .set('token', t)
        .send({ conditions: [{ field: 'title', op: 'like', value: 'dun' }] })
        .expect(200);
      expect(page.body.total).to.equal(1);
      // Book: export on; the ISBN field is closed to cell editing.
      await agent.get(`/fw-api/data/export/Book?_token=${t}`).expect(200);
      const isbn = await agent.post('/fw-api/data/modify/Book/update-cell').set('token', t).send({ id: book.id, field: 'isbn', value: '0441172717' }).expect(403);
      expect(isbn.body.error.code).to.equal('FIELD_CELL_EDIT_DISABLED');
      // Salary: export off by default.
      await agent.get(`/fw-api/data/export/Salary?_token=${t}`).expect(403);
      // Contract: no cell editing on the whole model, the form still works.
      const contract = (await agent.post('/fw-api/data/modify/Contract').set('token', t).send({ party: 'ACME' }).expect(200)).body;
      expect(
        (await agent.post('/fw-api/data/modify/Contract/update-cell').set('token', t).send({ id: contract.id, field: 'party', value: 'X' }).expect(403)).body.error.code,
      ).to.equal('CELL_EDIT_DISABLED');
      await agent.post('/fw-api/data/modify/Contract/update').set('token', t).send({ id: contract.id, party: 'ACME Ltd' }).expect(200);
      // Project: the end date cannot move before the start, cell by cell either.
      const project = (await agent.post('/fw-api/data/modify/Project').set('token', t).send({ name: 'P', startDate: '2024-01-10', endDate: '2024-02-01' }).expect(200)).body;
      const invariant = await agent.post('/fw-api/data/modify/Project/update-cell').set('token', t).send({ id: project.id, field: 'endDate', value: '2024-01-01' }).expect(422);
      expect(invariant.body.error.details[0]).to.include({ path: 'endDate', type: 'endAfterStart' });
      // Task: owned rows; administrators see all and may delete (the power handler lets only them).
      const task = (await agent.post('/fw-api/data/modify/Task').set('token', t).send({ subject: 'write docs' }).expect(200)).body;
      expect(task.ownerId).to.equal((await demo.store.users.findByAccount('admin'))!.id);
      await agent
        .post('/fw-api/data/modify/Task/delete')
        .set('token', t)
        .send({ ids: [task.id] })
        .expect(200);
    } finally {
      await demo.close();
      cleanup();
    }
  });

  it('serves the AI toolbox over MCP, keeping the ai: false model away even from the administrator', async () => {
    const { dbUrl, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, adminPassword: 'harbour-pass-9' });
    // The administrator has chosen a password already (a first one reaches only its change).
    await demo.store.users.setPassword((await demo.store.users.findByAccount('admin'))!.id, 'harbour-pass-9');
    const server = demo.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const client = new Client({ name: 'demo-test', version: '1.0.0' });
    try {
      const port = (server.address() as { port: number }).port;
      const { body } = await request(demo.app.callback())
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('harbour-pass-9') })
        .expect(200);
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/fw-api/ai/mcp`), { requestInit: { headers: { token: body.token } } }));
      const tool = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
      const names = ((await tool('fwModelList', {})).structuredContent as { result: Array<{ name: string }> }).result.map((m) => m.name);
      expect(names).to.include.members(['Book', 'Contract', 'Project', 'Task']);
      expect(names).to.not.include('Salary');
      const refused = await tool('fwDataQuery', { model: 'Salary' });
      expect(refused.isError).to.equal(true);
      expect(refused.content[0]!.text).to.equal('AI access is disabled for this model: Salary');
      const added = await tool('insertFwData', { model: 'Book', data: { title: 'Solaris' } });
      expect(added.structuredContent).to.include({ title: 'Solaris' });
      const [log] = await demo.store.operateLogs.list({ model: 'Book', limit: 1 });
      expect(log).to.include({ action: 'add', source: 'ai' });
    } finally {
      await client.close();
      server.close();
      await demo.close();
      cleanup();
    }
  });

  it('issues tokens that resolve through the SQL token store', async () => {
    const { dbUrl, cleanup } = setup();
    const demo = await createDemoApp({ dbUrl, adminPassword: 'x-password' });
    // The administrator has chosen a password already (a first one reaches only its change).
    await demo.store.users.setPassword((await demo.store.users.findByAccount('admin'))!.id, 'x-password');
    try {
      const admin = (await demo.store.users.findByAccount('admin'))!;
      const { token } = await demo.tokens.loginToken(admin, demo.tokens.generateToken());
      expect((await demo.tokens.resolve(token))?.userId).to.equal(admin.id);
      const rows = await demo.store.knex('fw_token').select('*');
      expect(JSON.stringify(rows)).to.not.contain(token);
    } finally {
      await demo.close();
      cleanup();
    }
  });

  it('starts as `npm start` does: a real process answering GET / with the admin UI', async function () {
    this.timeout(60_000);
    const { dir, cleanup } = setup();
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=fw-source', join(here, 'main.ts')], {
      env: { ...process.env, PORT: '0', FW_DB_URL: `sqlite:${join(dir, 'start.db')}`, FW_ADMIN_PASSWORD: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening" line in time; output so far:\n${output}`)), 50_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
      });
      expect(output).to.match(/Created the administrator account "admin" with the password: \S{12,}/);
      const response = await fetch(url, { headers: { accept: 'text/html' } });
      expect(response.status).to.equal(200);
      expect(await response.text()).to.match(/<meta name="fw-config" content="[^"]*Fw demo[^"]*">/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
      cleanup();
    }
  });
});

describe('examples/demo start-up with a database it cannot open', function () {
  this.timeout(60_000);

  /** Runs `npm start`'s entry point to its exit. */
  function runMain(dbUrl: string, port = 0): Promise<{ code: number | null; output: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=fw-source', join(here, 'main.ts')], {
      env: { ...process.env, PORT: String(port), FW_DB_URL: dbUrl, FW_ADMIN_PASSWORD: '', FW_DEMO_SEED: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
  }

  it('prints one line naming the URL without its password, and exits non-zero, when the server is unreachable', async () => {
    const port = await freePort();
    const { code, output } = await runMain(`postgres://postgres:s3cret@127.0.0.1:${port}/demo`);
    expect(code).to.equal(1);
    expect(output.trim().split('\n')).to.deep.equal([`fwAdmin: cannot open database postgres://postgres:***@127.0.0.1:${port}/demo: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });

  it('on a port already in use (a second `npm start`): one line naming the port and what to do, exit 1, no stack trace', async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'fw-demo-busy-'));
    try {
      const { code, output } = await runMain(`sqlite:${join(dir, 'demo.db')}`, port);
      expect(code).to.equal(1);
      const lines = output.trim().split('\n');
      expect(lines.at(-1)).to.equal(`Port ${port} on 127.0.0.1 is in use (is the demo already running?). Set PORT to another port, e.g. PORT=3001 npm start.`);
      expect(output).to.not.match(/EADDRINUSE|\n\s+at /);
    } finally {
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const pg = process.env.FW_TEST_PG_URL;
  (pg ? it : it.skip)(`says which PostgreSQL database does not exist${pg ? '' : ' (skipped: FW_TEST_PG_URL is not set)'}`, async () => {
    const url = new URL(pg!);
    url.pathname = '/nope';
    const { code, output } = await runMain(url.toString());
    expect(code).to.equal(1);
    expect(output.trim().split('\n')).to.deep.equal([`fwAdmin: cannot open database ${url.toString()}: database "nope" does not exist`]);
  });
});
