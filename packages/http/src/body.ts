import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { FwError } from '@fw/core';

/** Options of {@link readJsonBody}. */
export interface ReadJsonOptions {
  /** Largest body accepted, in bytes; a larger one is a 413 and is not read to the end. @default 1 MiB */
  limit?: number;
}

/** Options of {@link readTextBody}. */
export interface ReadTextOptions {
  /** Largest body accepted, in bytes; a larger one is a 413 and is not read to the end. */
  limit: number;
  /** The content types accepted (tested against the whole `Content-Type` header). */
  type: RegExp;
  /** How the accepted types are named in the 415 message, e.g. `CSV (Content-Type: text/csv)`. */
  typeName: string;
}

/** The default limit of {@link readJsonBody}: 1 MiB. */
export const JSON_BODY_LIMIT = 1024 * 1024;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const ALL_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'HEAD'] as never;
// Fatal: bytes that are not UTF-8 would otherwise become U+FFFD and be stored as text nobody sent
// (issue 10 §4 refused lone surrogates for the same reason).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads and parses a JSON request body through koa-body, bounded by `limit`. A body already
 * parsed by a body parser the host mounted is used as it is (its own limits then apply).
 * @throws {FwError} 415 for a non-JSON content type or a compressed body, 413 beyond the limit,
 * 400 `INVALID_JSON` for broken JSON or bytes that are not UTF-8, 400 `BAD_REQUEST` for no body.
 */
export async function readJsonBody(ctx: Context, options: ReadJsonOptions = {}): Promise<unknown> {
  const request = ctx.request as { body?: unknown };
  if (request.body !== undefined) return request.body;
  const limit = options.limit ?? JSON_BODY_LIMIT;
  const type = ctx.get('content-type');
  const declared = Number(ctx.get('content-length') || NaN);
  if (declared === 0 || (!type && !ctx.req.readable)) throw new FwError('BAD_REQUEST', 'A JSON request body is required');
  if (!JSON_TYPE.test(type)) throw refuse(ctx, new FwError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json)'));
  const text = UTF8_TEXT(await readThroughKoaBody(ctx, limit));
  if (text === undefined) throw new FwError('INVALID_JSON', 'The request body is not valid UTF-8');
  if (text.trim() === '') throw new FwError('BAD_REQUEST', 'A JSON request body is required');
  try {
    // JSON.parse, not koa-body's own JSON parser: that one refuses a `__proto__` key outright,
    // where Fw answers it as the unknown field it is (and a byte-order mark stays an error).
    const body: unknown = JSON.parse(text);
    request.body = body;
    return body;
  } catch {
    throw new FwError('INVALID_JSON');
  }
}

/**
 * Reads a text request body of an accepted content type through koa-body, bounded by `limit`
 * bytes. Text the host's own parser already read (koa-body with `text`, `@koa/bodyparser` with
 * `enableTypes: ['text']`) is taken as it is, within the same limit. A leading byte-order mark is
 * dropped.
 * @throws {FwError} 415 for another content type or a compressed body, 413 beyond the limit, 400
 * when empty or not UTF-8.
 */
export async function readTextBody(ctx: Context, options: ReadTextOptions): Promise<string> {
  if (!options.type.test(ctx.get('content-type'))) throw refuse(ctx, new FwError('UNSUPPORTED_MEDIA_TYPE', `The request body must be ${options.typeName}`));
  const request = ctx.request as { body?: unknown };
  let text: string;
  if (typeof request.body === 'string' && !ctx.req.readable) {
    text = request.body;
    if (Buffer.byteLength(text) > options.limit) throw new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${options.limit} bytes`);
  } else {
    const bytes = await readThroughKoaBody(ctx, options.limit);
    const decoded = UTF8_TEXT(bytes);
    if (decoded === undefined) throw new FwError('BAD_REQUEST', 'The request body is not valid UTF-8');
    text = decoded;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') throw new FwError('BAD_REQUEST', 'The request body is empty');
  return text;
}

/**
 * The bytes of a request body of any type (a workbook upload, say), read through koa-body within
 * `limit`. Check the `Content-Type` before calling it.
 * @throws {FwError} 415 for a compressed body, 413 beyond the limit, 400 when empty, unreadable, or
 * already read by a parser the host mounted.
 */
export async function readRawBody(ctx: Context, options: { limit: number }): Promise<Buffer> {
  const bytes = await readThroughKoaBody(ctx, options.limit);
  if (bytes.length === 0) throw new FwError('BAD_REQUEST', 'The request body is empty');
  return bytes;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function UTF8_TEXT(raw: Buffer): string | undefined {
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}

/** Drains what is left of the body (so the connection can still answer) and gives back `error`. */
function refuse(ctx: Context, error: FwError): FwError {
  if (ctx.req.readable) ctx.req.resume();
  return error;
}

/**
 * Lets koa-body (co-body) read the body as text, within `limit`, and returns the bytes as they
 * arrived, so that they can be checked as strict UTF-8 (co-body decodes leniently, turning bad
 * bytes into U+FFFD, and drops a byte-order mark).
 */
async function readThroughKoaBody(ctx: Context, limit: number): Promise<Buffer> {
  const encoding = (ctx.get('content-encoding') || 'identity').toLowerCase();
  if (encoding !== 'identity') throw refuse(ctx, new FwError('UNSUPPORTED_MEDIA_TYPE', `A ${encoding}-encoded request body is not accepted`));
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > limit) throw refuse(ctx, new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`));
  if (ctx.req.readableEnded) throw new FwError('BAD_REQUEST', 'The request body was already read by another parser');
  const chunks: Buffer[] = [];
  const copy = (chunk: Buffer) => chunks.push(chunk);
  ctx.req.on('data', copy);
  const parser = textParser(limit);
  try {
    await parser(ctx, async () => {});
  } catch (error) {
    throw toBodyError(ctx, error, limit);
  } finally {
    ctx.req.off('data', copy);
  }
  return Buffer.concat(chunks);
}

// One koa-body middleware per limit: making one validates its options (about 30 µs), too much per request.
const textParsers = new Map<number, ReturnType<typeof koaBody>>();
function textParser(limit: number): ReturnType<typeof koaBody> {
  let parser = textParsers.get(limit);
  if (!parser) {
    parser = koaBody({
      json: false,
      text: true,
      textLimit: limit,
      textTypes: ['*/*'] /* the caller checked the type */,
      urlencoded: false,
      multipart: false,
      parsedMethods: ALL_METHODS,
    });
    if (textParsers.size < 64) textParsers.set(limit, parser);
  }
  return parser;
}

function toBodyError(ctx: Context, error: unknown, limit: number): FwError {
  const { status, type } = error as { status?: unknown; type?: unknown };
  if (status === 413 || type === 'entity.too.large') {
    if (ctx.req.readable) ctx.req.resume();
    return new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`, { cause: error });
  }
  return new FwError('BAD_REQUEST', 'The request body could not be read', { cause: error });
}
