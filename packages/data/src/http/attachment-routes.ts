// The attachment routes of fwData: upload (multipart, to pending files) and download (only to
// those who may see the row), each declared with its contract (issue 22 §5). Thin glue over
// DataService; the checks live in ../files/attachments.ts. Neither has a gate: the upload checks
// power, field and quota before it reads a byte (uploadTarget), the download answers 404 alike for
// everything it does not serve.
import contentDisposition from 'content-disposition';
import { FwError, IMAGE_TYPES } from '@fw/core';
import { MultipartTooLargeError, readMultipart } from '@fw/http';
import { bytesQuotaError, filesQuotaError } from '../files/upload-quota.js';
import { dataRoute } from './data-route.js';
import { attachmentFields, ref } from './field-schemas.js';

// Room for the multipart framing (boundaries, part headers) around the files themselves.
const FRAMING_BYTES = 64 * 1024;
const INLINE_TYPES = new Set<string>(IMAGE_TYPES);

/**
 * `POST /data/upload/{fw}/{field}`: multipart/form-data with one or more files in the form field
 * `file` → `{ files: [{ id, name, size, type }] }`, pending until a save of a row names them.
 */
export const uploadRoute = dataRoute({
  method: 'post',
  path: '/data/upload/{fw}/{field}',
  operationId: 'upload',
  summary: 'Upload files for an attachment field; the answer goes into the row to save',
  security: 'token',
  perModel: { describedFor: (model) => attachmentFields(model).length > 0 && (model.power.add || model.power.edit) },
  params: [{ name: 'field', in: 'path', schema: (model) => ({ enum: attachmentFields(model) }) }],
  content: {
    required: true,
    types: { 'multipart/form-data': { type: 'object', properties: { file: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' } } }, required: ['file'] } },
  },
  answers: {
    200: {
      description: 'The stored files, pending until a row saves them',
      json: { type: 'object', properties: { files: { type: 'array', items: ref('FwAttachment') } }, required: ['files'], additionalProperties: false },
    },
  },
  errors: [400, 401, 403, 413, 415, 429],
  handle: async (ctx, { deps: { service }, who, params }) => {
    const [name, fieldName] = [params.fw ?? '', params.field ?? ''];
    // Power, the field and the user's quota first: someone who may not upload, or has no room
    // left, sends no bytes to the disk.
    const target = await service.uploadTarget(name, who, fieldName).catch((error: unknown) => {
      ctx.req.resume();
      throw error;
    });
    const { room } = target;
    if (room.files === 0 || room.bytes === 0) {
      ctx.req.resume();
      throw room.files === 0 ? filesQuotaError(room.quota, room.usage, target.field) : bytesQuotaError(room.quota, room.usage, target.field);
    }
    // The body may hold no more than the quota has room for: a file that passes it while it
    // arrives is cut off there and its temporary file removed by the reader.
    const fieldBytes = target.maxSize * target.maxFiles;
    const quotaBound = room.bytes < fieldBytes;
    const limit = Math.min(fieldBytes, room.bytes) + FRAMING_BYTES;
    let body;
    try {
      body = await readMultipart(ctx, { limit, maxFiles: target.maxFiles, maxFileSize: target.maxSize, maxFields: 10 });
    } catch (error) {
      // Past the room left, not past the field's own limits (one file's limit is the body's when
      // the room is smaller than it): the quota's 413, which says how to make room.
      const overRoom = error instanceof MultipartTooLargeError && (error.limit === 'body' || (error.limit === 'file' && target.maxSize >= limit));
      if (quotaBound && overRoom) throw bytesQuotaError(room.quota, room.usage, target.field);
      // The reader's size and count refusals concern this field: say so, as the service's own do.
      if (error instanceof FwError && !error.details) {
        throw new FwError(error.code, error.message, { status: error.status, cause: error, details: [{ path: fieldName, type: 'upload', message: error.message }] });
      }
      throw error;
    }
    try {
      return await service.uploadFiles(name, who, fieldName, body.files);
    } finally {
      await body.cleanup();
    }
  },
});

/** `GET /data/file/{fw}/{field}/{rowId}/{fileId}`: the bytes of a file the visible row holds; 404 for anything else. */
export const fileRoute = dataRoute({
  method: 'get',
  path: '/data/file/{fw}/{field}/{rowId}/{fileId}',
  operationId: 'file',
  summary: 'The bytes of one stored file of a row the caller may see',
  security: 'token',
  perModel: { describedFor: (model) => attachmentFields(model).length > 0 && (model.power.viewDetails || model.power.query || model.power.edit) },
  params: [
    { name: 'field', in: 'path', schema: (model) => ({ enum: attachmentFields(model) }) },
    { name: 'rowId', in: 'path', schema: { type: 'integer', minimum: 1 } },
    { name: 'fileId', in: 'path', schema: { type: 'string' } },
    { name: 'inline', in: 'query', required: false, schema: { enum: ['1'] }, description: 'Images only: Content-Disposition inline' },
  ],
  answers: {
    200: {
      description: 'The file, with its sniffed Content-Type, Content-Disposition and Content-Security-Policy: sandbox',
      headers: { 'Content-Disposition': { schema: { type: 'string' } } },
      content: { '*/*': {} },
    },
  },
  errors: [401, 404],
  handle: async (ctx, { deps: { service }, who, params }) => {
    const file = await service.openFile(params.fw ?? '', who, params.field ?? '', params.rowId ?? '', params.fileId ?? '');
    // Only a sniffed image may be shown in the page (a thumbnail); everything else is a download.
    const inline = ctx.query.inline === '1' && INLINE_TYPES.has(file.type);
    ctx.set('Content-Disposition', contentDisposition(file.name, { type: inline ? 'inline' : 'attachment' }));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "sandbox; default-src 'none'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = file.type;
    ctx.length = file.size;
    return file.body;
  },
});

/** The attachment routes, in the order they are mounted. */
export const attachmentRoutes = [uploadRoute, fileRoute];
