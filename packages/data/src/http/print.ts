import { EditType, escapeHtml, type ModelDefinition } from '@fw/core';

// One escaping for every Fw package's HTML; still exported from here for hosts that imported it.
export { escapeHtml };

function display(model: ModelDefinition, field: string, value: unknown): string {
  const def = model.fields[field]!;
  if (value === null || value === undefined) return '';
  if (def.edit.choices) {
    const label = (v: unknown) => def.edit.choices!.find((c) => c.value === v)?.label ?? String(v);
    return Array.isArray(value) ? value.map(label).join(', ') : label(value);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  // Attachments print as their file names (the caller escapes them).
  if (def.edit.type === EditType.ATTACHMENT && Array.isArray(value)) return value.map((f: { name?: unknown }) => String(f?.name ?? '')).join(', ');
  if (Array.isArray(value)) return value.join(', ');
  // Dates read as the admin UI shows them: YYYY-MM-DD; a point in time with its seconds, in UTC.
  if (def.edit.type === EditType.DATETIME) {
    const at = new Date(value instanceof Date ? value : String(value));
    if (!Number.isNaN(at.getTime())) return `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 19)} UTC`;
  }
  return String(value);
}

/** The print page's stylesheet, served at `<prefix>/data/print.css`. */
export const PRINT_CSS = `body{font:14px system-ui,sans-serif;margin:2em}
table{border-collapse:collapse}
th,td{border:1px solid #999;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#eee;white-space:nowrap}
td{overflow-wrap:anywhere}
@media print{.fw-print-actions{display:none}}
`;

/** The print page's script, served at `<prefix>/data/print.js`: the Print button calls `window.print()`. */
export const PRINT_JS = `document.getElementById('fw-print')?.addEventListener('click', () => window.print());
`;

/**
 * A printable HTML page of one row: every shown field with its title; values are escaped. It has
 * no inline script, style or event handler, so it works under `Content-Security-Policy:
 * default-src 'self'`: its stylesheet and script are linked, relative to the page's own path
 * (`…/data/print/<Model>/<id>` → `…/data/print.css` and `…/data/print.js`).
 */
export function printPage(model: ModelDefinition, row: Record<string, unknown>): string {
  const fields = model.fieldNames.filter((name) => {
    const f = model.fields[name]!;
    return !f.capabilities.secret && (f.views.show || f.primaryKey);
  });
  const rows = fields
    .map((name) => `<tr><th>${escapeHtml(model.fields[name]!.views.title)}</th><td>${escapeHtml(display(model, name, row[name]))}</td></tr>`)
    .join('\n');
  const title = escapeHtml(`${model.title} #${String(row[model.primaryKey] ?? '')}`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="../../print.css">
<script src="../../print.js" defer></script>
</head><body><h1>${title}</h1>
<table>
${rows}
</table>
<p class="fw-print-actions"><button type="button" id="fw-print">Print</button></p>
</body></html>
`;
}
