// The transfer routes of fwData: export (CSV, XLSX), import (CSV, XLSX, or either as a multipart
// file) and the import template. Thin Koa glue over DataService; the formats live in ./transfer/.
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError } from '@fw/core';
import { fwRoute, readMultipart, readRawBody, readTextBody } from '@fw/http';
import type { DataService } from '../service.js';
import type { Actor } from '../service-types.js';
import type { TransferFormat } from '../transfer/transfers.js';
import { importMode } from '../transfer/transfer-import.js';
import { XLSX_TYPE, looksLikeZip } from '../transfer/xlsx.js';

/** What {@link transferRoutes} need from fwData. */
export interface TransferRouteDeps {
  service: DataService;
  /** The signed-in actor of a request (401 when none). */
  actor(ctx: Context): Promise<Actor>;
  /** Largest import body (CSV text, workbook or multipart), bytes. */
  importBodyLimit: number;
}

const CSV_TYPE = /^(text\/csv|application\/csv|text\/plain)\s*(;|$)/i;
const XLSX_CONTENT_TYPE = /^application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet\s*(;|$)/i;
const MULTIPART_TYPE = /^multipart\/form-data\s*(;|$)/i;
const ACCEPTED = `CSV (Content-Type: text/csv), an .xlsx workbook (Content-Type: ${XLSX_TYPE}) or multipart/form-data with a file field "file"`;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
// The compound-document signature of the old binary .xls format.
const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0]);

/** A query parameter given at most once. */
function queryValue(ctx: Context, name: string): string | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new FwError('BAD_REQUEST', `${name} must be given once`);
  return raw;
}

function formatOf(ctx: Context, fallback: TransferFormat): TransferFormat {
  const format = queryValue(ctx, 'format') ?? fallback;
  if (format !== 'csv' && format !== 'xlsx') throw new FwError('BAD_REQUEST', 'format must be csv or xlsx', { details: [{ path: 'format', type: 'oneOf', message: 'must be csv or xlsx' }] });
  return format;
}

/**
 * The header convention of every export and template, said in a response header: column titles
 * (a field's name where its title would not lead back to it), choices as their labels.
 */
export const TRANSFER_HEADER = 'titles; values=labels';

function download(ctx: Context, name: string, format: TransferFormat): void {
  ctx.set('Fw-Transfer-Header', TRANSFER_HEADER);
  ctx.type = format === 'xlsx' ? XLSX_TYPE : 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}.${format}"`);
  ctx.set('Cache-Control', 'no-store');
  // A download link carries `_token`: a page opened from the file must not receive it as Referer.
  ctx.set('Referrer-Policy', 'no-referrer');
}

/** What an uploaded import file is, from its bytes first and its name second. */
function sniff(bytes: Buffer, name: string): 'xlsx' | 'csv' {
  if (looksLikeZip(bytes)) return 'xlsx';
  if (bytes.subarray(0, 4).equals(OLE) || /\.xls$/i.test(name)) throw new FwError('UNSUPPORTED_MEDIA_TYPE', 'Old .xls workbooks are not read: save the file as .xlsx or CSV');
  if (/\.xlsx$/i.test(name)) return 'xlsx'; // not a zip: the reader answers 400
  return 'csv';
}

function csvText(bytes: Buffer): string {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new FwError('BAD_REQUEST', 'The CSV file is not valid UTF-8');
  }
  if (text.trim() === '') throw new FwError('BAD_REQUEST', 'The file is empty');
  return text;
}

/**
 * Adds `GET /data/export/:fw?format=csv|xlsx`, `POST /data/import/:fw?mode=add|update|upsert` and
 * `GET /data/import-template/:fw?format=xlsx|csv` to the data router.
 */
export function transferRoutes(router: Router, deps: TransferRouteDeps): void {
  const { service, actor, importBodyLimit } = deps;
  const param = (ctx: Context): string => (ctx.params as Record<string, string>).fw ?? '';

  router.get('/data/export/:fw', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    const parse = (name: string): unknown => {
      const raw = queryValue(ctx, name);
      if (raw === undefined) return undefined;
      if (name === 'sort' && !raw.trim().startsWith('[')) return raw;
      try {
        return JSON.parse(raw);
      } catch {
        throw new FwError('BAD_REQUEST', `${name} must be JSON`);
      }
    };
    const format = formatOf(ctx, 'csv');
    if (format === 'xlsx') {
      const body = await service.exportXlsx(param(ctx), who, parse('conditions'), parse('sort'));
      download(ctx, param(ctx), 'xlsx');
      ctx.body = body;
      return;
    }
    const lines = service.exportCsv(param(ctx), who, parse('conditions'), parse('sort'));
    // Pull the first line before answering, so a refused export is still a clean error response.
    const first = await lines.next();
    download(ctx, param(ctx), 'csv');
    // A byte-order mark, so spreadsheet programs read the UTF-8 correctly; then stream the rest.
    ctx.body = Readable.from(
      (async function* () {
        if (first.done) return;
        yield `\ufeff${first.value}`;
        yield* lines;
      })(),
    );
  }));

  router.post('/data/import/:fw', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    // Mode and power first: someone who may not import sends no bytes to the memory or the disk.
    const mode = await Promise.resolve()
      .then(async () => {
        const chosen = importMode(queryValue(ctx, 'mode'));
        await service.requireImport(service.model(param(ctx)), who, chosen);
        return chosen;
      })
      .catch((error: unknown) => {
        ctx.req.resume();
        throw error;
      });
    const type = ctx.get('content-type');
    if (XLSX_CONTENT_TYPE.test(type)) {
      ctx.body = await service.importXlsx(param(ctx), who, await readRawBody(ctx, { limit: importBodyLimit }), mode);
      return;
    }
    if (MULTIPART_TYPE.test(type)) {
      const body = await readMultipart(ctx, { limit: importBodyLimit, maxFiles: 1, maxFields: 10 });
      try {
        const file = body.files.find((f) => f.field === 'file');
        if (!file) throw new FwError('BAD_REQUEST', 'The form has no file field "file"', { details: [{ path: 'file', type: 'required', message: 'a file is required' }] });
        const bytes = await readFile(file.path);
        if (bytes.length === 0) throw new FwError('BAD_REQUEST', 'The file is empty', { details: [{ path: 'file', type: 'required', message: 'the file is empty' }] });
        ctx.body = sniff(bytes, file.name) === 'xlsx' ? await service.importXlsx(param(ctx), who, bytes, mode) : await service.importCsv(param(ctx), who, csvText(bytes), mode);
      } finally {
        await body.cleanup();
      }
      return;
    }
    const text = await readTextBody(ctx, { limit: importBodyLimit, type: CSV_TYPE, typeName: ACCEPTED });
    ctx.body = await service.importCsv(param(ctx), who, text, mode);
  }));

  router.get('/data/import-template/:fw', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    const format = formatOf(ctx, 'xlsx');
    const body = await service.importTemplate(param(ctx), who, format);
    download(ctx, `${param(ctx)}-template`, format);
    ctx.body = typeof body === 'string' ? `\ufeff${body}` : body;
  }));
}
