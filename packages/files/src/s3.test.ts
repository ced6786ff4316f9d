import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileStorageConformance } from '@fw/files/conformance';
import { newFileKey, s3FileStorage, type S3FileStorageOptions } from '@fw/files';
import { freePort } from '@fw/test-utils';

// s3rver (a local S3-compatible server, from npm) ships no types.
interface S3rverServer {
  run(): Promise<unknown>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

const BUCKET = 'fw-files';
let server: S3rverServer | undefined;
let dir = '';
let options: S3FileStorageOptions;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-s3rver-'));
  const port = await freePort();
  server = new S3rver({ port, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  await server.run();
  // s3rver's fixed credentials; it checks the signature of every request.
  options = { endpoint: `http://127.0.0.1:${port}`, bucket: BUCKET, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true };
});

after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

fileStorageConformance('s3FileStorage (s3rver)', () => s3FileStorage(options));

describe('s3FileStorage(options)', () => {
  it('checks its options at start-up', () => {
    assert.throws(() => s3FileStorage({ ...options, bucket: '' }), /bucket must be a non-empty string/);
    assert.throws(() => s3FileStorage({ ...options, secretAccessKey: undefined as never }), /secretAccessKey/);
    assert.throws(() => s3FileStorage({ ...options, endpoint: 'ftp://example.com' }), /http\(s\) URL/);
  });

  it('signs its requests (AWS Signature V4): an unknown access key is refused by the server', async () => {
    const storage = s3FileStorage({ ...options, accessKeyId: 'NOT-A-KEY' });
    await assert.rejects(storage.put(newFileKey(), Buffer.from('x'), { type: 'text/plain', size: 1 }), /S3 put failed: 403 InvalidAccessKeyId/);
  });

  // s3rver reads the V4 Authorization header but does not recompute the signature: check what is sent.
  it('sends a V4 signature over the host, date and payload marker, with the length of a streamed body', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const capture = createServer((req, res) => {
      seen.push(req.headers);
      req.resume().on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = capture.address() as AddressInfo;
      const storage = s3FileStorage({ ...options, endpoint: `http://127.0.0.1:${port}`, region: 'eu-west-3' });
      await storage.put(newFileKey(), Readable.from([Buffer.from('hello '), Buffer.from('world')]), { type: 'text/plain', size: 11 });
      const headers = seen[0]!;
      assert.match(
        String(headers.authorization),
        /^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/eu-west-3\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
      );
      assert.equal(headers['x-amz-content-sha256'], 'UNSIGNED-PAYLOAD');
      assert.equal(headers['content-length'], '11');
    } finally {
      await new Promise<void>((resolve) => capture.close(() => resolve()));
    }
  });

  it('a bucket that does not exist is an error, not a silent success', async () => {
    const storage = s3FileStorage({ ...options, bucket: 'no-such-bucket' });
    await assert.rejects(storage.put(newFileKey(), Buffer.from('x'), { type: 'text/plain', size: 1 }), /S3 put failed: 404 NoSuchBucket/);
  });
});
