import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AwsClient } from 'aws4fetch';
import { assertFileKey, type FileMeta, type FileStorage, type StoredFile } from './storage.js';

/** Options of {@link s3FileStorage}. */
export interface S3FileStorageOptions {
  /**
   * The S3 endpoint, scheme included. @default `https://s3.<region>.amazonaws.com`
   * @example 'http://127.0.0.1:9000' (MinIO, s3rver, …)
   */
  endpoint?: string;
  /** The bucket (it must exist). */
  bucket: string;
  /** The region requests are signed for. @default 'us-east-1' */
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Optional session token of temporary credentials. */
  sessionToken?: string;
  /**
   * Address objects as `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint host>/<key>`;
   * most S3-compatible servers need it. @default false
   */
  forcePathStyle?: boolean;
}

/**
 * A {@link FileStorage} on an S3-compatible bucket, over `fetch` with AWS Signature V4
 * (aws4fetch). Bodies are streamed (the payload is sent as `UNSIGNED-PAYLOAD`, with its length).
 *
 * @throws {TypeError} for a missing bucket or credentials, or an endpoint that is not an http(s) URL
 * @example
 * const files = s3FileStorage({ bucket: 'fw-files', region: 'eu-west-1', accessKeyId, secretAccessKey });
 */
export function s3FileStorage(options: S3FileStorageOptions): FileStorage {
  for (const name of ['bucket', 'accessKeyId', 'secretAccessKey'] as const) {
    if (typeof options?.[name] !== 'string' || options[name] === '') throw new TypeError(`s3FileStorage: ${name} must be a non-empty string`);
  }
  const region = options.region ?? 'us-east-1';
  const endpoint = new URL(options.endpoint ?? `https://s3.${region}.amazonaws.com`);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new TypeError('s3FileStorage: endpoint must be an http(s) URL');
  const base = endpoint.toString().replace(/\/+$/, '');
  const bucketBase = options.forcePathStyle ? `${base}/${encodeURIComponent(options.bucket)}` : `${endpoint.protocol}//${options.bucket}.${endpoint.host}`;
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
    service: 's3',
    region,
    retries: 0,
  });
  const urlOf = (key: string): string => {
    assertFileKey(key);
    return `${bucketBase}/${key}`;
  };
  const failure = async (what: string, response: Response): Promise<Error> => {
    const text = await response.text().catch(() => '');
    const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
    return new Error(`S3 ${what} failed: ${response.status}${code ? ` ${code}` : ''}`);
  };
  return {
    async put(key: string, body: Readable | Buffer, meta: FileMeta): Promise<void> {
      const url = urlOf(key);
      const payload = Buffer.isBuffer(body) ? body : (Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>);
      const size = Buffer.isBuffer(body) ? body.length : meta.size;
      const response = await client.fetch(url, {
        method: 'PUT',
        body: payload,
        headers: { 'Content-Type': meta.type || 'application/octet-stream', 'Content-Length': String(size) },
        // Node's fetch needs it for a streamed request body.
        ...({ duplex: 'half' } as object),
      });
      if (!response.ok) throw await failure('put', response);
      await response.body?.cancel();
    },
    async get(key: string): Promise<StoredFile | undefined> {
      const response = await client.fetch(urlOf(key), { method: 'GET' });
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok || !response.body) throw await failure('get', response);
      return { body: Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>), size: Number(response.headers.get('content-length') ?? 0) };
    },
    async delete(key: string): Promise<void> {
      const response = await client.fetch(urlOf(key), { method: 'DELETE' });
      if (!response.ok && response.status !== 404) throw await failure('delete', response);
      await response.body?.cancel();
    },
  };
}
