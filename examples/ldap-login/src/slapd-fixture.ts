// A throwaway OpenLDAP server for the tests: Debian's slapd on a free loopback port, with its
// own config and database in a temporary folder, seeded from an LDIF.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian puts the daemon. */
export const SLAPD = '/usr/sbin/slapd';
export const SLAPADD = '/usr/sbin/slapadd';

/** A running slapd. */
export interface Slapd {
  url: string;
  suffix: string;
  stop(): Promise<void>;
}

/** Whether something accepts a TCP connection on 127.0.0.1:`port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => (socket.destroy(), resolve(false)));
  });
}

/** Waits up to `ms` for the port to accept connections; whether it does. */
async function listening(port: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (await accepts(port)) return true;
  }
  return false;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The people of the test directory: `uid=<account>,ou=people,dc=fw,dc=test`. */
export function peopleLdif(people: Array<{ uid: string; password: string; name?: string }>): string {
  const entries = [
    'dn: dc=fw,dc=test\nobjectClass: dcObject\nobjectClass: organization\no: fw\ndc: fw',
    'dn: ou=people,dc=fw,dc=test\nobjectClass: organizationalUnit\nou: people',
    ...people.map((p) => `dn: uid=${p.uid},ou=people,dc=fw,dc=test\nobjectClass: inetOrgPerson\nuid: ${p.uid}\ncn: ${p.name ?? p.uid}\nsn: ${p.uid}\nuserPassword: ${p.password}`),
  ];
  return `${entries.join('\n\n')}\n`;
}

/**
 * Starts slapd seeded with `ldif`; suffix `dc=fw,dc=test`, anonymous search allowed, passwords
 * readable by nobody. `port` defaults to a free one; pass a stopped directory's port to bring it back.
 */
export async function startSlapd(ldif: string, port?: number): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-slapd-'));
  mkdirSync(join(dir, 'db'));
  port ??= await freePort();
  const conf = join(dir, 'slapd.conf');
  writeFileSync(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${join(dir, 'slapd.pid')}`,
      'database mdb',
      'maxsize 10485760',
      'suffix "dc=fw,dc=test"',
      'rootdn "cn=admin,dc=fw,dc=test"',
      'rootpw not-used-by-the-tests',
      `directory ${join(dir, 'db')}`,
      'access to attrs=userPassword by self read by anonymous auth by * none',
      'access to * by * read',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'seed.ldif'), ldif);
  const url = `ldap://127.0.0.1:${port}`;
  try {
    await run(SLAPADD, ['-f', conf, '-l', join(dir, 'seed.ldif')]);
    // Started again on the port of a directory just stopped, slapd can find the port still held
    // and exit: it is ready only once the port accepts connections, and is started again if not.
    for (let attempt = 0; ; attempt += 1) {
      await run(SLAPD, ['-f', conf, '-h', `${url}/`]);
      for (let i = 0; i < 50 && !existsSync(join(dir, 'slapd.pid')); i += 1) await new Promise((r) => setTimeout(r, 100));
      if ((await listening(port, 10_000)) || attempt >= 2) break;
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    suffix: 'dc=fw,dc=test',
    async stop() {
      const pidFile = join(dir, 'slapd.pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
        for (let i = 0; i < 50; i += 1) {
          try {
            process.kill(pid, 0);
            await new Promise((r) => setTimeout(r, 50));
          } catch {
            break;
          }
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
