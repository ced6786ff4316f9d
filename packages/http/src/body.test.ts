import { request as httpRequest, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { bodyParser } from '@koa/bodyparser';
import { expect } from 'chai';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import request from 'supertest';
import { fwErrorHandler, readJsonBody, readRawBody, readTextBody } from './index.js';

const CSV = /^text\/csv\s*(?:;|$)/i;

/** POST /json answers `{ body }` as readJsonBody read it; POST /text answers `{ text }`; Fw error bodies otherwise. */
function app(before: Middleware[] = [], limits = { json: 1000, text: 1000 }): Koa {
  const koa = new Koa();
  koa.silent = true;
  koa.use(fwErrorHandler());
  for (const m of before) koa.use(m);
  koa.use(async (ctx) => {
    if (ctx.path === '/json') {
      const body = await readJsonBody(ctx, { limit: limits.json });
      ctx.body = { body, ownKeys: body !== null && typeof body === 'object' ? Object.keys(body) : [] };
    } else if (ctx.path === '/raw') {
      ctx.body = { hex: (await readRawBody(ctx, { limit: limits.text })).toString('hex') };
    } else {
      ctx.body = { text: await readTextBody(ctx, { limit: limits.text, type: CSV, typeName: 'CSV (Content-Type: text/csv)' }) };
    }
  });
  return koa;
}

/** Streams `chunks` with no Content-Length, as a client sending a body of unknown size does. */
async function postChunked(server: Server, path: string, type: string, chunks: Buffer[]): Promise<{ status: number; body: { error?: { code: string } } }> {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: address.port, method: 'POST', path, headers: { 'content-type': type } }, (res) => {
      const data: Buffer[] = [];
      res.on('data', (d: Buffer) => data.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(data).toString('utf8') || '{}') }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    let i = 0;
    const write = () => (i >= chunks.length ? req.end() : req.write(chunks[i++], () => setImmediate(write)));
    write();
  });
}

describe('readJsonBody / readTextBody: bodies through koa-body', () => {
  it('parses JSON of any JSON type, keeping a __proto__ key as an own key (the route refuses it as a field)', async () => {
    const agent = request(app().callback());
    const obj = await agent.post('/json').set('Content-Type', 'application/json').send('{"a":1,"__proto__":{"isAdmin":true}}').expect(200);
    expect(obj.body.ownKeys).to.deep.equal(['a', '__proto__']);
    expect(({} as { isAdmin?: boolean }).isAdmin).to.equal(undefined);
    expect((await agent.post('/json').set('Content-Type', 'application/vnd.api+json').send('[1,2]').expect(200)).body.body).to.deep.equal([1, 2]);
    expect((await agent.post('/json').set('Content-Type', 'application/json; charset=utf-8').send('"text"').expect(200)).body.body).to.equal('text');
  });

  it('answers the same errors as before: 415 type, 413 size, 400 INVALID_JSON / BAD_REQUEST', async () => {
    const agent = request(app().callback());
    const cases: [string, string, Buffer | string, number, string][] = [
      ['text type', 'text/plain', '{"a":1}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['form type', 'application/x-www-form-urlencoded', 'a=1', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['too large', 'application/json', JSON.stringify({ a: 'x'.repeat(2000) }), 413, 'PAYLOAD_TOO_LARGE'],
      ['broken', 'application/json', '{"a":', 400, 'INVALID_JSON'],
      ['not UTF-8', 'application/json', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400, 'INVALID_JSON'],
      ['byte-order mark', 'application/json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]), 400, 'INVALID_JSON'],
      ['whitespace only', 'application/json', '   \n', 400, 'BAD_REQUEST'],
      ['gzip', 'application/json', gzipSync('{"a":1}'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ];
    for (const [what, type, body, status, code] of cases) {
      // .serialize: the bytes as they are (supertest would otherwise serialise a Buffer sent as JSON)
      const req = agent
        .post('/json')
        .set('Content-Type', type)
        .serialize((b: unknown) => b as string);
      if (what === 'gzip') req.set('Content-Encoding', 'gzip');
      const res = await req.send(body);
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(status);
      expect(res.body.error.code, what).to.equal(code);
    }
    const empty = await agent.post('/json').set('Content-Type', 'application/json').set('Content-Length', '0');
    expect(empty.status).to.equal(400);
    expect(empty.body.error.code).to.equal('BAD_REQUEST');
  });

  it('answers 413 for a chunked body that grows past the limit, JSON or text', async () => {
    const server = app().listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const big = Array.from({ length: 20 }, () => Buffer.alloc(1024, 0x20));
      const json = await postChunked(server, '/json', 'application/json', [Buffer.from('{"a":"'), ...big, Buffer.from('"}')]);
      expect(json.status).to.equal(413);
      expect(json.body.error?.code).to.equal('PAYLOAD_TOO_LARGE');
      const text = await postChunked(server, '/text', 'text/csv', [Buffer.from('a,b\n'), ...big]);
      expect(text.status).to.equal(413);
    } finally {
      server.close();
    }
  });

  it('reads text strictly as UTF-8 and drops a leading byte-order mark', async () => {
    const agent = request(app().callback());
    expect((await agent.post('/text').set('Content-Type', 'text/csv').send('a,b\n1,Été').expect(200)).body.text).to.equal('a,b\n1,Été');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Title\nDune')]);
    expect((await agent.post('/text').set('Content-Type', 'text/csv').send(bom).expect(200)).body.text).to.equal('Title\nDune');
    for (const [what, type, body, status] of [
      ['not UTF-8', 'text/csv', Buffer.from([0x61, 0x2c, 0xff, 0x0a]), 400],
      ['empty', 'text/csv', ' \n', 400],
      ['wrong type', 'application/json', '{}', 415],
      ['too large', 'text/csv', 'x'.repeat(1001), 413],
    ] as const) {
      const res = await agent.post('/text').set('Content-Type', type).send(body);
      expect(res.status, what).to.equal(status);
      expect(res.body.error.code, what).to.equal(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST');
    }
  });

  it('behind koa-body mounted by the host: uses what it parsed (JSON and text), within Fw’s text limit', async () => {
    const host = koaBody({ text: true, textLimit: '10mb' }) as unknown as Middleware;
    const agent = request(app([host]).callback());
    expect((await agent.post('/json').set('Content-Type', 'application/json').send({ a: 1 }).expect(200)).body.body).to.deep.equal({ a: 1 });
    expect((await agent.post('/text').set('Content-Type', 'text/csv').send('Title\nDune').expect(200)).body.text).to.equal('Title\nDune');
    const big = await agent.post('/text').set('Content-Type', 'text/csv').send('x'.repeat(5000));
    expect(big.status).to.equal(413);
    expect(big.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('behind @koa/bodyparser mounted by the host: JSON as it parsed it, CSV (which it leaves alone) read by Fw', async () => {
    const agent = request(app([bodyParser() as unknown as Middleware]).callback());
    expect((await agent.post('/json').set('Content-Type', 'application/json').send({ a: 1 }).expect(200)).body.body).to.deep.equal({ a: 1 });
    expect((await agent.post('/text').set('Content-Type', 'text/csv').send('Title\nDune').expect(200)).body.text).to.equal('Title\nDune');
    const bad = await agent
      .post('/text')
      .set('Content-Type', 'text/csv')
      .send(Buffer.from([0x61, 0xff]));
    expect(bad.status).to.equal(400);
  });

  it('readRawBody gives the bytes exactly as sent (binary, a byte-order mark, bad UTF-8), within the limit', async () => {
    const agent = request(app().callback());
    const bytes = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xef, 0xbb, 0xbf, 0xff, 0x00, 0xfe]);
    const ok = await agent.post('/raw').set('Content-Type', 'application/octet-stream').send(bytes).expect(200);
    expect(ok.body.hex).to.equal(bytes.toString('hex'));
    expect((await agent.post('/raw').set('Content-Type', 'application/octet-stream').send(Buffer.alloc(1001))).status).to.equal(413);
    expect((await agent.post('/raw').set('Content-Type', 'application/octet-stream').set('Content-Encoding', 'gzip').send(gzipSync(bytes))).status).to.equal(415);
    expect((await agent.post('/raw').set('Content-Type', 'application/octet-stream').set('Content-Length', '0')).body.error.code).to.equal('BAD_REQUEST');
  });
});
