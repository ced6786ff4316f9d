// The transfer routes of fwData: export (CSV, XLSX), import (CSV, XLSX, or either as a multipart
// file) and the import template, each declared with its contract (issue 22 §5). Thin glue over
// DataService; the formats live in ./transfer/. None has a gate: each reads a query parameter
// (format, mode) before the model and the power, and the import's power depends on its mode.
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { FwError } from '@fw/core';
import { readMultipart, readRawBody, readTextBody } from '@fw/http';
import type { TransferFormat } from '../transfer/transfers.js';
import { importMode } from '../transfer/transfer-import.js';
import { XLSX_TYPE, looksLikeZip } from '../transfer/xlsx.js';
import { dataRoute, queryParam } from './data-route.js';

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

const fw = (params: Record<string, string>): string => params.fw ?? '';

/** `GET /data/export/{fw}?format=csv|xlsx&conditions=&sort=`. */
export const exportRoute = dataRoute({
  method: 'get',
  path: '/data/export/{fw}',
  operationId: 'export',
  summary: (model) => `Download the visible ${model.name} rows as CSV or as a workbook`,
  security: 'download',
  perModel: { describedFor: (model) => model.power.export },
  params: [
    queryParam('format', { enum: ['csv', 'xlsx'], default: 'csv' }, 'The file format'),
    queryParam('conditions', { type: 'string' }, 'The table query conditions, as JSON'),
    queryParam('sort', { type: 'string' }, 'field,desc;… or a JSON array of { field, order }'),
  ],
  answers: {
    200: {
      description: 'The file (Content-Disposition: attachment)',
      headers: { 'Content-Disposition': { schema: { type: 'string' } } },
      content: { 'text/csv': { type: 'string' }, [XLSX_TYPE]: {} },
    },
  },
  errors: [400, 401, 403],
  handle: async (ctx, { deps: { service }, who, params }) => {
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
      const body = await service.exportXlsx(fw(params), who, parse('conditions'), parse('sort'));
      download(ctx, fw(params), 'xlsx');
      return body;
    }
    const lines = service.exportCsv(fw(params), who, parse('conditions'), parse('sort'));
    // Pull the first line before answering, so a refused export is still a clean error response.
    const first = await lines.next();
    download(ctx, fw(params), 'csv');
    // A byte-order mark, so spreadsheet programs read the UTF-8 correctly; then stream the rest.
    return Readable.from(
      (async function* () {
        if (first.done) return;
        yield `\ufeff${first.value}`;
        yield* lines;
      })(),
    );
  },
});

const importModes = (power: { add: boolean; edit: boolean }) => [...(power.add ? ['add'] : []), ...(power.edit ? ['update'] : []), 'upsert'];
const count = { type: 'integer', minimum: 0 };

/** `POST /data/import/{fw}?mode=add|update|upsert`: CSV, a workbook, or either as a multipart file. */
export const importRoute = dataRoute({
  method: 'post',
  path: '/data/import/{fw}',
  operationId: 'import',
  summary: 'Add or update the rows of a CSV file or a workbook, all or nothing',
  description:
    'Errors name the row and column of every failing cell in `details[].path`, sorted by row, then column. `mode`: `add` (every row is new), `update` (rows matched by id; an unmatched row is an error), `upsert` (rows with an id update, rows without one are added).',
  security: 'token',
  perModel: { describedFor: (model) => model.power.importable && (model.power.add || model.power.edit) },
  params: [
    {
      name: 'mode',
      in: 'query',
      required: false,
      schema: (model) => ({ enum: importModes(model.power), default: importModes(model.power)[0] }),
      description: 'How rows are written: add, update (by id) or upsert',
    },
  ],
  content: {
    required: true,
    types: {
      'text/csv': { type: 'string' },
      'application/csv': { type: 'string' },
      'text/plain': { type: 'string' },
      [XLSX_TYPE]: {},
      'multipart/form-data': {
        type: 'object',
        properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'A .csv or .xlsx file' } },
        required: ['file'],
      },
    },
  },
  answers: {
    200: {
      description: 'How many rows were written, added and updated, and the batch id of the operate-log rows (one per written row, and the summary row of the file)',
      json: {
        type: 'object',
        properties: { imported: count, added: count, updated: count, batch: { type: 'string', format: 'uuid' } },
        required: ['imported', 'added', 'updated', 'batch'],
        additionalProperties: false,
      },
    },
  },
  errors: [400, 401, 403, 409, 413, 415, 422],
  handle: async (ctx, { deps: { service, importBodyLimit }, who, params }) => {
    const name = fw(params);
    // Mode and power first: someone who may not import sends no bytes to the memory or the disk.
    const mode = await Promise.resolve()
      .then(async () => {
        const chosen = importMode(queryValue(ctx, 'mode'));
        await service.requireImport(service.model(name), who, chosen);
        return chosen;
      })
      .catch((error: unknown) => {
        ctx.req.resume();
        throw error;
      });
    const type = ctx.get('content-type');
    if (XLSX_CONTENT_TYPE.test(type)) return service.importXlsx(name, who, await readRawBody(ctx, { limit: importBodyLimit }), mode);
    if (MULTIPART_TYPE.test(type)) {
      const body = await readMultipart(ctx, { limit: importBodyLimit, maxFiles: 1, maxFields: 10 });
      try {
        const file = body.files.find((f) => f.field === 'file');
        if (!file) throw new FwError('BAD_REQUEST', 'The form has no file field "file"', { details: [{ path: 'file', type: 'required', message: 'a file is required' }] });
        const bytes = await readFile(file.path);
        if (bytes.length === 0) throw new FwError('BAD_REQUEST', 'The file is empty', { details: [{ path: 'file', type: 'required', message: 'the file is empty' }] });
        return sniff(bytes, file.name) === 'xlsx' ? await service.importXlsx(name, who, bytes, mode) : await service.importCsv(name, who, csvText(bytes), mode);
      } finally {
        await body.cleanup();
      }
    }
    const text = await readTextBody(ctx, { limit: importBodyLimit, type: CSV_TYPE, typeName: ACCEPTED });
    return service.importCsv(name, who, text, mode);
  },
});

/** `GET /data/import-template/{fw}?format=xlsx|csv`. */
export const importTemplateRoute = dataRoute({
  method: 'get',
  path: '/data/import-template/{fw}',
  operationId: 'importTemplate',
  summary: 'A file to fill in: the header row and one example row',
  security: 'token',
  perModel: { describedFor: (model) => model.power.importable && (model.power.add || model.power.edit) },
  params: [queryParam('format', { enum: ['xlsx', 'csv'], default: 'xlsx' }, 'The file format')],
  answers: { 200: { description: 'The template (Content-Disposition: attachment)', content: { [XLSX_TYPE]: {}, 'text/csv': { type: 'string' } } } },
  errors: [400, 401, 403],
  handle: async (ctx, { deps: { service }, who, params }) => {
    const format = formatOf(ctx, 'xlsx');
    const body = await service.importTemplate(fw(params), who, format);
    download(ctx, `${fw(params)}-template`, format);
    return typeof body === 'string' ? `\ufeff${body}` : body;
  },
});

/** The transfer routes, in the order they are mounted. */
export const transferRoutes = [exportRoute, importRoute, importTemplateRoute];
