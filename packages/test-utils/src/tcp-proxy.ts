import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What {@link TcpProxy.up} does with connections held by {@link TcpProxy.hold}. */
export interface TcpProxyUpOptions {
  /**
   * `'resume'` delivers what was held, in order, and forwards on (a server that was only frozen);
   * `'drop'` closes the held connections (a server that came back after a restart).
   * @default 'resume'
   */
  held?: 'resume' | 'drop';
}

/** A TCP forwarder on a loopback port that a test can take down, black-hole or freeze, to stage a database outage. */
export interface TcpProxy {
  /** The loopback port clients connect to. */
  readonly port: number;
  /** `url` (a server URL) with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** Closes the port and every forwarded connection: clients get `ECONNREFUSED` / a reset. */
  down(): Promise<void>;
  /**
   * Drops every forwarded connection, then accepts new ones without ever answering: a server that
   * vanished behind an address still routed (clients wait for their connect timeout).
   */
  blackhole(): Promise<void>;
  /**
   * Freezes traffic: open connections stay open but nothing passes either way (bytes and closes
   * are kept for later), and new connections are accepted and held the same way. A database that
   * stopped answering (a stalled disk, a lock on everything, a frozen VM) without dropping anyone.
   */
  hold(): Promise<void>;
  /** Forwards again (re-opening the same port after `down()`); see {@link TcpProxyUpOptions} for held connections. */
  up(options?: TcpProxyUpOptions): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** One client connection and its upstream, forwarding both ways unless held. */
class Link {
  readonly #client: Socket;
  readonly #upstream: Socket;
  // Bytes (or an end, as null) that arrived while held, per direction, delivered in order on resume.
  readonly #toUpstream: Array<Buffer | null> = [];
  readonly #toClient: Array<Buffer | null> = [];
  #held: boolean;

  constructor(client: Socket, upstream: Socket, held: boolean) {
    this.#client = client;
    this.#upstream = upstream;
    this.#held = held;
    this.#wire(client, upstream, this.#toUpstream);
    this.#wire(upstream, client, this.#toClient);
  }

  #wire(from: Socket, to: Socket, queue: Array<Buffer | null>): void {
    from.on('data', (chunk: Buffer) => {
      if (this.#held) queue.push(chunk);
      else to.write(chunk);
    });
    // A close is traffic too: while held, the other side must not learn of it.
    from.once('end', () => {
      if (this.#held) queue.push(null);
      else to.end();
    });
    from.once('close', () => {
      if (!this.#held) to.destroy();
    });
  }

  hold(): void {
    this.#held = true;
  }

  resume(): void {
    this.#held = false;
    for (const [queue, to, from] of [
      [this.#toUpstream, this.#upstream, this.#client],
      [this.#toClient, this.#client, this.#upstream],
    ] as const) {
      for (const chunk of queue.splice(0)) {
        if (chunk === null) to.end();
        else to.write(chunk);
      }
      if (from.destroyed) to.destroy();
    }
  }

  destroy(): void {
    this.#client.destroy();
    this.#upstream.destroy();
  }
}

/**
 * Starts a forwarder to `target` (`host:port`) on a free loopback port. Used by the outage tests:
 * the database stays up for the test's own set-up, only the app's path to it is cut.
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: 'pass' | 'blackhole' | 'hold' = 'pass';
  const sockets = new Set<Socket>();
  const links = new Set<Link>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A reset on one side is an expected part of an outage, not a test failure.
    socket.on('error', () => undefined);
  };
  const onConnection = (client: Socket) => {
    track(client);
    if (mode === 'blackhole') return; // accepted, never answered
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    const link = new Link(client, upstream, mode === 'hold');
    links.add(link);
    const forget = () => links.delete(link);
    client.once('close', forget);
    upstream.once('close', forget);
  };
  let server: Server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    links.clear();
  };
  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    via(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async down() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
    async blackhole() {
      mode = 'blackhole';
      dropAll();
    },
    async hold() {
      mode = 'hold';
      for (const link of links) link.hold();
    },
    async up(options: TcpProxyUpOptions = {}) {
      const was = mode;
      mode = 'pass';
      if (was === 'hold' && (options.held ?? 'resume') === 'resume') {
        for (const link of [...links]) link.resume();
      } else {
        dropAll(); // black-holed connections never recover; their clients retry on fresh ones
      }
      if (listening) return;
      server = createServer(onConnection);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      listening = true;
    },
    async close() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
