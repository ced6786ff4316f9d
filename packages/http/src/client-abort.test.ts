import { get as httpGet, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import Koa from 'koa';
import { fwRoute } from './errors.js';

/** A server whose one route streams `body()`; the errors the app emits are collected. */
async function serve(body: () => Readable): Promise<{ server: Server; port: number; errors: unknown[] }> {
  const errors: unknown[] = [];
  const koa = new Koa();
  koa.on('error', (error) => errors.push(error));
  koa.use(
    fwRoute((ctx) => {
      ctx.type = 'application/octet-stream';
      ctx.body = body();
    }),
  );
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, port: (server.address() as { port: number }).port, errors };
}

/** Endless chunks, slowly. */
function endless(): Readable {
  return new Readable({
    read() {
      setTimeout(() => this.push(Buffer.alloc(64 * 1024, 1)), 2);
    },
  });
}

describe('fwRoute: a client that leaves is not an app error', () => {
  it('emits nothing when the client goes away in the middle of a streamed answer', async () => {
    const { server, port, errors } = await serve(endless);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = httpGet({ host: '127.0.0.1', port, path: '/' }, (res) => res.once('data', () => (req.destroy(), resolve())));
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors.map(String)).to.deep.equal([]);
    } finally {
      server.close();
    }
  });

  it('still reports a body stream that fails on its own', async () => {
    const { server, port, errors } = await serve(() => {
      let sent = false;
      return new Readable({
        read() {
          if (sent) return void this.destroy(new Error('the storage read failed'));
          sent = true;
          this.push(Buffer.alloc(1024, 1));
        },
      });
    });
    try {
      await new Promise<void>((resolve) => {
        const req = httpGet({ host: '127.0.0.1', port, path: '/' }, (res) => {
          res.on('data', () => undefined);
          res.on('error', () => resolve());
          res.on('close', () => resolve());
        });
        req.on('error', () => resolve());
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Koa may report it twice (the pipeline and the response); it is reported, and nothing else is.
      expect([...new Set(errors.map(String))]).to.deep.equal(['Error: the storage read failed']);
    } finally {
      server.close();
    }
  });
});
