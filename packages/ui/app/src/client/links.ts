// What the UI opens or saves rather than reads as JSON: links that must stay hrefs (print, export:
// the token rides as `_token`, which only those routes accept), the captcha image, and the bytes
// of stored files and import templates (read with the token header, saved through a blob link).
import { apiUrl, fetchBlob, tokenUrl } from './api';
import { routes } from './routes';

/** The print page of one row, as a link. */
export const printUrl = (fw: string, id: number): string => tokenUrl(routes.printPath(fw, id));

/** The export download of a model's rows (the table's sort and search in `params`). */
export const exportUrl = (fw: string, params: Record<string, string>): string => tokenUrl(routes.exportPath(fw), params);

/** The captcha image for the sign-in form's `mark`. */
export const captchaUrl = (mark: string): string => apiUrl(routes.captchaPath(mark));

/** The bytes of a stored file; `inline` for a preview. */
export const fetchFile = (fw: string, field: string, rowId: unknown, fileId: string, inline = false): Promise<Blob> => fetchBlob(routes.file(fw, field, rowId, fileId, inline));

/** The import template of a model. */
export const fetchImportTemplate = (fw: string, format: 'xlsx' | 'csv'): Promise<Blob> => fetchBlob(routes.importTemplate(fw, format));
