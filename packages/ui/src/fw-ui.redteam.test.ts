// Red-team probes of fwUi's precompressed files (issue 20 §10): the page must never go out as the
// raw build file (without its Content-Security-Policy, its `<base>` and its fw-config), whatever
// spelling of `index.html` the request uses; encoded variants stay unreachable.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { precompressDir } from '../build/precompress.js';
import { fwUi } from './index.js';

const PAGE = `<!doctype html><html><head><title>raw-build-page</title></head><body>${'<!-- padding -->'.repeat(100)}</body></html>`;

async function setup(path: string) {
  const root = mkdtempSync(join(tmpdir(), 'fw-ui-rt-'));
  const dist = join(root, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), PAGE);
  writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), 'console.log("x");\n'.repeat(300));
  precompressDir(dist);
  const app = new Koa();
  app.silent = true;
  app.use(fwUi({ dist, path }));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const send = (p: string, headers: Record<string, string>, method = 'GET') =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: p, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    send,
    cleanup: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const text = (res: { headers: IncomingHttpHeaders; body: Buffer }) =>
  (res.headers['content-encoding'] === 'br' ? brotliDecompressSync(res.body) : res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body) : res.body).toString();

for (const mount of ['/admin', '/']) {
  describe(`fwUi red team: the page under ${mount} is never the raw build file`, () => {
    const base = mount === '/' ? '' : mount;
    for (const spelling of ['/%69ndex.html', '/index%2Ehtml', '//index.html', '/assets/../index.html', '/index.html%00', '/index.html.br', '/index.html.gz', '/%69ndex.html.br']) {
      for (const encoding of ['br', 'gzip', 'identity']) {
        it(`${spelling} with Accept-Encoding ${encoding}`, async () => {
          const s = await setup(mount);
          try {
            for (const method of ['GET', 'HEAD']) {
              const res = await s.send(`${base}${spelling}`, { accept: 'text/html', 'accept-encoding': encoding, range: 'bytes=0-10' }, method);
              // Either not answered at all, or the page as fwUi builds it: with its CSP and base.
              if (res.status === 200) {
                expect(res.headers['content-security-policy'], `${method} ${spelling}`).to.be.a('string').and.contain('frame-ancestors');
                if (method === 'GET') expect(text(res), spelling).to.contain('<base href=');
              } else expect(res.status, `${method} ${spelling}`).to.be.oneOf([301, 400, 404]);
            }
          } finally {
            await s.cleanup();
          }
        });
      }
    }
  });
}

describe('fwUi red team: Accept-Encoding is honoured, q=0 included', () => {
  for (const [accept, expected] of [
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['br;q=0, gzip;q=0, identity', undefined],
    ['BR', 'br'],
    ['gzip, deflate', 'gzip'],
    ['x-gzip', undefined],
    ['compress, deflate', undefined],
  ] as const) {
    it(`${accept} → ${expected ?? 'none'} (asset and page)`, async () => {
      const s = await setup('/admin');
      try {
        for (const path of ['/admin/assets/index-Ab12Cd34.js', '/admin/', '/admin/model/Book']) {
          const res = await s.send(path, { accept: 'text/html', 'accept-encoding': accept });
          expect(res.status, path).to.equal(200);
          expect(res.headers['content-encoding'], `${path} ${accept}`).to.equal(expected);
          expect(String(res.headers.vary), path).to.match(/accept-encoding/i);
          expect(text(res).length, path).to.be.above(0);
        }
      } finally {
        await s.cleanup();
      }
    });
  }
});
