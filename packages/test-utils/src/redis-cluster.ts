import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { waitForPort } from './redis-server.js';

/** A 3-master Redis Cluster of the test's own (no replicas, nothing on disk but its config files). */
export interface RedisCluster {
  /** The masters' ports. */
  readonly ports: readonly number[];
  /** `redis://127.0.0.1:<port>` of each master. */
  readonly urls: readonly string[];
  /** An ioredis `Cluster` on it with Fw's fail-fast settings; the caller disconnects it. */
  connect(): Promise<Cluster>;
  /** Sends `signal` to the server of master `index` (`SIGSTOP` freezes it, `SIGCONT` thaws it). */
  signal(index: number, signal: NodeJS.Signals): void;
  /** Stops every server and removes its directory; safe to call twice. */
  close(): Promise<void>;
}

/** True when both `redis-server` and `redis-cli` are on the PATH. */
export function hasRedisClusterTools(): boolean {
  return ['redis-server', 'redis-cli'].every((bin) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0);
}

async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

// A cluster node also listens on port + 10000 (the cluster bus). Both stay below the kernel's
// ephemeral range (32768+), so neither is handed to a client connection between the check and the
// server's bind (a bus port up there once was, under a loaded parallel run, and the node died).
async function clusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 10000 + Math.floor(Math.random() * 12700);
    if (taken.has(port) || taken.has(port + 10000) || taken.has(port - 10000)) continue;
    if ((await bindable(port)) && (await bindable(port + 10000))) return port;
  }
  throw new Error('startRedisCluster: found no free port pair (port, port + 10000)');
}

const CLIENT_OPTIONS = { enableOfflineQueue: false, redisOptions: { commandTimeout: 10_000, maxRetriesPerRequest: 2 } } as const;

/**
 * Starts three `redis-server --cluster-enabled yes` on free loopback ports (each in its own
 * temporary directory, `--save "" --appendonly no`), joins them with
 * `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes` and waits until every node
 * reports `cluster_state:ok`. Call `close()` in `after()`. `nodeTimeoutMs` is
 * `--cluster-node-timeout` (Redis's default, 15 s, when not given): how long a master may stop
 * answering before the others mark it failed and, with no replica to take over, the cluster down.
 * @throws {Error} when redis-server or redis-cli is missing, a server does not start, or the
 * cluster does not become ready within 20 seconds.
 */
export async function startRedisCluster(options: { nodeTimeoutMs?: number } = {}): Promise<RedisCluster> {
  if (!hasRedisClusterTools()) throw new Error('startRedisCluster: redis-server and redis-cli must be on the PATH');
  // A port taken between the check and the bind ends that try; the next one picks other ports.
  let failure: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

async function startOnce(options: { nodeTimeoutMs?: number }): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  // A test run that dies without its after() hook must not leave servers behind.
  const killAll = () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  };
  process.once('exit', killAll);
  const close = async () => {
    process.off('exit', killAll);
    await Promise.all(
      children.splice(0).map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGCONT');
        child.kill('SIGTERM');
        return exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(taken);
      taken.add(port);
      ports.push(port);
    }
    for (const port of ports) {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)];
      args.push('--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir);
      if (options.nodeTimeoutMs !== undefined) args.push('--cluster-node-timeout', String(options.nodeTimeoutMs));
      const child = spawn('redis-server', args, { stdio: 'ignore' });
      children.push(child);
      await waitForPort(port, child);
    }
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed (${create.status}): ${create.stdout}${create.stderr}`);
    const deadline = Date.now() + 20_000;
    for (const port of ports) {
      const node = new Redis(port, '127.0.0.1', { lazyConnect: true });
      try {
        await node.connect();
        while (!/cluster_state:ok/.test(await node.cluster('INFO'))) {
          if (Date.now() > deadline) throw new Error(`startRedisCluster: node ${port} did not reach cluster_state:ok`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        node.disconnect();
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    ports,
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    async connect() {
      const cluster = new Cluster(
        ports.map((port) => ({ host: '127.0.0.1', port })),
        CLIENT_OPTIONS,
      );
      await new Promise<void>((resolve, reject) => {
        cluster.once('ready', () => resolve());
        cluster.once('error', reject);
      });
      return cluster;
    },
    signal(index, signal) {
      const child = children[index];
      if (!child) throw new Error(`startRedisCluster: no master ${index}`);
      child.kill(signal);
    },
    close,
  };
}

/**
 * Declares `body` inside `describe('<title> on a Redis Cluster')`, on a 3-master cluster started
 * for the block and stopped after it. Without redis-server and redis-cli on the PATH, one
 * pending test says the cluster suite did not run.
 */
export function describeRedisCluster(title: string, body: (cluster: () => RedisCluster) => void): void {
  describe(`${title} on a Redis Cluster`, function () {
    if (!hasRedisClusterTools()) {
      it('skipped: redis-server or redis-cli is not on the PATH, so the Redis Cluster suite did not run', function () {
        this.skip();
      });
      return;
    }
    let cluster: RedisCluster | undefined;
    before(async function () {
      this.timeout(60_000);
      cluster = await startRedisCluster();
    });
    after(async function () {
      await cluster?.close();
    });
    body(() => {
      if (!cluster) throw new Error('the Redis Cluster is not ready (before hook failed?)');
      return cluster;
    });
  });
}
