import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { dataError } from '../error-codes.js';

// Spreadsheet programs run cells that start with these as formulas: a cell of exported data
// must never become code on the reader's machine (CSV injection). The apostrophe that disarms
// them is added to text that already starts with apostrophes before such a character too, so
// the import can remove exactly one and get the stored text back.
const NEEDS_APOSTROPHE = /^'*[=+\-@\t\r]/;
const ADDED_APOSTROPHE = /^'(?='*[=+\-@\t\r])/;

/** True when a text would be read as a formula by a spreadsheet program. */
export function looksLikeFormula(text: string): boolean {
  return /^[=+\-@\t\r]/.test(text);
}

/** The text of one CSV cell before quoting: formula-looking text neutralised with a leading apostrophe. */
export function csvText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = Array.isArray(value) ? JSON.stringify(value) : value instanceof Date ? value.toISOString() : String(value);
  return typeof value === 'string' && NEEDS_APOSTROPHE.test(text) ? `'${text}` : text;
}

/** Reverses {@link csvText}'s formula protection on an imported cell. */
export function uncsvCell(cell: string): string {
  return cell.replace(ADDED_APOSTROPHE, '');
}

/** One CSV cell: quoted when needed, formula-looking text neutralised with a leading apostrophe. */
export function csvCell(value: unknown): string {
  return csvLines([[value]]).slice(0, -2);
}

/**
 * One CSV line (CRLF-terminated, as RFC 4180 says), written by `csv-stringify`. Cells with a
 * comma, quote or line break are quoted, and so are cells with leading or trailing blanks (some
 * readers trim unquoted cells).
 */
export function csvLine(values: readonly unknown[]): string {
  return csvLines([values]);
}

/**
 * Several {@link csvLine}s at once (one `csv-stringify` call: much faster than line by line).
 * csv-stringify quotes a cell holding the record delimiter (CRLF) but not a lone LF or CR, which
 * readers take as line ends too: `quoted_match` quotes those as well.
 */
export function csvLines(rows: ReadonlyArray<readonly unknown[]>): string {
  return stringify(
    rows.map((values) => values.map(csvText)),
    { record_delimiter: '\r\n', quoted_match: /^\s|\s$|[\r\n]/, eof: true },
  );
}

/** Limits of {@link parseCsv}. */
export interface CsvLimits {
  /** Most data rows. */
  maxRows: number;
  /** Most columns. */
  maxColumns: number;
}

/**
 * Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF, LF or CR) with `csv-parse`. The first
 * record is the header (trimmed). A leading byte-order mark is dropped; blank lines are skipped;
 * a quote inside an unquoted cell is kept as a character, as the reader before it did.
 * @throws {FwError} 400 for an unterminated quote or ragged rows, 413 beyond the limits.
 */
export function parseCsv(text: string, limits: CsvLimits): { header: string[]; rows: string[][] } {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      // Files pasted together mix line ends; the reader before csv-parse took all three anywhere.
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      // The body limit bounds the input; a long TEXTAREA cell is not an error.
      max_record_size: Math.max(text.length, 1),
      // One record past the limit is enough to know it is passed: the rest is never read.
      to: limits.maxRows + 2,
      on_record: (record: string[]) => {
        if (record.length > limits.maxColumns) throw dataError('BAD_QUERY', `at most ${limits.maxColumns} columns`);
        return record;
      },
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') throw dataError('BAD_QUERY', 'the CSV ends inside a quoted field');
    if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
      const record = (error as CsvError & { record?: unknown[]; records?: number }).records ?? 0;
      throw dataError('BAD_QUERY', `row ${record} has a different number of cells than the header`);
    }
    throw dataError('BAD_QUERY', `the CSV cannot be read: ${error.message}`);
  }
  if (records.length > limits.maxRows + 1) throw dataError('TOO_MANY_ROWS', `at most ${limits.maxRows} rows can be imported at once`);
  const [header, ...rows] = records;
  if (!header) throw dataError('BAD_QUERY', 'the CSV has no header row');
  return { header: header.map((h) => h.trim()), rows };
}
