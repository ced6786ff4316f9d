// `npm start`: the demo admin app on an embedded SQLite file (or FW_DB_URL).
import { FwStartError } from '@fw/admin';
import { FwDefinitionError } from '@fw/core';
import { createDemoApp, type DemoApp } from './app.js';
import { seedWanted } from './seed.js';

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}

let demo: DemoApp;
try {
  demo = await createDemoApp({
    ...(process.env.FW_DB_URL ? { dbUrl: process.env.FW_DB_URL } : {}),
    ...(process.env.FW_ADMIN_PASSWORD ? { adminPassword: process.env.FW_ADMIN_PASSWORD } : {}),
    // Sample data on first start, so every page shows something; FW_DEMO_SEED=0 skips it.
    seed: seedWanted(process.env.FW_DEMO_SEED),
  });
} catch (error) {
  // A database that cannot be opened, or a bad setting, is the operator's to fix: say what and
  // where in one line (no password, no stack trace). Anything else is a bug and keeps its stack.
  if (error instanceof FwStartError || error instanceof FwDefinitionError) console.error(error.message);
  else console.error(error);
  process.exit(1);
}
if (demo.generatedAdminPassword) {
  console.log(`Created the administrator account "admin" with the password: ${demo.generatedAdminPassword}`);
  console.log('It is shown only this once; set FW_ADMIN_PASSWORD to choose it yourself on a new database.');
}
if (demo.seeded?.seeded) {
  console.log(
    `Wrote sample data: ${Object.entries(demo.seeded.counts)
      .map(([model, n]) => `${n} ${model}`)
      .join(', ')} (FW_DEMO_SEED=0 skips it on a new database).`,
  );
}
const host = process.env.HOST || '127.0.0.1';
const server = demo.app.listen(port, host, () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  console.log(`Fw demo listening on http://${host.includes(':') ? `[${host}]` : host}:${actual}/`);
});
// A port another program holds (a second `npm start`) is the operator's to fix: one line, no stack.
server.once('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') console.error(`Port ${port} on ${host} is in use (is the demo already running?). Set PORT to another port, e.g. PORT=3001 npm start.`);
  else if (error.code === 'EACCES') console.error(`Port ${port} on ${host} may not be opened by this user. Set PORT to a port above 1023.`);
  else console.error(error);
  void demo.close().finally(() => process.exit(1));
});

// Stopping: no new connection; the live streams are told the server is going (demo.close ends
// them), and a connection still open a second later (a download) is cut, so the process ends at once.
async function shutdown(): Promise<void> {
  server.close();
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), 1000);
  cut.unref();
  await demo.close();
  server.closeIdleConnections();
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
