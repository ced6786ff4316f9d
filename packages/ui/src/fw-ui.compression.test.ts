// fwUi sends the build's precompressed files (issue 20 §10): brotli when the browser accepts it,
// else gzip, else the file itself, always with the original's type and `Vary: Accept-Encoding`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { precompressDir } from '../build/precompress.js';
import { fwUi, type FwUiOptions } from './index.js';

const HTML = 'text/html,application/xhtml+xml';
const SCRIPT = `${'console.log("a line of the app that compresses well");\n'.repeat(200)}`;
const STYLE = `${'.fw-x{margin:0;padding:0;color:var(--ant-color-text)}\n'.repeat(200)}`;
const PAGE = `<!doctype html><html><head><title>x</title><script type="module" src="./assets/index-Ab12Cd34.js"></script></head><body>${'<!-- padding -->'.repeat(100)}</body></html>`;

/** A fake build, precompressed as `npm run build:app` does it, with a secret beside it; served on a port. */
async function setup(options: Omit<FwUiOptions, 'dist'> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'fw-ui-br-'));
  const dist = join(root, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), PAGE);
  writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(join(dist, 'assets', 'index-Ef56Gh78.css'), STYLE);
  writeFileSync(join(dist, 'assets', 'tiny-Aa11Bb22.js'), 'export {};\n');
  mkdirSync(join(dist, '.vite'));
  writeFileSync(join(dist, '.vite', 'manifest.json'), '{"secret": "the build manifest"}');
  writeFileSync(join(root, 'secret.txt'), 'secret '.repeat(400));
  writeFileSync(join(root, 'secret.txt.br'), 'not for you');
  precompressDir(dist);
  const app = new Koa();
  app.silent = true;
  app.use(fwUi({ ...options, dist }));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  /** One request, its body as the bytes that travelled (nothing unpacked). */
  const send = (path: string, headers: Record<string, string>, method = 'GET') =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      // The path goes as it is: no client-side normalisation of dot segments or escapes.
      const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    send,
    dist,
    cleanup: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

describe('fwUi: compressed responses', () => {
  it('precompresses the text files of a build, leaving out those too small to gain', async () => {
    const s = await setup();
    try {
      const br = brotliDecompressSync(readFileSync(join(s.dist, 'assets', 'index-Ab12Cd34.js.br'))).toString();
      expect(br).to.equal(SCRIPT);
      expect(gunzipSync(readFileSync(join(s.dist, 'assets', 'index-Ef56Gh78.css.gz'))).toString()).to.equal(STYLE);
      expect(() => statSync(join(s.dist, 'assets', 'tiny-Aa11Bb22.js.br'))).to.throw();
    } finally {
      await s.cleanup();
    }
  });

  it('sends brotli when accepted, with the type of the original, immutable caching and Vary', async () => {
    const s = await setup();
    try {
      const res = await s.send('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip, deflate, br' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-encoding']).to.equal('br');
      expect(res.headers['content-type']).to.match(/^(text|application)\/javascript/);
      expect(res.headers.vary).to.match(/Accept-Encoding/i);
      expect(res.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      const body = res.body;
      expect(Number(res.headers['content-length']))
        .to.equal(body.length)
        .and.to.be.lessThan(SCRIPT.length / 5);
      expect(brotliDecompressSync(body).toString()).to.equal(SCRIPT);
    } finally {
      await s.cleanup();
    }
  });

  it('sends gzip when only gzip is accepted, and the file itself otherwise', async () => {
    const s = await setup();
    try {
      const gz = await s.send('/assets/index-Ef56Gh78.css', { 'accept-encoding': 'gzip' });
      expect(gz.status).to.equal(200);
      expect(gz.headers['content-encoding']).to.equal('gzip');
      expect(gz.headers['content-type']).to.match(/^text\/css/);
      expect(gz.headers.vary).to.match(/Accept-Encoding/i);
      expect(gunzipSync(gz.body).toString()).to.equal(STYLE);

      for (const accept of ['identity', 'br;q=0, gzip;q=0', 'deflate']) {
        const plain = await s.send('/assets/index-Ef56Gh78.css', { 'accept-encoding': accept });
        expect(plain.status).to.equal(200);
        expect(plain.headers['content-encoding'], accept).to.equal(undefined);
        expect(plain.headers['content-type']).to.match(/^text\/css/);
        expect(plain.headers.vary).to.match(/Accept-Encoding/i);
        expect(plain.body.toString()).to.equal(STYLE);
      }
      // A file too small to have been compressed is sent as it is, whatever is accepted.
      const tiny = await s.send('/assets/tiny-Aa11Bb22.js', { 'accept-encoding': 'br, gzip' });
      expect(tiny.status).to.equal(200);
      expect(tiny.headers['content-encoding']).to.equal(undefined);
      expect(tiny.body.toString()).to.equal('export {};\n');
    } finally {
      await s.cleanup();
    }
  });

  it('answers HEAD with the headers of the variant and no body', async () => {
    const s = await setup();
    try {
      const res = await s.send('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'br' }, 'HEAD');
      expect(res.status).to.equal(200);
      expect(res.headers['content-encoding']).to.equal('br');
      expect(Number(res.headers['content-length'])).to.be.greaterThan(0).and.lessThan(SCRIPT.length);
      expect(res.body.length).to.equal(0);
    } finally {
      await s.cleanup();
    }
  });

  it('opens no file for a HEAD request: a file gone right after the answer is no uncaught error', async () => {
    // koa-send answers HEAD with a read stream nobody reads; its open failing after the files
    // went (a deploy swapping dist/) used to be an uncaught exception, which ends the process.
    for (let i = 0; i < 80; i++) {
      const s = await setup();
      const res = await s.send('/assets/index-Ab12Cd34.js', { 'accept-encoding': i % 2 ? 'br' : 'identity' }, 'HEAD');
      expect(res.status).to.equal(200);
      await s.cleanup();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it('answers a range request with the whole encoded file, never a slice of the wrong bytes', async () => {
    const s = await setup();
    try {
      const res = await s.send('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'br', range: 'bytes=0-9' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-range']).to.equal(undefined);
      expect(brotliDecompressSync(res.body).toString()).to.equal(SCRIPT);
    } finally {
      await s.cleanup();
    }
  });

  it('compresses the page too (brotli, gzip or none as accepted), for the root and for deep links', async () => {
    const s = await setup({ path: '/admin' });
    try {
      const br = await s.send('/admin/', { accept: HTML, 'accept-encoding': 'gzip, br' });
      expect(br.status).to.equal(200);
      expect(br.headers['content-encoding']).to.equal('br');
      expect(br.headers['content-type']).to.match(/^text\/html/);
      expect(br.headers.vary).to.match(/Accept-Encoding/i);
      expect(br.headers['content-security-policy']).to.match(/default-src 'self'/);
      const html = brotliDecompressSync(br.body).toString();
      expect(html).to.contain('<base href="/admin/">');

      const gz = await s.send('/admin/model/Book', { accept: HTML, 'accept-encoding': 'gzip' });

      expect(gz.status).to.equal(200);
      expect(gz.headers['content-encoding']).to.equal('gzip');
      expect(gunzipSync(gz.body).toString()).to.equal(html);

      const plain = await s.send('/admin/index.html', { accept: HTML, 'accept-encoding': 'identity' });

      expect(plain.status).to.equal(200);
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(plain.body.toString()).to.equal(html);

      const head = await s.send('/admin/', { accept: HTML, 'accept-encoding': 'br' }, 'HEAD');

      expect(head.status).to.equal(200);
      expect(head.headers['content-encoding']).to.equal('br');
    } finally {
      await s.cleanup();
    }
  });

  it('never sends a .br or .gz file as a file of its own, nor one outside the build', async () => {
    const s = await setup({ path: '/admin' });
    try {
      for (const path of [
        '/admin/assets/index-Ab12Cd34.js.br',
        '/admin/assets/index-Ab12Cd34.js.gz',
        '/admin/assets/INDEX-Ab12Cd34.js.BR',
        '/admin/../secret.txt',
        '/admin/%2e%2e/secret.txt',
        '/admin/assets/..%2f..%2fsecret.txt',
        '/admin/..%2fsecret.txt.br',
        '/admin/%2e%2e%2fsecret.txt',
        // Vite's manifest (read by the budget test) is no file of the UI.
        '/admin/.vite/manifest.json',
      ]) {
        const res = await s.send(path, { 'accept-encoding': 'br, gzip' });
        expect(res.status, path).to.equal(404);
        expect(res.body.toString(), path).not.to.contain('secret');
        expect(res.body.toString(), path).not.to.contain('not for you');
      }
      // A deep link that merely ends in .gz is still a page of the UI.
      const page = await s.send('/admin/model/Archive.gz', { accept: HTML, 'accept-encoding': 'identity' });
      expect(page.status).to.equal(200);
      expect(page.body.toString()).to.contain('<base href="/admin/">');
    } finally {
      await s.cleanup();
    }
  });
});
