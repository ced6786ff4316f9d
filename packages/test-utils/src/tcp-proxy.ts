import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP forwarder on a loopback port that a test can take down or black-hole, to stage a database outage. */
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
  /** Forwards again (re-opening the same port after `down()`). */
  up(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/**
 * Starts a forwarder to `target` (`host:port`) on a free loopback port. Used by the outage tests:
 * the database stays up for the test's own set-up, only the app's path to it is cut.
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: 'pass' | 'blackhole' = 'pass';
  const sockets = new Set<Socket>();
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
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  };
  let server: Server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
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
    async up() {
      mode = 'pass';
      dropAll(); // black-holed connections never recover; their clients retry on fresh ones
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
