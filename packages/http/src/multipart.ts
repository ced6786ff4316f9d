import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Part } from 'formidable';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { FwError } from '@fw/core';

/** One file of a multipart body, written to a temporary file. */
export interface MultipartFile {
  /** The form field that carried it. */
  field: string;
  /** The file name the client sent, as sent (it may hold `../` or anything else: keep it as a name only, never as a path). */
  name: string;
  /** The content type the client declared for the part (`application/octet-stream` when none): not checked against the bytes. */
  type: string;
  /** Its size in bytes. */
  size: number;
  /** The temporary file holding its bytes (a server-made name in a server-made folder). */
  path: string;
}

/** What {@link readMultipart} read. */
export interface MultipartBody {
  /** The text fields, one value each. */
  fields: Record<string, string>;
  /** The files, in the order of their parts in the body. */
  files: MultipartFile[];
  /** Removes the temporary files (call it in a `finally`); safe to call more than once. */
  cleanup(): Promise<void>;
}

/** Limits of {@link readMultipart}. */
export interface MultipartOptions {
  /** Largest whole body, in bytes: a larger one is a 413 `PAYLOAD_TOO_LARGE`. @default 5 MiB */
  limit?: number;
  /** Most files in one body: more is a 400 `BAD_REQUEST`. @default 10 */
  maxFiles?: number;
  /** Largest single file, in bytes: a larger one is a 413 `PAYLOAD_TOO_LARGE`. @default `limit` */
  maxFileSize?: number;
  /** Most text fields in one body: more is a 400 `BAD_REQUEST`. @default 50 */
  maxFields?: number;
  /** Largest total of the text fields' values, in bytes: more is a 413 `PAYLOAD_TOO_LARGE`. @default 64 KiB */
  maxFieldsSize?: number;
}

/**
 * The 413 `PAYLOAD_TOO_LARGE` of {@link readMultipart}, saying which limit was passed: `body` (the
 * whole body or the files together, `limit`), `file` (one file, `maxFileSize`) or `fields`
 * (`maxFieldsSize`). A caller whose `limit` is a quota of its own tells the two apart by it.
 */
export class MultipartTooLargeError extends FwError {
  /** The limit the body passed. */
  readonly limit: 'body' | 'file' | 'fields';
  constructor(limit: 'body' | 'file' | 'fields', message: string, cause?: unknown) {
    super('PAYLOAD_TOO_LARGE', message, cause === undefined ? {} : { cause });
    this.limit = limit;
  }
}

/** The default limits of {@link readMultipart}. */
export const MULTIPART_DEFAULTS = { limit: 5 * 1024 * 1024, maxFiles: 10, maxFields: 50, maxFieldsSize: 64 * 1024 } as const;

const MULTIPART_TYPE = /^multipart\/form-data\s*(?:;|$)/i;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Buffer): boolean {
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

// formidable's error codes (formidable/src/FormidableError.js) that are about sizes (413) or counts (400).
const TOO_LARGE_CODES = new Set([1006 /* maxFieldsSize */, 1009 /* maxTotalFileSize */, 1016 /* maxFileSize */]);
const TOO_MANY_CODES = new Set([1007 /* maxFields */, 1015 /* maxFiles */]);

interface ParsedFile {
  filepath: string;
  originalFilename?: string | null;
  mimetype?: string | null;
  size: number;
}

/**
 * Reads a `multipart/form-data` request body through koa-body (formidable): text fields, and
 * files written to temporary files in a folder of their own. The temporary files are removed when
 * reading fails, and by `cleanup()` — call it in a `finally` once the files are stored.
 *
 * A body the host's own parser already read (koa-body with `multipart: true` mounted before Fw)
 * is taken from `ctx.request.files` / `ctx.request.body`, checked against the same limits, and its
 * files are removed by `cleanup()` as well.
 * @throws {FwError} 415 `UNSUPPORTED_MEDIA_TYPE` when the body is not multipart/form-data;
 * 413 `PAYLOAD_TOO_LARGE` over `limit`, `maxFileSize` or `maxFieldsSize`; 400 `BAD_REQUEST` for
 * more than `maxFiles` files or `maxFields` fields, a field sent twice, or a broken body.
 */
export async function readMultipart(ctx: Context, options: MultipartOptions = {}): Promise<MultipartBody> {
  const limit = options.limit ?? MULTIPART_DEFAULTS.limit;
  const limits = {
    limit,
    maxFiles: options.maxFiles ?? MULTIPART_DEFAULTS.maxFiles,
    maxFileSize: Math.min(options.maxFileSize ?? limit, limit),
    maxFields: options.maxFields ?? MULTIPART_DEFAULTS.maxFields,
    maxFieldsSize: Math.min(options.maxFieldsSize ?? MULTIPART_DEFAULTS.maxFieldsSize, limit),
  };
  if (!MULTIPART_TYPE.test(ctx.get('content-type'))) {
    if (ctx.req.readable) ctx.req.resume();
    throw new FwError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be multipart/form-data');
  }
  const request = ctx.request as { body?: unknown; files?: unknown };
  if (request.files !== undefined && request.files !== null) return fromHostParser(request.body, request.files, limits);
  if (ctx.req.readableEnded) throw new FwError('BAD_REQUEST', 'The request body was already read by another parser');
  // formidable reads the bytes as they come: a compressed body is refused, as the other readers do.
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    ctx.req.resume();
    throw new FwError('UNSUPPORTED_MEDIA_TYPE', `A ${encoding}-encoded request body is not accepted`);
  }

  const declared = Number(ctx.get('content-length') || NaN);
  if (declared === 0) throw new FwError('BAD_REQUEST', 'A multipart request body is required');
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume(); // drain without storing, so the connection can still answer
    throw new MultipartTooLargeError('body', `The request body is larger than ${limit} bytes`);
  }

  const dir = await mkdtemp(join(tmpdir(), 'fw-upload-'));
  // formidable decodes text fields leniently (a bad byte becomes U+FFFD): their bytes are checked here.
  const notUtf8: string[] = [];
  const checkField = (part: Part, handlePart: (part: Part) => void) => {
    if (!part.mimetype) {
      const chunks: Buffer[] = [];
      part.on('data', (chunk: Buffer) => chunks.push(chunk));
      part.on('end', () => {
        if (!isUtf8(Buffer.concat(chunks))) notUtf8.push(part.name ?? '');
      });
    }
    handlePart(part);
  };
  // formidable lists a file once it is written, which is not the order of the parts: note that order.
  const partOrder = new Map<string, number>();
  const noteOrder = (_name: string, file: { filepath: string }) => void partOrder.set(file.filepath, partOrder.size);
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const parser = koaBody({
      multipart: true,
      json: false,
      text: false,
      urlencoded: false,
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
      formidable: {
        uploadDir: dir,
        keepExtensions: false, // the temporary name is formidable's own random id, never the client's
        maxFiles: limits.maxFiles,
        maxFileSize: limits.maxFileSize,
        maxTotalFileSize: limit,
        maxFields: limits.maxFields,
        maxFieldsSize: limits.maxFieldsSize,
        allowEmptyFiles: true,
        minFileSize: 0,
        onPart: checkField,
        onFileBegin: noteOrder,
      },
    });
    await Promise.race([parser(ctx, async () => {}), bodyLimit(ctx, limit)]);
    if (notUtf8.length > 0) throw new FwError('BAD_REQUEST', `The field ${JSON.stringify(notUtf8[0])} is not valid UTF-8`);
    const parsed = ctx.request as { body?: unknown; files?: unknown };
    const body = collect(parsed.body, parsed.files);
    body.files.sort((a, b) => (partOrder.get(a.path) ?? 0) - (partOrder.get(b.path) ?? 0));
    // A body the parser took for multipart but was not (a method it does not parse) leaves no files object.
    if (parsed.files === undefined) throw new FwError('BAD_REQUEST', 'The multipart body could not be read');
    return { ...body, cleanup };
  } catch (error) {
    await cleanup();
    throw toMultipartError(error, limits);
  }
}

/** Rejects with a 413 once more than `limit` bytes of the body have arrived (formidable has no limit on the whole body). */
function bodyLimit(ctx: Context, limit: number): Promise<never> {
  return new Promise((_resolve, reject) => {
    const req = ctx.req;
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        reject(new MultipartTooLargeError('body', `The request body is larger than ${limit} bytes`));
      }
    };
    const stop = () => {
      req.off('data', onData);
      req.off('end', stop);
      req.off('close', stop);
    };
    req.on('data', onData);
    req.once('end', stop);
    req.once('close', stop);
  });
}

type Limits = Required<MultipartOptions>;

function toMultipartError(error: unknown, limits: Limits): FwError {
  if (error instanceof FwError) return error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'number' && TOO_LARGE_CODES.has(code)) {
    const what =
      code === 1006
        ? `the fields are larger than ${limits.maxFieldsSize} bytes`
        : code === 1016
          ? `a file is larger than ${limits.maxFileSize} bytes`
          : `the files are larger than ${limits.limit} bytes`;
    return new MultipartTooLargeError(code === 1006 ? 'fields' : code === 1016 ? 'file' : 'body', `The request body is too large: ${what}`, error);
  }
  if (typeof code === 'number' && TOO_MANY_CODES.has(code)) {
    const what = code === 1015 ? `more than ${limits.maxFiles} files` : `more than ${limits.maxFields} fields`;
    return new FwError('BAD_REQUEST', `The multipart body has ${what}`, { cause: error });
  }
  return new FwError('BAD_REQUEST', 'The multipart body could not be read', { cause: error });
}

/** Fields and files as koa-body leaves them (a value or an array per name) → one value per field, a flat file list. */
function collect(rawFields: unknown, rawFiles: unknown): { fields: Record<string, string>; files: MultipartFile[] } {
  const fields: Record<string, string> = {};
  if (rawFields !== null && typeof rawFields === 'object') {
    for (const [name, value] of Object.entries(rawFields)) {
      if (Array.isArray(value)) throw new FwError('BAD_REQUEST', `The field ${JSON.stringify(name)} is sent more than once`);
      if (typeof value !== 'string') throw new FwError('BAD_REQUEST', 'The multipart body could not be read');
      Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  const files: MultipartFile[] = [];
  if (rawFiles !== null && typeof rawFiles === 'object') {
    for (const [field, value] of Object.entries(rawFiles)) {
      for (const file of (Array.isArray(value) ? value : [value]) as ParsedFile[]) {
        files.push({ field, name: file.originalFilename ?? '', type: file.mimetype || 'application/octet-stream', size: file.size, path: file.filepath });
      }
    }
  }
  return { fields, files };
}

/** A body the host's parser already read: same shape, same limits; `cleanup()` removes its files. */
function fromHostParser(rawFields: unknown, rawFiles: unknown, limits: Limits): MultipartBody {
  let body: { fields: Record<string, string>; files: MultipartFile[] };
  const remove = (files: readonly { path: string }[]) => Promise.all(files.map((f) => rm(f.path, { force: true }))).then(() => undefined);
  const all = flatPaths(rawFiles);
  try {
    body = collect(rawFields, rawFiles);
  } catch (error) {
    void remove(all);
    throw error;
  }
  const fail = (error: FwError): never => {
    void remove(body.files);
    throw error;
  };
  if (body.files.length > limits.maxFiles) fail(new FwError('BAD_REQUEST', `The multipart body has more than ${limits.maxFiles} files`));
  if (Object.keys(body.fields).length > limits.maxFields) fail(new FwError('BAD_REQUEST', `The multipart body has more than ${limits.maxFields} fields`));
  if (body.files.some((f) => f.size > limits.maxFileSize))
    fail(new MultipartTooLargeError('file', `The request body is too large: a file is larger than ${limits.maxFileSize} bytes`));
  if (body.files.reduce((sum, f) => sum + f.size, 0) > limits.limit)
    fail(new MultipartTooLargeError('body', `The request body is too large: the files are larger than ${limits.limit} bytes`));
  const fieldsSize = Object.values(body.fields).reduce((sum, v) => sum + Buffer.byteLength(v), 0);
  if (fieldsSize > limits.maxFieldsSize) fail(new MultipartTooLargeError('fields', `The request body is too large: the fields are larger than ${limits.maxFieldsSize} bytes`));
  return { ...body, cleanup: () => remove(body.files) };
}

function flatPaths(rawFiles: unknown): { path: string }[] {
  if (rawFiles === null || typeof rawFiles !== 'object') return [];
  return Object.values(rawFiles)
    .flatMap((v: unknown) => (Array.isArray(v) ? v : [v]) as ParsedFile[])
    .filter((f) => typeof f?.filepath === 'string')
    .map((f) => ({ path: f.filepath }));
}
