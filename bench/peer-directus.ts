// Directus as the peer of bench/scale.bench.ts (issue 21 measured Fw against Directus 11.3.5): starts
// a Directus installed outside the repository (FW_PEER_DIRECTUS_DIR, default /tmp/peer/directus) on
// a PostgreSQL or MariaDB/MySQL database that already holds `scale_rows`, and makes, through its REST API as the
// administrator, what a normal user needs to read the table: the collection (Directus adopts the
// existing table), a policy granting read on all its fields, a role holding the policy, and a user
// of that role with a static token. Every step looks first and makes only what is missing, so a
// second start on the same database changes nothing but the token.
//
// Directus is never a dependency of this repository. Install it with:
//   mkdir -p /tmp/peer/directus && cd /tmp/peer/directus && npm init -y && npm install directus@11.3.5 pg mysql2
// Alone: node --import tsx bench/peer-directus.ts postgres://postgres@127.0.0.1:5432/fw_scale_100000
// (starts it, prints the URL and token, stops on Ctrl-C).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A running Directus: its base URL, the bench user's static token, its version, and a stopper. */
export interface DirectusPeer {
  url: string;
  token: string;
  version: string;
  stop: () => Promise<void>;
}

/** Options of {@link startDirectus}. */
export interface DirectusPeerOptions {
  /** PostgreSQL or MySQL/MariaDB URL of the database holding the collection. */
  databaseUrl: string;
  /** Where `directus` is installed (a folder with node_modules/directus); default FW_PEER_DIRECTUS_DIR or /tmp/peer/directus. */
  dir?: string;
  /** The table to read; default `scale_rows`. */
  collection?: string;
  /** Lines of Directus's own output (warnings and errors) go here; default stderr. */
  log?: (line: string) => void;
}

const INSTALL = (dir: string) => `mkdir -p ${dir} && cd ${dir} && npm init -y && npm install directus@11.3.5 pg mysql2`;
const ADMIN_EMAIL = 'admin@fw-bench.example.com';
const ADMIN_PASSWORD = 'fw-bench-admin-password';
const USER_EMAIL = 'scale-bench@fw-bench.example.com';
const NAME = 'Fw scale bench';

/** A free loopback port (asked of the system, then released for Directus to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs the Directus CLI to its end (bootstrap); rejects with its output when it fails. */
function runCli(cli: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`directus ${args.join(' ')} exited with ${String(code)}:\n${output.slice(-2000)}`))));
  });
}

/** Resolves once the child has exited (at once if it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A small REST client of Directus: JSON in and out, errors with Directus's message. */
function client(base: string) {
  let bearer: string | undefined;
  async function call<T>(method: string, path: string, body?: unknown, allow404 = false): Promise<T | undefined> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (allow404 && (response.status === 404 || response.status === 403)) return undefined;
    const text = await response.text();
    if (!response.ok) throw new Error(`Directus ${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return text ? ((JSON.parse(text) as { data: T }).data ?? undefined) : undefined;
  }
  return {
    call,
    auth(token: string) {
      bearer = token;
    },
  };
}

/**
 * Starts Directus on a free port against `databaseUrl` (bootstrapping its system tables first, which
 * does nothing when they exist), waits for /server/health, and makes the bench's collection,
 * policy, role and user. `stop()` ends the process.
 */
export async function startDirectus(options: DirectusPeerOptions): Promise<DirectusPeer> {
  const dir = options.dir ?? process.env.FW_PEER_DIRECTUS_DIR ?? '/tmp/peer/directus';
  const collection = options.collection ?? 'scale_rows';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const manifest = join(dir, 'node_modules', 'directus', 'package.json');
  if (!existsSync(manifest)) throw new Error(`Directus is not installed in ${dir}: install it with: ${INSTALL(dir)}`);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin?: Record<string, string> };
  const cli = join(dir, 'node_modules', 'directus', pkg.bin?.directus ?? 'cli.js');
  const db = new URL(options.databaseUrl);
  const mysql = /^(mysql2?|mariadb):$/.test(db.protocol);
  if (!mysql && !/^postgres(ql)?:$/.test(db.protocol)) throw new Error(`Directus peer: a PostgreSQL or MySQL/MariaDB URL is needed, not ${db.protocol}`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DB_CLIENT: mysql ? 'mysql' : 'pg',
    DB_HOST: db.hostname,
    DB_PORT: db.port || (mysql ? '3306' : '5432'),
    DB_DATABASE: decodeURIComponent(db.pathname.slice(1)),
    DB_USER: decodeURIComponent(db.username),
    DB_PASSWORD: decodeURIComponent(db.password),
    // A fixed secret: tokens of an earlier start stay readable; nothing here is worth protecting.
    SECRET: 'fw-scale-bench-directus-secret',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    // Every request reaches the database: no response cache, no rate limiter.
    CACHE_ENABLED: 'false',
    RATE_LIMITER_ENABLED: 'false',
    RATE_LIMITER_GLOBAL_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    LOG_STYLE: 'raw',
    TELEMETRY: 'false',
    WEBSOCKETS_ENABLED: 'false',
  };
  await runCli(cli, ['bootstrap'], env, dir);
  const child = spawn(process.execPath, [cli, 'start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Errors (pino level 50 and up) are passed on as they come; the rest (start-up warnings about
  // PostGIS, uploads, the npm update notice) is kept only to explain an early exit.
  let tail = '';
  const forward = (chunk: Buffer) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-4000);
    for (const line of text.split('\n')) if (/"level":\s*[5-9]\d/.test(line)) log(`  directus: ${line.slice(0, 300)}`);
  };
  child.stdout!.on('data', forward);
  child.stderr!.on('data', forward);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited(child);
    clearTimeout(timer);
  };
  try {
    const started = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`directus start exited with ${child.exitCode}:\n${tail}`);
      const healthy = await fetch(`${url}/server/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (healthy) break;
      if (Date.now() - started > 60_000) throw new Error(`Directus did not answer ${url}/server/health within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const token = await provision(url, collection);
    return { url, token, version: pkg.version, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Makes (when missing) the collection, the read policy, the role and the user; gives the user a fresh static token. */
async function provision(url: string, collection: string): Promise<string> {
  const api = client(url);
  const login = await api.call<{ access_token: string }>('POST', '/auth/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  api.auth(login!.access_token);
  // An existing table without a row in directus_collections comes back with `meta: null`; giving
  // it meta makes it a collection (the table itself is left as it is).
  const found = await api.call<{ meta: unknown }>('GET', `/collections/${collection}`, undefined, true);
  if (!found) throw new Error(`Directus does not see the table ${collection} in its database`);
  if (found.meta === null) await api.call('PATCH', `/collections/${collection}`, { meta: { note: 'Fw scale bench', hidden: false } });
  const q = (s: string) => encodeURIComponent(s);
  const policies = await api.call<Array<{ id: string }>>('GET', `/policies?filter[name][_eq]=${q(NAME)}&fields=id`);
  const policy = policies?.[0]?.id ?? (await api.call<{ id: string }>('POST', '/policies', { name: NAME, admin_access: false, app_access: false, icon: 'table' }))!.id;
  const reads = await api.call<Array<{ id: number }>>('GET', `/permissions?filter[policy][_eq]=${policy}&filter[collection][_eq]=${collection}&filter[action][_eq]=read&fields=id`);
  if (!reads?.length) await api.call('POST', '/permissions', { policy, collection, action: 'read', fields: ['*'], permissions: {}, validation: {} });
  const roles = await api.call<Array<{ id: string }>>('GET', `/roles?filter[name][_eq]=${q(NAME)}&fields=id`);
  const role = roles?.[0]?.id ?? (await api.call<{ id: string }>('POST', '/roles', { name: NAME, icon: 'table' }))!.id;
  const access = await api.call<Array<{ id: string }>>('GET', `/access?filter[role][_eq]=${role}&filter[policy][_eq]=${policy}&fields=id`);
  if (!access?.length) await api.call('POST', '/access', { role, policy });
  const token = randomBytes(24).toString('hex');
  const users = await api.call<Array<{ id: string }>>('GET', `/users?filter[email][_eq]=${q(USER_EMAIL)}&fields=id`);
  if (users?.[0]) await api.call('PATCH', `/users/${users[0].id}`, { role, token, status: 'active' });
  else await api.call('POST', '/users', { email: USER_EMAIL, password: randomBytes(16).toString('hex'), role, token, status: 'active' });
  return token;
}

// Run alone: start, print, wait for Ctrl-C.
if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.argv[2] ?? process.env.FW_PEER_DATABASE_URL;
  if (!databaseUrl) throw new Error('usage: node --import tsx bench/peer-directus.ts <PostgreSQL or MySQL URL of a database holding scale_rows>');
  const peer = await startDirectus({ databaseUrl });
  console.log(JSON.stringify({ url: peer.url, token: peer.token, version: peer.version }));
  const stop = () => void peer.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
