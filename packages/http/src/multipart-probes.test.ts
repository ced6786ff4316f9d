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
