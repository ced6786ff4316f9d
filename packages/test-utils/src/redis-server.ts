import { freePort } from './ports.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/** A `redis-server` process of the test's own, on a free loopback port, that the test may stop, kill or freeze. */
export interface RedisProcess {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** SIGTERM, and waits for the process to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop()`), waiting until it accepts connections; thaws a frozen one; does nothing when it runs. */
  start(): Promise<void>;
  /** SIGSTOP: the port still accepts connections, nothing answers. */
  freeze(): void;
  /** SIGCONT after `freeze()`. */
  thaw(): void;
  /** Stops it for good (thawing first); safe to call twice. */
  close(): Promise<void>;
}

/** True when a `redis-server` binary is on the PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Waits until `child` (a redis-server) listens on `port`; throws if it exits first. @internal */
export async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} before listening on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

/**
 * Starts `redis-server --port <free port> --save "" --appendonly no` (nothing written to disk).
 * Call `close()` in `after()`.
 */
export async function startRedisServer(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let frozen = false;
  const launch = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      if (frozen) {
        child.kill('SIGCONT');
        frozen = false;
      }
      return;
    }
    const next = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    child = next;
    await waitForPort(port, next);
  };
  const stop = async () => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    if (frozen) {
      current.kill('SIGCONT');
      frozen = false;
    }
    current.kill('SIGTERM');
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start: launch,
    freeze() {
      child?.kill('SIGSTOP');
      frozen = true;
    },
    thaw() {
      child?.kill('SIGCONT');
      frozen = false;
    },
    close: stop,
  };
}
