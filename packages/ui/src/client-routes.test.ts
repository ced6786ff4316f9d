import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 22 §5: the admin UI reaches the server only through its client module
// (packages/ui/app/src/client/). The route table there is loaded by path (the app has its own
// tsconfig; routes.ts holds no browser code) and its path builders are checked here; then every
// other app file is scanned for a route path or a direct request call.
const APP = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src');
const CLIENT = join(APP, 'client');

interface Route {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  keep401?: boolean;
}
type Builder = (...args: never[]) => Route | string;
interface Routes {
  [name: string]: Builder;
  build(fw: string): Route;
  table(fw: string, query: Record<string, unknown>): Route;
  row(fw: string, id: number): Route;
  reference(fw: string, field: string, params: Record<string, unknown>): Route;
  updateCell(fw: string, cell: { id: unknown; field: string; value: unknown }): Route;
  addRow(fw: string, values: Record<string, unknown>): Route;
  updateRow(fw: string, values: Record<string, unknown>, version?: string): Route;
  copyRow(fw: string, id: number, values: Record<string, unknown>): Route;
  deleteRows(fw: string, ids: number[]): Route;
  importRows(fw: string, mode: string, form: FormData): Route;
  importTemplate(fw: string, format: string): Route;
  upload(fw: string, field: string, form: FormData): Route;
  file(fw: string, field: string, rowId: unknown, fileId: string, inline?: boolean): Route;
  printPath(fw: string, id: number): string;
  exportPath(fw: string): string;
  captchaPath(mark: string): string;
  signIn(body: Record<string, string>): Route;
  logout(): Route;
  changePassword(body: { pwd: string; newPwd: string; newPwd2: string }): Route;
  sessions(userId?: number): Route;
  onlineUsers(page: number, size: number): Route;
  endSession(id: string, userId?: number): Route;
  endOtherSessions(userId?: number): Route;
  pref(name: string): Route;
  savePref(name: string, value: unknown): Route;
  deletePref(name: string): Route;
  explain(fw: string, user?: number): Route;
  liveEvents(fw: string): Route;
  presence(fw: string, body: { client: string; id: number | null; field?: string }): Route & { keepalive?: boolean };
  undo(body: Record<string, unknown>): Route;
}

async function load(): Promise<Routes> {
  return ((await import(pathToFileURL(join(CLIENT, 'routes.ts')).href)) as { routes: Routes }).routes;
}

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

// App pages that share a first segment with an API route (the sign-in page, the sessions page):
// only the API's longer forms ("/sessions/online", "/sessions?user=") are refused for them.
const APP_PAGES = new Set(['login', 'sessions']);
const CALLS = /(?<![\w.$])(api|request|fetch|apiUrl|tokenUrl|fetchBlob|send|call)\s*\(/;

/** The first path segment of every route the table builds ("data", "build", "prefs", …). */
function apiSegments(routes: Routes): Set<string> {
  const samples: Array<Route | string> = [
    routes.build('M'),
    routes.table('M', {}),
    routes.row('M', 1),
    routes.updateCell('M', { id: 1, field: 'f', value: 1 }),
    routes.importTemplate('M', 'csv'),
    routes.printPath('M', 1),
    routes.exportPath('M'),
    routes.captchaPath('x'),
    routes.signIn({}),
    routes.logout(),
    routes.changePassword({ pwd: '', newPwd: '', newPwd2: '' }),
    routes.sessions(),
    routes.pref('p'),
    routes.explain('M'),
  ];
  for (const name of ['loginSettings', 'userInfo', 'menu', 'activity', 'grantable', 'assignable'] as const) samples.push(routes[name]!());
  return new Set(samples.map((r) => (typeof r === 'string' ? r : r.path).split(/[/?]/)[1]!));
}

/** The problems of one file's text: route path literals and direct request calls. */
function problems(text: string, segments: Set<string>): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    // Comments may name routes and requests; only code counts.
    if (/^\s*(\/\/|\/\*|\*)/.test(raw)) return;
    const line = raw.replace(/\s\/\/\s.*$/, '');
    const call = CALLS.exec(line);
    if (call) found.push(`${i + 1}: calls ${call[1]}()`);
    for (const seg of segments) {
      const tail = APP_PAGES.has(seg) ? '(?:/|\\?|\\$\\{)' : '(?:[/?\'"`]|\\$\\{)';
      if (new RegExp(`['"\`]/${seg.replace(/[-]/g, '\\-')}${tail}`).test(line)) found.push(`${i + 1}: route path /${seg}`);
    }
  });
  return found;
}

describe('ui client: the route table', () => {
  it('encodes model names, field names and ids in paths', async () => {
    const routes = await load();
    expect(routes.build('a/b c')).to.deep.equal({ method: 'GET', path: '/build/a%2Fb%20c' });
    expect(routes.row('Book', 3).path).to.equal('/data/Book/3');
    expect(routes.row('Bü ch', 3).path).to.equal('/data/B%C3%BC%20ch/3');
    expect(routes.reference('Book', 'au thor', { search: 'x' })).to.deep.equal({ method: 'POST', path: '/data/reference/Book/au%20thor', body: { search: 'x' } });
    expect(routes.file('Book', 'cover', 7, 'ab/c d').path).to.equal('/data/file/Book/cover/7/ab%2Fc%20d');
    expect(routes.file('Book', 'cover', '7', 'f1', true).path).to.equal('/data/file/Book/cover/7/f1?inline=1');
    expect(routes.file('Book', 'cover', 7, 'f1').method).to.equal('GET');
    expect(routes.printPath('Lib/Book', 12)).to.equal('/data/print/Lib%2FBook/12');
    expect(routes.exportPath('Lib Book')).to.equal('/data/export/Lib%20Book');
    expect(routes.importTemplate('Book', 'xlsx').path).to.equal('/data/import-template/Book?format=xlsx');
    expect(routes.pref('table:Book').path).to.equal('/prefs/table%3ABook');
    expect(routes.endSession('s/1', 4)).to.deep.equal({ method: 'DELETE', path: '/sessions/s%2F1?user=4' });
    expect(routes.endSession('s1').path).to.equal('/sessions/s1');
    expect(routes.explain('A B', 3).path).to.equal('/power/explain/A%20B?user=3');
    expect(routes.explain('A').path).to.equal('/power/explain/A');
    // The live stream (issue 24 §3): a GET whose token goes in a header (client/live.ts), never in the path.
    expect(routes.liveEvents('Lib Book')).to.deep.equal({ method: 'GET', path: '/data/events/Lib%20Book' });
    // Presence: sent while the page is being left (keepalive), and never a sign-in redirect.
    expect(routes.presence('Lib Book', { client: 'tab-key-1', id: 3, field: 'title' })).to.deep.equal({
      method: 'POST',
      path: '/data/presence/Lib%20Book',
      body: { client: 'tab-key-1', id: 3, field: 'title' },
      keep401: true,
      keepalive: true,
    });
  });

  it('builds the writes with their methods, bodies and headers', async () => {
    const routes = await load();
    expect(routes.updateCell('Book', { id: 1, field: 'title', value: 'X' })).to.deep.equal({
      method: 'POST',
      path: '/data/modify/Book/update-cell',
      body: { id: 1, field: 'title', value: 'X' },
    });
    expect(routes.addRow('Book', { title: 'X' })).to.deep.equal({ method: 'POST', path: '/data/modify/Book', body: { title: 'X' } });
    expect(routes.updateRow('Book', { id: 1 }, 'W/"v2"')).to.deep.equal({ method: 'POST', path: '/data/modify/Book/update', body: { id: 1 }, headers: { 'if-match': 'W/"v2"' } });
    expect(routes.updateRow('Book', { id: 1 }).headers).to.deep.equal({});
    expect(routes.copyRow('Book', 2, { title: 'Y' }).body).to.deep.equal({ id: 2, values: { title: 'Y' } });
    expect(routes.deleteRows('Book', [1, 2])).to.deep.equal({ method: 'POST', path: '/data/modify/Book/delete', body: { ids: [1, 2] } });
    const form = new FormData();
    expect(routes.importRows('Book', 'upsert', form)).to.deep.include({ method: 'POST', path: '/data/import/Book?mode=upsert' });
    expect(routes.importRows('Book', 'upsert', form).body).to.equal(form);
    expect(routes.upload('Book', 'co ver', form).path).to.equal('/data/upload/Book/co%20ver');
    expect(routes.table('Book', { page: 2 })).to.deep.equal({ method: 'POST', path: '/data/table/Book', body: { page: 2 } });
    expect(routes.savePref('table:Book', { density: 'small' })).to.deep.equal({ method: 'PUT', path: '/prefs/table%3ABook', body: { value: { density: 'small' } } });
    expect(routes.deletePref('table:Book').method).to.equal('DELETE');
    // Undo (issue 23 §3): one route for a batch and for a person's time window, the body as given.
    const batch = '0b9d5c1e-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
    expect(routes.undo({ batch, dryRun: true })).to.deep.equal({ method: 'POST', path: '/data/undo', body: { batch, dryRun: true } });
    expect(routes.undo({ actor: 3, from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z', force: [7] }).body).to.deep.equal({
      actor: 3,
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
      force: [7],
    });
  });

  it('marks the sign-in and sign-out routes as answering 401 themselves', async () => {
    const routes = await load();
    expect(routes.signIn({ account: 'a', pwd: 'p' })).to.deep.equal({ method: 'POST', path: '/login', body: { account: 'a', pwd: 'p' }, keep401: true });
    expect(routes.logout()).to.deep.equal({ method: 'POST', path: '/logout', keep401: true });
    expect(routes.changePassword({ pwd: 'a', newPwd: 'b', newPwd2: 'b' }).keep401).to.equal(undefined);
    expect(routes.endOtherSessions(5)).to.deep.equal({ method: 'POST', path: '/sessions/revoke-others?user=5' });
    expect(routes.onlineUsers(2, 20).path).to.equal('/sessions/online?page=2&size=20');
    expect(routes.sessions().path).to.equal('/sessions');
  });
});

describe('ui client: components call the client, not URLs', () => {
  it('finds a route path or a request call when there is one', async () => {
    const segments = apiSegments(await load());
    expect([...segments]).to.include.members(['data', 'build', 'prefs', 'power', 'logout', 'userinfo', 'menu', 'sessions', 'login']);
    expect(problems("await api('/logout', { method: 'POST' });", segments)).to.have.length(2);
    expect(problems('const p = `/data/table/${fw}`;', segments)).to.deep.equal(['1: route path /data']);
    expect(problems('fetch(url, {});', segments)).to.deep.equal(['1: calls fetch()']);
    expect(problems("  // every request( goes through '/data/…'\n   * api('/menu')", segments)).to.deep.equal([]);
    expect(problems('href={`/sessions?user=${id}`}', segments)).to.deep.equal(['1: route path /sessions']);
    // App pages and methods of other objects are fine.
    expect(problems('navigate(\'/login\', { replace: true }); <Link to="/sessions">', segments)).to.deep.equal([]);
    expect(problems('upload.mutateAsync(file); window.requestAnimationFrame(f); customRequest={x}', segments)).to.deep.equal([]);
  });

  it('no app file outside client/ holds a route path or calls the transport', async () => {
    const segments = apiSegments(await load());
    const found = sources(APP)
      .filter((path) => relative(CLIENT, path).startsWith('..'))
      .flatMap((path) => problems(readFileSync(path, 'utf8'), segments).map((p) => `${relative(APP, path)}:${p}`));
    expect(found).to.deep.equal([]);
  });
});
