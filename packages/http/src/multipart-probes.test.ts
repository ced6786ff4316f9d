// Red-team probes of readMultipart (issue 13). Each failed before its fix.
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwError } from '@fw/core';
import { readMultipart } from './multipart.js';

const BOUNDARY = 'probe-boundary';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const BODY = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`);

function app(): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    try {
      const body = await readMultipart(ctx);
      await body.cleanup();
      ctx.body = { files: body.files.map((f) => f.name) };
    } catch (error) {
      if (!(error instanceof FwError)) throw error;
      ctx.status = error.status;
      ctx.body = error.toBody();
    }
  });
  return koa;
}

describe('readMultipart probes: content encodings', () => {
  it('reads an identity-encoded body', async () => {
    const res = await request(app().callback()).post('/').set('Content-Type', TYPE).set('Content-Encoding', 'identity').send(BODY).expect(200);
    expect(res.body).to.deep.equal({ files: ['a.txt'] });
  });

  it('answers 415 for a compressed body, as the JSON and text readers do (was 400 "could not be read" for gzip)', async () => {
    const res = await request(app().callback()).post('/').set('Content-Type', TYPE).set('Content-Encoding', 'gzip').send(gzipSync(BODY)).expect(415);
    expect(res.body.error).to.include({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'A gzip-encoded request body is not accepted' });
  });

  it('does not read a body declared in another encoding as if it were plain (was 200 for Content-Encoding: br)', async () => {
    const res = await request(app().callback()).post('/').set('Content-Type', TYPE).set('Content-Encoding', 'br').send(BODY).expect(415);
    expect(res.body.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('readMultipart probes: file order', () => {
  it('lists the files in the order of their parts, even when a later small file is written first', async () => {
    const koa = new Koa();
    koa.use(async (ctx) => {
      const body = await readMultipart(ctx, { limit: 64 * 1024 * 1024, maxFiles: 10 });
      await body.cleanup();
      ctx.body = { names: body.files.map((f) => f.name) };
    });
    const agent = request(koa.callback());
    const big = Buffer.alloc(8 * 1024 * 1024, 7);
    for (let i = 0; i < 5; i += 1) {
      const res = await agent
        .post('/')
        .attach('file', big, { filename: '1-big.bin', contentType: 'application/octet-stream' })
        .attach('file', Buffer.from('x'), { filename: '2-small.txt', contentType: 'text/plain' })
        .attach('other', big, { filename: '3-big.bin', contentType: 'application/octet-stream' })
        .attach('file', Buffer.from('y'), { filename: '4-small.txt', contentType: 'text/plain' })
        .expect(200);
      expect(res.body.names).to.deep.equal(['1-big.bin', '2-small.txt', '3-big.bin', '4-small.txt']);
    }
  });
});
