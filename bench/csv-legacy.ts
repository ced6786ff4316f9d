// The hand-written CSV reader and writer that packages/data used before csv-parse / csv-stringify,
// kept here only so bench/csv.bench.ts can measure the replacement against it.
const dataError = (code: string, message: string) => Object.assign(new Error(message), { code });

// Spreadsheet programs run cells that start with these as formulas: a cell of exported data
// must never become code on the reader's machine (CSV injection). The apostrophe that disarms
// them is added to text that already starts with apostrophes before such a character too, so
// the import can remove exactly one and get the stored text back.
const NEEDS_APOSTROPHE = /^'*[=+\-@\t\r]/;
const ADDED_APOSTROPHE = /^'(?='*[=+\-@\t\r])/;

/** One CSV cell: quoted when needed, formula-looking text neutralised with a leading apostrophe. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = Array.isArray(value) ? JSON.stringify(value) : value instanceof Date ? value.toISOString() : String(value);
  if (typeof value === 'string' && NEEDS_APOSTROPHE.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Reverses {@link csvCell}'s formula protection on an imported cell. */
export function uncsvCell(cell: string): string {
  return cell.replace(ADDED_APOSTROPHE, '');
}

/** One CSV line (CRLF-terminated, as RFC 4180 says). */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Limits of {@link parseCsv}. */
export interface CsvLimits {
  /** Most data rows. */
  maxRows: number;
  /** Most columns. */
  maxColumns: number;
}

/**
 * Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF). The first record is the
 * header. A leading byte-order mark is dropped; blank lines are skipped.
 * @throws {FwError} 400 for an unterminated quote or ragged rows, 413 beyond the limits.
 */
export function parseCsv(text: string, limits: CsvLimits): { header: string[]; rows: string[][] } {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    record.push(cell);
    cell = '';
    if (!(record.length === 1 && record[0] === '')) {
      records.push(record);
      if (records.length > limits.maxRows + 1) throw dataError('TOO_MANY_ROWS', `at most ${limits.maxRows} rows can be imported at once`);
      if (record.length > limits.maxColumns) throw dataError('BAD_QUERY', `at most ${limits.maxColumns} columns`);
    }
    record = [];
  };
  for (; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else quoted = false;
      } else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      record.push(cell);
      cell = '';
    } else if (ch === '\n') endRecord();
    else if (ch === '\r') {
      if (text[i + 1] === '\n') i += 1;
      endRecord();
    } else cell += ch;
  }
  if (quoted) throw dataError('BAD_QUERY', 'the CSV ends inside a quoted field');
  if (cell !== '' || record.length > 0) endRecord();
  const [header, ...rows] = records;
  if (!header) throw dataError('BAD_QUERY', 'the CSV has no header row');
  rows.forEach((row, n) => {
    if (row.length !== header.length) throw dataError('BAD_QUERY', `row ${n + 1} has ${row.length} cells; the header has ${header.length}`);
  });
  return { header: header.map((h) => h.trim()), rows };
}
