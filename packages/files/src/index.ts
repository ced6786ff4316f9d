export { FILE_KEY_RE, assertFileKey, newFileKey } from './storage.js';
export type { FileMeta, FileStorage, StoredFile } from './storage.js';
export { localFileStorage } from './local.js';
export type { LocalFileStorageOptions } from './local.js';
export { s3FileStorage } from './s3.js';
export type { S3FileStorageOptions } from './s3.js';
export { sniffBuffer, sniffFile, typeAccepted } from './sniff.js';
export type { SniffedType } from './sniff.js';
