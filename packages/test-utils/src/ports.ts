import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port nothing listens on right now: one the OS just handed out and that was closed
 * again. Use it for a server the test starts, or as an address that refuses connections.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
