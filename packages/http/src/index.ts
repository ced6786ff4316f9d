export { readMultipart, MULTIPART_DEFAULTS } from './multipart.js';
export type { MultipartBody, MultipartFile, MultipartOptions } from './multipart.js';
