// The bound on what one user may hold in pending uploads (uploaded, not yet attached to a row by
// a save): without it one account could keep about a gigabyte on the disk for a day (issue 19 §5).
import { FwDefinitionError, FwError, type FieldDefinition } from '@fw/core';
import type { PendingUsage } from '@fw/store';
import { dataError } from '../error-codes.js';

/** The per-user bound on pending uploads (the `uploadQuota` option of `fwData`). */
export interface UploadQuota {
  /** Most pending files one user may hold; one more is a 429 `UPLOAD_QUOTA_FILES`. @default 20 */
  maxFiles: number;
  /** Most bytes of pending files one user may hold; more is a 413 `UPLOAD_QUOTA_BYTES`. @default 209715200 (200 MiB) */
  maxBytes: number;
}

/** The defaults of {@link UploadQuota}: 20 files, 200 MiB. */
export const DEFAULT_UPLOAD_QUOTA: Readonly<UploadQuota> = Object.freeze({ maxFiles: 20, maxBytes: 200 * 1024 * 1024 });

/** How much room a user has left for pending uploads, with the quota and what they hold. */
export interface UploadRoom {
  /** Files the user may still upload before saving a row. */
  files: number;
  /** Bytes the user may still upload before saving a row. */
  bytes: number;
  /** The quota the room is measured against. */
  quota: UploadQuota;
  /** The user's pending uploads now. */
  usage: PendingUsage;
}

/**
 * Checks the `uploadQuota` option and fills in its defaults (a new object; the caller's is never written).
 * @throws {FwDefinitionError} for anything but an object of positive whole numbers `maxFiles` and `maxBytes`.
 */
export function resolveUploadQuota(value: Partial<UploadQuota> | undefined): UploadQuota {
  if (value === undefined) return { ...DEFAULT_UPLOAD_QUOTA };
  if (typeof value !== 'object' || value === null) throw new FwDefinitionError('fwData.uploadQuota', 'must be an object { maxFiles?, maxBytes? }');
  for (const key of Object.keys(value)) {
    if (key !== 'maxFiles' && key !== 'maxBytes') throw new FwDefinitionError(`fwData.uploadQuota.${key}`, 'unknown option (known: maxFiles, maxBytes)');
  }
  const out = { ...DEFAULT_UPLOAD_QUOTA, ...value };
  for (const key of ['maxFiles', 'maxBytes'] as const) {
    const n = out[key];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw new FwDefinitionError(`fwData.uploadQuota.${key}`, `must be a positive whole number, got ${String(n)}`);
  }
  return out;
}

/** The room left under `quota` for a user holding `usage`. */
export function uploadRoom(quota: UploadQuota, usage: PendingUsage): UploadRoom {
  return { files: Math.max(0, quota.maxFiles - usage.files), bytes: Math.max(0, quota.maxBytes - usage.bytes), quota, usage };
}

const HOW_TO_FREE = 'save the rows they belong to, or wait: unsaved uploads expire after 24 hours';

function mib(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

/** The 429 of an upload that would take the user past `quota.maxFiles` pending files. */
export function filesQuotaError(quota: UploadQuota, usage: PendingUsage, field: FieldDefinition): FwError {
  return dataError(
    'UPLOAD_QUOTA_FILES',
    `You have ${usage.files} uploaded file${usage.files === 1 ? '' : 's'} not yet saved in a row, and at most ${quota.maxFiles} are kept: ${HOW_TO_FREE}`,
    [{ path: field.name, type: 'uploadQuotaFiles', message: `at most ${quota.maxFiles} unsaved uploads` }],
  );
}

/** The 413 of an upload that would take the user past `quota.maxBytes` of pending files. */
export function bytesQuotaError(quota: UploadQuota, usage: PendingUsage, field: FieldDefinition): FwError {
  return dataError(
    'UPLOAD_QUOTA_BYTES',
    `Your uploaded files not yet saved in a row hold ${mib(usage.bytes)}, and at most ${mib(quota.maxBytes)} (${quota.maxBytes} bytes) are kept; this upload does not fit: ${HOW_TO_FREE}`,
    [{ path: field.name, type: 'uploadQuotaBytes', message: `at most ${quota.maxBytes} bytes of unsaved uploads` }],
  );
}
