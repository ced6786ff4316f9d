import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyParser } from '@koa/bodyparser';
import { expect } from 'chai';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import request from 'supertest';
import { FwError } from '@fw/core';
import { readMultipart, type MultipartOptions } from './index.js';

const BOUNDARY = 'fw-test-boundary-7MA4YWxkTrZu0gW';

type Part = { name: string; value: string } | { name: string; filename: string; type?: string; content: Buffer | string };

/** A multipart/form-data body built by hand, so a test can send exactly the bytes it means. */
function multipart(parts: Part[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part) head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from('filename' in part ? part.content : part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

interface Seen {
  fields: Record<string, string>;
  files: { field: string; name: string; type: string; size: number; content: string; inUploadFolder: boolean; existed: boolean }[];
}

/** A Koa app whose POST /upload reads the body with readMultipart and answers what it saw (errors in the Fw body). */
function app(options: MultipartOptions = {}, before: Middleware[] = []): { app: Koa; removed: () => string[] } {
  const koa = new Koa();
  const paths: string[] = [];
  koa.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof FwError)) throw error;
      ctx.status = error.status;
      ctx.body = error.toBody();
    }
  });
  for (const m of before) koa.use(m);
  koa.use(async (ctx) => {
    const body = await readMultipart(ctx, options);
    try {
      const seen: Seen = {
        fields: body.fields,
        files: body.files.map((f) => {
          paths.push(f.path);
          return {
            field: f.field,
            name: f.name,
            type: f.type,
            size: f.size,
            content: readFileSync(f.path, 'utf8'),
            inUploadFolder: f.path.startsWith(tmpdir()) && !f.path.includes(f.name || '\u0000'),
            existed: existsSync(f.path),
          };
        }),
      };
      ctx.body = seen;
    } finally {
      await body.cleanup();
    }
  });
  return { app: koa, removed: () => paths.filter((p) => !existsSync(p)) };
}

/** Sends `chunks` with no Content-Length (chunked), as a client streaming a body of unknown size would. */
async function postChunked(server: Server, chunks: Buffer[], type = TYPE): Promise<{ status: number; body: unknown }> {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: address.port, method: 'POST', path: '/upload', headers: { 'content-type': type } }, (res) => {
      const data: Buffer[] = [];
      res.on('data', (d: Buffer) => data.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(data).toString('utf8') || 'null') }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    let i = 0;
    const write = () => {
      if (i >= chunks.length) return req.end();
      req.write(chunks[i++], () => setImmediate(write));
    };
    write();
  });
}

describe('readMultipart(ctx, limits): multipart bodies through koa-body', () => {
  let tmp: string;
  let savedTmp: string | undefined;
  beforeEach(() => {
    // Each test gets its own temporary folder, so "nothing left behind" is exact.
    savedTmp = process.env.TMPDIR;
    tmp = mkdtempSync(join(tmpdir(), 'fw-http-test-'));
    process.env.TMPDIR = tmp;
  });
  afterEach(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(tmp, { recursive: true, force: true });
  });
  const leftBehind = () => readdirSync(tmp);

  it('reads text fields and files into temporary files that cleanup() removes', async () => {
    const a = app();
    const res = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(
        multipart([
          { name: 'title', value: 'Été' },
          { name: 'file', filename: 'report.pdf', type: 'application/pdf', content: '%PDF-1.4 hello' },
          { name: 'file', filename: 'b.txt', type: 'text/plain', content: 'two' },
        ]),
      );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.fields).to.deep.equal({ title: 'Été' });
    expect(res.body.files).to.deep.equal([
      { field: 'file', name: 'report.pdf', type: 'application/pdf', size: 14, content: '%PDF-1.4 hello', inUploadFolder: true, existed: true },
      { field: 'file', name: 'b.txt', type: 'text/plain', size: 3, content: 'two', inUploadFolder: true, existed: true },
    ]);
    expect(a.removed()).to.have.length(2);
    expect(leftBehind()).to.deep.equal([]);
  });

  it('keeps a ../ file name only as a name: the bytes land in a server-named file inside the upload folder', async () => {
    const a = app();
    const res = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart([{ name: 'file', filename: '../../../etc/passwd', content: 'root:x:0:0' }]));
    expect(res.status).to.equal(200);
    expect(res.body.files[0]).to.include({ name: '../../../etc/passwd', type: 'application/octet-stream', inUploadFolder: true, content: 'root:x:0:0' });
    expect(existsSync(join(tmp, '..', 'etc', 'passwd'))).to.equal(false);
    expect(leftBehind()).to.deep.equal([]);
  });

  it('reads a file name in UTF-8, as browsers send it', async () => {
    const res = await request(app().app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart([{ name: 'file', filename: 'Été 報告.pdf', type: 'application/pdf', content: '%PDF' }]));
    expect(res.status).to.equal(200);
    expect(res.body.files[0].name).to.equal('Été 報告.pdf');
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not multipart/form-data', async () => {
    const a = app();
    for (const [type, body] of [
      ['application/json', '{"a":1}'],
      ['text/csv', 'a,b\n1,2'],
      ['multipart/mixed; boundary=x', '--x--'],
      ['application/x-www-form-urlencoded', 'a=1'],
    ]) {
      const res = await request(a.app.callback()).post('/upload').set('Content-Type', type!).send(body!);
      expect(res.status, type).to.equal(415);
      expect(res.body.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    }
    const none = await request(a.app.callback()).post('/upload');
    expect(none.status).to.equal(415);
    expect(leftBehind()).to.deep.equal([]);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a declared length over the limit, without reading it', async () => {
    const a = app({ limit: 1000 });
    const res = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart([{ name: 'file', filename: 'big.bin', content: Buffer.alloc(5000, 1) }]));
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(leftBehind()).to.deep.equal([]);
  });

  it('answers 413 for a streamed (chunked) body that grows past the limit, and leaves no temporary file', async () => {
    const a = app({ limit: 64 * 1024 });
    const server = a.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const chunks = [head, ...Array.from({ length: 40 }, () => Buffer.alloc(16 * 1024, 7)), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)];
      const res = await postChunked(server, chunks);
      expect(res.status).to.equal(413);
      expect((res.body as { error: { code: string } }).error.code).to.equal('PAYLOAD_TOO_LARGE');
      // the body is not a file or field of any size, only a huge preamble: still bounded
      const preamble = await postChunked(server, [...Array.from({ length: 40 }, () => Buffer.alloc(16 * 1024, 65)), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
      expect(preamble.status).to.equal(413);
    } finally {
      server.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(leftBehind()).to.deep.equal([]);
  });

  it('removes the temporary files when the client goes away in the middle of a file', async () => {
    let settled: (error: unknown) => void = () => {};
    const done = new Promise<unknown>((resolve) => (settled = resolve));
    const koa = new Koa();
    koa.silent = true; // the aborted request's own socket error is expected
    koa.use(async (ctx) => {
      try {
        const body = await readMultipart(ctx);
        await body.cleanup();
        settled(undefined);
      } catch (error) {
        settled(error);
      }
      ctx.body = {};
    });
    const server = koa.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const address = server.address() as { port: number };
      const req = httpRequest({ host: '127.0.0.1', port: address.port, method: 'POST', path: '/upload', headers: { 'content-type': TYPE, 'content-length': '100000' } });
      req.on('error', () => {});
      req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="half.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      req.write(Buffer.alloc(20_000, 3));
      await new Promise((r) => setTimeout(r, 100));
      expect(readdirSync(tmp), 'the upload folder while the file arrives').to.have.length(1);
      req.destroy();
      const error = await done;
      expect(error).to.be.instanceOf(FwError);
      expect((error as FwError).status).to.equal(400);
    } finally {
      server.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(leftBehind()).to.deep.equal([]);
  });

  it('answers 413 for one file over maxFileSize, and removes the files already written', async () => {
    const a = app({ limit: 100_000, maxFileSize: 1000 });
    const res = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(
        multipart([
          { name: 'file', filename: 'small.txt', content: 'ok' },
          { name: 'file', filename: 'big.bin', content: Buffer.alloc(5000, 1) },
        ]),
      );
    expect(res.status).to.equal(413);
    expect(res.body.error).to.include({ code: 'PAYLOAD_TOO_LARGE' });
    expect(res.body.error.message).to.contain('1000');
    await new Promise((r) => setTimeout(r, 20));
    expect(leftBehind()).to.deep.equal([]);
  });

  it('answers 413 for text fields over maxFieldsSize', async () => {
    const res = await request(app({ maxFieldsSize: 100 }).app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart([{ name: 'note', value: 'x'.repeat(500) }]));
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('answers 400 BAD_REQUEST for more files or fields than allowed (many parts)', async () => {
    const files = Array.from({ length: 4 }, (_, i) => ({ name: 'file', filename: `f${i}.txt`, content: `file ${i}` }));
    const tooManyFiles = await request(app({ maxFiles: 3 }).app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart(files));
    expect(tooManyFiles.status).to.equal(400);
    expect(tooManyFiles.body.error.code).to.equal('BAD_REQUEST');
    expect(tooManyFiles.body.error.message).to.contain('more than 3 files');

    const fields = Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    const tooManyFields = await request(app().app.callback()).post('/upload').set('Content-Type', TYPE).send(multipart(fields));
    expect(tooManyFields.status).to.equal(400);
    expect(tooManyFields.body.error.message).to.contain('more than 50 fields');
    await new Promise((r) => setTimeout(r, 20));
    expect(leftBehind()).to.deep.equal([]);
  });

  it('answers 400 BAD_REQUEST for a broken body, a missing boundary, an empty body, a field sent twice or not UTF-8 (never a 500)', async () => {
    const a = app();
    const cases: [string, string, Buffer | string][] = [
      ['truncated', TYPE, multipart([{ name: 'file', filename: 'a.txt', content: 'abc' }]).subarray(0, 90)],
      ['no boundary', 'multipart/form-data', multipart([{ name: 'a', value: '1' }])],
      ['other boundary', TYPE, multipart([{ name: 'a', value: '1' }], 'not-the-declared-one')],
      ['garbage', TYPE, Buffer.from([0, 255, 1, 254, 13, 10, 45, 45])],
      [
        'field twice',
        TYPE,
        multipart([
          { name: 'a', value: '1' },
          { name: 'a', value: '2' },
        ]),
      ],
      [
        'field not UTF-8',
        TYPE,
        Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n`), Buffer.from([0x61, 0xff, 0xfe]), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
      ],
    ];
    for (const [what, type, body] of cases) {
      const res = await request(a.app.callback()).post('/upload').set('Content-Type', type).send(body);
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code, what).to.equal('BAD_REQUEST');
    }
    const empty = await request(a.app.callback()).post('/upload').set('Content-Type', TYPE).set('Content-Length', '0');
    expect(empty.status).to.equal(400);
    await new Promise((r) => setTimeout(r, 20));
    expect(leftBehind()).to.deep.equal([]);
  });

  it('takes the files of koa-body mounted by the host before it, with the same limits, and cleanup() removes them', async () => {
    const hostParser = koaBody({ multipart: true, formidable: { uploadDir: tmpdir() } }) as unknown as Middleware;
    const a = app({ maxFiles: 2, maxFileSize: 100 }, [async (ctx, next) => hostParser(ctx, next)]);
    const ok = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(
        multipart([
          { name: 'title', value: 'T' },
          { name: 'file', filename: '../x.csv', type: 'text/csv', content: 'a,b' },
        ]),
      );
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.fields).to.deep.equal({ title: 'T' });
    expect(ok.body.files).to.deep.equal([{ field: 'file', name: '../x.csv', type: 'text/csv', size: 3, content: 'a,b', inUploadFolder: true, existed: true }]);
    expect(a.removed()).to.have.length(1);

    const big = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart([{ name: 'file', filename: 'big.bin', content: Buffer.alloc(500, 1) }]));
    expect(big.status).to.equal(413);
    const many = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart(Array.from({ length: 3 }, (_, i) => ({ name: 'file', filename: `${i}.txt`, content: 'x' }))));
    expect(many.status).to.equal(400);
    await new Promise((r) => setTimeout(r, 20));
    expect(leftBehind()).to.deep.equal([]);
  });

  it('reads the body itself behind @koa/bodyparser (which leaves multipart alone)', async () => {
    const a = app({}, [bodyParser() as unknown as Middleware]);
    const res = await request(a.app.callback())
      .post('/upload')
      .set('Content-Type', TYPE)
      .send(multipart([{ name: 'file', filename: 'a.txt', content: 'hello' }]));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.files[0]).to.include({ name: 'a.txt', content: 'hello' });
    expect(leftBehind()).to.deep.equal([]);
  });
});
