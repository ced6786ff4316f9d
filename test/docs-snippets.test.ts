// Issue 12, "Docs that run": every code block of README.md and docs/*.md marked as a program
// (info string `ts run`, see CONTRIBUTING.md) is type-checked against the workspace packages, and
// the blocks marked `ts run start` — the quick starts — are started on a fresh SQLite file and
// signed in to, so the documentation can never again show a host that does not work.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';
import { encodePassword } from '@fw/login/client';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the repository (git-ignored), so that `@fw/*` and `koa` resolve through the workspace's
// node_modules exactly as they do for a host in this repository. One folder per run, so that two
// runs at once (a suite and a single file) do not delete each other's files.
const snippetsDir = join(root, 'test', '.snippets', `run-${process.pid}`);

/** One marked block: where it is, and whether the test starts it. */
export interface DocSnippet {
  file: string;
  line: number;
  code: string;
  start: boolean;
}

/**
 * The fenced blocks of a Markdown text whose info string is `ts run` or `ts run start`. Indented
 * fences count too (a block inside a list item); the indentation is removed from its lines.
 */
export function extractSnippets(file: string, text: string): DocSnippet[] {
  const snippets: DocSnippet[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,})\s*(\S.*)?$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '```', info = ''] = open;
    const words = info.trim().split(/\s+/);
    const end = lines.findIndex((l, j) => j > i && l.trim() === fence);
    const close = end === -1 ? lines.length : end;
    if (words[0] === 'ts' && words[1] === 'run') {
      const body = lines.slice(i + 1, close).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
      snippets.push({ file, line: i + 1, code: body.join('\n') + '\n', start: words[2] === 'start' });
    }
    i = close;
  }
  return snippets;
}

function documentationSnippets(): DocSnippet[] {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => extractSnippets(file, readFileSync(join(root, file), 'utf8')));
}

function snippetFileName(snippet: DocSnippet): string {
  return `${snippet.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${snippet.line}.ts`;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

function startSnippet(path: string, env: Record<string, string>): Started {
  let output = '';
  // Only the variables the convention names: a REDIS_URL of the machine would change the host.
  const { REDIS_URL: _redis, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=fw-source', path], {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** POST /fw-api/login until the snippet's server answers (it exits or the mocha timeout ends it). */
async function signIn(started: Started, port: number, account: string, password: string): Promise<{ status: number; body: Record<string, unknown> }> {
  for (;;) {
    if (started.child.exitCode !== null) throw new Error(`the snippet exited (${started.child.exitCode}):\n${started.output()}`);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/fw-api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account, pwd: encodePassword(password) }),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    } catch {
      await new Promise((wait) => setTimeout(wait, 200));
    }
  }
}

describe('docs that run (README.md, docs/*.md)', function () {
  this.timeout(120_000);
  const snippets = documentationSnippets();
  let tmp: string;

  before(() => {
    rmSync(snippetsDir, { recursive: true, force: true });
    mkdirSync(snippetsDir, { recursive: true });
    for (const snippet of snippets) writeFileSync(join(snippetsDir, snippetFileName(snippet)), snippet.code);
    tmp = mkdtempSync(join(tmpdir(), 'fw-docs-'));
  });

  after(() => {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(snippetsDir, { recursive: true, force: true });
  });

  it('finds the marked blocks, the quick starts among them', () => {
    const starts = snippets.filter((s) => s.start).map((s) => s.file);
    expect(starts).to.include('README.md');
    expect(starts).to.include('docs/data.md');
    expect(starts).to.include('docs/admin.md');
    expect(snippets.length).to.be.greaterThan(starts.length);
  });

  it('reads indented fences and only the `ts run` info string', () => {
    const text = ['```ts', 'partial();', '```', '- item', '  ```ts run', '  import x from "y";', '  ```', '```ts run start', 'go();', '```'].join('\n');
    expect(extractSnippets('x.md', text)).to.deep.equal([
      { file: 'x.md', line: 5, code: 'import x from "y";\n', start: false },
      { file: 'x.md', line: 8, code: 'go();\n', start: true },
    ]);
  });

  it('type-checks every marked block against the workspace packages (strict)', function () {
    // One TypeScript program over every block and the workspace's sources: about 30 s alone, over
    // two minutes beside the browser files on two cores.
    this.timeout(360_000);
    const base = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.base.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    expect(base, 'tsconfig.base.json').to.not.equal(undefined);
    const files = snippets.map((s) => join(snippetsDir, snippetFileName(s)));
    const program = ts.createProgram(files, { ...base!.options, noEmit: true, types: ['node'] });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? relative(root, d.file.fileName) : '';
      const snippet = snippets.find((s) => d.file && d.file.fileName.endsWith(snippetFileName(s)));
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const origin = snippet ? `${snippet.file}:${snippet.line + 1 + line}` : where;
      return `${origin}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(errors.join('\n')).to.equal('');
  });

  for (const snippet of snippets.filter((s) => s.start)) {
    it(`starts the quick start of ${snippet.file}:${snippet.line} on a fresh SQLite file and signs in as admin`, async () => {
      const port = await freePort();
      const password = 'docs-Quick-start-1';
      const started = startSnippet(join(snippetsDir, snippetFileName(snippet)), {
        FW_DB_URL: `sqlite:${join(tmp, `${snippet.line}-${snippet.file.replace(/\W/g, '_')}.db`)}`,
        PORT: String(port),
        FW_ADMIN_PASSWORD: password,
      });
      try {
        const login = await signIn(started, port, 'admin', password);
        expect(login.status, started.output()).to.equal(200);
        expect(login.body.pass).to.equal(true);
        const token = String(login.body.token);
        // The first administrator's first password reaches only its change (issue 19 §3).
        expect(login.body.resetPwd).to.equal(true);
        const before = await fetch(`http://127.0.0.1:${port}/fw-api/data/table/Book`, { method: 'POST', headers: { 'content-type': 'application/json', token }, body: '{}' });
        expect(before.status).to.equal(403);
        const newPassword = 'docs-Quick-start-2';
        const changed = await fetch(`http://127.0.0.1:${port}/fw-api/change-pwd`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', token },
          body: JSON.stringify({ pwd: encodePassword(password), newPwd: encodePassword(newPassword), newPwd2: encodePassword(newPassword) }),
        });
        expect(changed.status, await changed.clone().text()).to.equal(200);
        // The model's table exists: its first query is no 500 `no such table`.
        const table = await fetch(`http://127.0.0.1:${port}/fw-api/data/table/Book`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', token },
          body: '{}',
        });
        expect(table.status, `${await table.clone().text()}\n${started.output()}`).to.equal(200);
      } finally {
        started.child.kill();
      }
    });

    it(`refuses to start the quick start of ${snippet.file}:${snippet.line} without FW_ADMIN_PASSWORD`, async () => {
      const started = startSnippet(join(snippetsDir, snippetFileName(snippet)), {
        FW_DB_URL: `sqlite:${join(tmp, `unset-${snippet.line}-${snippet.file.replace(/\W/g, '_')}.db`)}`,
        PORT: String(await freePort()),
        FW_ADMIN_PASSWORD: '',
      });
      try {
        const code = await new Promise<number | null>((done) => started.child.once('exit', done));
        expect(code, started.output()).to.not.equal(0);
        expect(started.output()).to.match(/password/i);
      } finally {
        started.child.kill();
      }
    });
  }
});
