// The attachment routes of fwData: upload (multipart, to pending files) and download (only to
// those who may see the row). Thin Koa glue over DataService; the checks live in ./attachments.ts.
import contentDisposition from 'content-disposition';
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, IMAGE_TYPES } from '@fw/core';
import { MultipartTooLargeError, fwRoute, readMultipart } from '@fw/http';
import type { DataService } from '../service.js';
import type { Actor } from '../service-types.js';
import { bytesQuotaError, filesQuotaError } from '../files/upload-quota.js';

/** What {@link attachmentRoutes} need from fwData. */
export interface AttachmentRouteDeps {
  service: DataService;
  /** The signed-in actor of a request (401 when none). */
  actor(ctx: Context): Promise<Actor>;
}

// Room for the multipart framing (boundaries, part headers) around the files themselves.
const FRAMING_BYTES = 64 * 1024;
const INLINE_TYPES = new Set<string>(IMAGE_TYPES);

/**
 * `POST /data/upload/:fw/:field`: multipart/form-data with one or more files in the form field
 * `file` → `{ files: [{ id, name, size, type }] }`, pending until a save of a row names them.
 * `GET /data/file/:fw/:field/:id/:fileId`: the bytes of a file the visible row holds; 404 for
 * anything else.
 */
export function attachmentRoutes(router: Router, deps: AttachmentRouteDeps): void {
  const { service } = deps;
  const param = (ctx: Context, name: string): string => (ctx.params as Record<string, string>)[name] ?? '';

  router.post('/data/upload/:fw/:field', fwRoute(async (ctx) => {
    const who = await deps.actor(ctx);
    const [name, fieldName] = [param(ctx, 'fw'), param(ctx, 'field')];
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
      ctx.body = await service.uploadFiles(name, who, fieldName, body.files);
    } finally {
      await body.cleanup();
    }
  }));

  router.get('/data/file/:fw/:field/:id/:fileId', fwRoute(async (ctx) => {
    const who = await deps.actor(ctx);
    const file = await service.openFile(param(ctx, 'fw'), who, param(ctx, 'field'), param(ctx, 'id'), param(ctx, 'fileId'));
    // Only a sniffed image may be shown in the page (a thumbnail); everything else is a download.
    const inline = ctx.query.inline === '1' && INLINE_TYPES.has(file.type);
    ctx.set('Content-Disposition', contentDisposition(file.name, { type: inline ? 'inline' : 'attachment' }));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "sandbox; default-src 'none'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = file.type;
    ctx.length = file.size;
    ctx.body = file.body;
  }));
}
