import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BUILTIN_MODELS, FwDefinitionError, connectionReason, createRegistry, loadConfig, passwordPolicyFromConfig, type ModelDefinition } from '@fw/core';
import { ModelTablesError, createStore, describeModelTableChanges, redactUrl, type FwStore, type ModelTableChange } from '@fw/store';
import { indexAdvice, largeTableRows } from './doctor-indexes.js';
import { KnexTokenStore, RedisTokenStore, createRedis, createRedisCluster, parseRedisClusterNodes, redisReady, type TokenStore } from '@fw/token';
import { CliError, hidePassword } from './errors.js';
import { readNewPassword, type PasswordInput, type PromptOutput } from './password.js';

/** What `fw` reads and writes; {@link runCli} takes it so a test (or a host's own script) can pass its own. */
export interface CliIo {
  /** Where passwords are read from: a terminal (no echo) or a pipe. */
  stdin: PasswordInput;
  /** Results. */
  stdout: PromptOutput;
  /** Errors and prompts. */
  stderr: PromptOutput;
  /** `FW_DB_URL`, `FW_MODELS`, `FW_REDIS_URL`. */
  env: Record<string, string | undefined>;
  /** Where relative `--models` paths start. */
  cwd: string;
}

/** The usage text of `fw help`. */
export const USAGE = `Usage: fw <command> [options]

Commands:
  migrate                          run Fw's migrations, create or extend the models' tables and their menus
  user add <account> [--name N] [--admin] [--no-password]
                                   add a user; the password is typed at a prompt (no echo) or piped on stdin;
                                   --no-password: an account that signs in only through sign-on or a directory
  user passwd <account>            set a user's password (prompt or stdin)
  token revoke --user <account>    end every session of a user
  doctor [--large-table-rows N]    check the connection, pending migrations and every model's table;
                                   exits 1 when something differs. Also advises an index for each field
                                   the table page filters or sorts on, in tables of N rows or more
                                   (default 100000) with no index starting with it (advice only)
  help                             this text

Options:
  --db <url>            database URL (or FW_DB_URL): sqlite:data/app.db, postgres://…, mysql://…, mssql://…
  --models <path>       a module exporting the host's models (\`models\` or the default export, an array)
                        (or FW_MODELS); migrate and doctor need it to know the host's tables
  --redis <url>         token revoke and user passwd: the Redis holding the tokens, when the app uses one (or FW_REDIS_URL); comma-separated node URLs: a Redis Cluster
  --redis-prefix <p>    token revoke and user passwd: the app's redisPrefix (default fw:)

Passwords are never taken from the command line (shell history, ps): pipe them, e.g.
  printf '%s\\n' "$ADMIN_PASSWORD" | fw user add admin --admin --db "$FW_DB_URL"`;

const OPTIONS = {
  db: { type: 'string' },
  models: { type: 'string' },
  name: { type: 'string' },
  admin: { type: 'boolean' },
  'no-password': { type: 'boolean' },
  user: { type: 'string' },
  redis: { type: 'string' },
  'redis-prefix': { type: 'string' },
  'large-table-rows': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  // Declared only to refuse it with a reason instead of "unknown option".
  password: { type: 'string' },
} as const;

interface Values {
  db?: string | undefined;
  models?: string | undefined;
  name?: string | undefined;
  admin?: boolean | undefined;
  'no-password'?: boolean | undefined;
  user?: string | undefined;
  redis?: string | undefined;
  'redis-prefix'?: string | undefined;
  'large-table-rows'?: string | undefined;
  help?: boolean | undefined;
  password?: string | undefined;
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/**
 * Runs one `fw` command line (without `node` and the script: `process.argv.slice(2)`).
 * @returns the exit code: 0 done, 1 failed or (doctor) something differs, 2 a wrong command line.
 * @example process.exitCode = await runCli(['doctor', '--db', 'sqlite:data/app.db', '--models', './dist/models.js']);
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let url: string | undefined;
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    } catch (error) {
      throw new CliError(`${connectionReason(error)}\nRun "fw help" for the commands and options.`, 2);
    }
    const values: Values = parsed.values;
    const [command, sub, ...rest] = parsed.positionals;
    if (values.password !== undefined) {
      throw new CliError('--password is not accepted: a password on the command line ends up in shell history and in ps; type it at the prompt or pipe it on stdin', 2);
    }
    if (values.help || command === undefined || command === 'help') {
      // A bare `fw` is a wrong command line: the usage goes where errors go.
      const bare = command === undefined && !values.help;
      (bare ? io.stderr : io.stdout).write(`${USAGE}\n`);
      return bare ? 2 : 0;
    }
    url = values.db ?? io.env.FW_DB_URL;
    const key = [command, sub].filter((part) => part !== undefined).join(' ');
    switch (command) {
      case 'migrate':
        expectArgs(key, [sub, ...rest], 0);
        return await withStore(url, (store) => migrate(store, values, io));
      case 'doctor': {
        expectArgs(key, [sub, ...rest], 0);
        const large = largeTableRows(values['large-table-rows']);
        return await withStore(url, (store) => doctor(store, url!, values, io, large));
      }
      case 'user': {
        if (sub !== 'add' && sub !== 'passwd') throw new CliError(`unknown command "fw ${key}": use "fw user add <account>" or "fw user passwd <account>"`, 2);
        expectArgs(key, rest, 1, '<account>');
        const account = rest[0]!;
        return await withStore(url, (store) => (sub === 'add' ? userAdd(store, account, values, io) : userPasswd(store, account, values, io)));
      }
      case 'token': {
        if (sub !== 'revoke') throw new CliError(`unknown command "fw ${key}": use "fw token revoke --user <account>"`, 2);
        expectArgs(key, rest, 0);
        if (!values.user) throw new CliError('fw token revoke needs --user <account>', 2);
        const account = values.user;
        return await withStore(url, (store) => tokenRevoke(store, account, values, io));
      }
      default:
        throw new CliError(`unknown command "${command}". Run "fw help" for the commands.`, 2);
    }
  } catch (error) {
    const message =
      error instanceof CliError || error instanceof FwDefinitionError ? error.message : `${error instanceof Error ? error.name : 'Error'}: ${connectionReason(error)}`;
    io.stderr.write(`fw: ${url ? hidePassword(message, url) : message}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

function expectArgs(command: string, args: ReadonlyArray<string | undefined>, count: number, names = ''): void {
  const given = args.filter((arg) => arg !== undefined);
  if (given.length < count) throw new CliError(`fw ${command} needs ${names}`, 2);
  if (given.length > count) throw new CliError(`fw ${command}: unexpected argument "${given[count]}"`, 2);
}

/** Opens the database, checks it answers, runs `work`, and always closes it. */
async function withStore(url: string | undefined, work: (store: FwStore) => Promise<number>): Promise<number> {
  if (!url) throw new CliError('no database: pass --db <url> or set FW_DB_URL', 2);
  const shown = redactUrl(url);
  let store: FwStore;
  try {
    store = createStore(url);
  } catch (error) {
    throw new CliError(`cannot open database ${shown}: ${connectionReason(error)}`, error instanceof FwDefinitionError ? 2 : 1);
  }
  try {
    try {
      await store.knex.raw('select 1');
    } catch (error) {
      throw new CliError(`cannot open database ${shown}: ${connectionReason(error)}`);
    }
    return await work(store);
  } finally {
    await store.destroy();
  }
}

/** The host's models from `--models` / `FW_MODELS`, checked as fwAdmin would (names unique, definitions valid). */
async function loadModels(values: Values, io: CliIo): Promise<ModelDefinition[] | undefined> {
  const path = values.models ?? io.env.FW_MODELS;
  if (!path) return undefined;
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(io.cwd, path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`cannot load the models module ${path}: ${connectionReason(error)}`);
  }
  const models = module.models ?? module.default;
  if (!Array.isArray(models)) throw new CliError(`${path} exports no models: export an array of defineModel(…) results as "models" or as the default export`);
  createRegistry([...BUILTIN_MODELS, ...(models as ModelDefinition[])]);
  return models as ModelDefinition[];
}

/** Refuses to work on users or tokens before `fw migrate`: their tables may not exist yet. */
async function requireMigrated(store: FwStore): Promise<void> {
  const { pending } = await store.migrate.status();
  if (pending.length > 0) throw new CliError(`the database has ${pending.length} pending migration(s): run "fw migrate" first`);
}

function printChange(io: CliIo, change: ModelTableChange): void {
  io.stdout.write(`- ${change.message}\n`);
  for (const line of change.sql.split('\n')) io.stdout.write(`    ${line}\n`);
}

async function migrate(store: FwStore, values: Values, io: CliIo): Promise<number> {
  const models = await loadModels(values, io);
  const ran = await store.migrate.latest();
  io.stdout.write(ran.length === 0 ? 'Built-in tables: up to date.\n' : `Built-in tables: applied ${ran.join(', ')}.\n`);
  if (!models) {
    io.stdout.write('No --models given: only the built-in tables were migrated.\n');
    return 0;
  }
  const plan = await store.planModelTables(models);
  try {
    await store.createModelTables(models);
  } catch (error) {
    if (!(error instanceof ModelTablesError)) throw error;
    io.stderr.write(`${error.message}\nNothing was changed in the models' tables.\n`);
    return 1;
  }
  for (const change of plan.safe) printChange(io, change);
  const registry = createRegistry([...BUILTIN_MODELS, ...models]);
  for (const [i, model] of registry.list().entries()) await store.menus.createModelMenu(model, { sort: i });
  io.stdout.write(`Models: ${plan.safe.length === 0 ? 'tables up to date' : `${plan.safe.length} change(s) applied`}; menus of ${registry.list().length} models in place.\n`);
  return 0;
}

async function doctor(store: FwStore, url: string, values: Values, io: CliIo, largeRows: number): Promise<number> {
  const models = await loadModels(values, io);
  io.stdout.write(`Database: ${redactUrl(url)} (${store.dialect}) answers.\n`);
  let differs = false;
  const { applied, pending } = await store.migrate.status();
  if (pending.length > 0) {
    differs = true;
    io.stdout.write(`Migrations: ${pending.length} pending (${pending.join(', ')}); "fw migrate" applies them.\n`);
  } else {
    io.stdout.write(`Migrations: all ${applied.length} applied.\n`);
  }
  if (!models) {
    io.stdout.write('Models: not checked (pass --models <path> or set FW_MODELS).\n');
  } else {
    const plan = await store.planModelTables(models);
    if (plan.safe.length > 0) {
      differs = true;
      io.stdout.write(`Models: ${plan.safe.length} difference(s) that start-up or "fw migrate" applies:\n`);
      for (const change of plan.safe) printChange(io, change);
    }
    if (plan.unsafe.length > 0) {
      differs = true;
      io.stdout.write(`${describeModelTableChanges(plan.unsafe)}\n`);
    }
    for (const note of plan.notes) io.stdout.write(`Note: ${note.message}\n`);
    if (plan.safe.length === 0 && plan.unsafe.length === 0) io.stdout.write(`Models: the tables of all ${models.length} models match their definitions.\n`);
    // Advice, not a difference: the exit code stays as the checks above set it.
    for (const line of await indexAdvice(store, models, largeRows)) io.stdout.write(`${line}\n`);
  }
  io.stdout.write(differs ? 'Something differs (see above).\n' : 'Everything matches.\n');
  return differs ? 1 : 0;
}

/**
 * The password, when it passes the password policy the app applies everywhere (issue 19 §2), with
 * the app's configured minimum (`FW_APP_PASSWORD_MIN_LENGTH`).
 * @throws {CliError} naming every rule it breaks; nothing is written.
 */
function checkedPassword(password: string, account: string, io: CliIo): string {
  const refusals = passwordPolicyFromConfig(loadConfig({ env: io.env })).check(password, { account });
  if (refusals.length > 0) {
    throw new CliError(`password refused for ${account}, nothing was changed: ${refusals.map((r) => `${r.message} (${r.type})`).join('; ')}`, 1);
  }
  return password;
}

async function userAdd(store: FwStore, account: string, values: Values, io: CliIo): Promise<number> {
  await requireMigrated(store);
  if (await store.users.findByAccount(account)) throw new CliError(`account "${account}" already exists (set its password with "fw user passwd ${account}")`);
  // A sign-on or directory account has no local password at all, rather than one nobody uses.
  const password = values['no-password'] ? null : checkedPassword(await readNewPassword(io.stdin, io.stderr, account), account, io);
  const user = await store.users.create({ account, name: values.name ?? account, password, isAdmin: values.admin === true });
  io.stdout.write(`Added ${user.isAdmin ? 'administrator' : 'user'} ${user.account} (id ${user.id})${password === null ? ' without a local password' : ''}.\n`);
  return 0;
}

async function userPasswd(store: FwStore, account: string, values: Values, io: CliIo): Promise<number> {
  await requireMigrated(store);
  const user = await store.users.findByAccount(account);
  if (!user) throw new CliError(`no account "${account}"`);
  const password = checkedPassword(await readNewPassword(io.stdin, io.stderr, account), user.account, io);
  await store.users.setPassword(user.id, password);
  // A new password ends every session of the account, as a change through the API does.
  const { count, where } = await revokeSessions(store, user.id, values, io);
  io.stdout.write(`Password of ${account} changed; ${count} open session(s) ended${where}.\n`);
  return 0;
}

async function tokenRevoke(store: FwStore, account: string, values: Values, io: CliIo): Promise<number> {
  await requireMigrated(store);
  const user = await store.users.findByAccount(account);
  if (!user) throw new CliError(`no account "${account}"`);
  const { count, where } = await revokeSessions(store, user.id, values, io);
  io.stdout.write(`Revoked ${count} token(s) of ${account}${where}.\n`);
  return 0;
}

/**
 * Deletes every token of the user where the app keeps them: its database, or Redis with --redis /
 * FW_REDIS_URL (several comma-separated node URLs: a Redis Cluster).
 */
async function revokeSessions(store: FwStore, userId: number, values: Values, io: CliIo): Promise<{ count: number; where: string }> {
  const redisUrl = values.redis ?? io.env.FW_REDIS_URL;
  const nodes = redisUrl?.includes(',') ? redisUrl.split(',').map((url) => url.trim()) : undefined;
  if (nodes) {
    try {
      parseRedisClusterNodes(nodes);
    } catch (error) {
      throw new CliError(`--redis: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const redis = redisUrl ? (nodes ? createRedisCluster(nodes) : createRedis(redisUrl)) : undefined;
  try {
    if (redis) {
      await redisReady(redis).catch((error: unknown) => {
        throw new CliError(`cannot reach Redis at ${nodes ? nodes.map(redactUrl).join(',') : redactUrl(redisUrl!)}: ${connectionReason(error)}`);
      });
    }
    const tokens: TokenStore = redis ? new RedisTokenStore({ redis, prefix: values['redis-prefix'] ?? 'fw:' }) : new KnexTokenStore({ knex: store.knex });
    return { count: await tokens.deleteByUser(userId), where: redis ? ` in Redis ${nodes ? `Cluster ${nodes.map(redactUrl).join(',')}` : redactUrl(redisUrl!)}` : '' };
  } finally {
    redis?.disconnect();
  }
}
