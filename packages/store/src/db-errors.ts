// Driver errors that say the request's data broke a rule of the database, read the same way on
// every dialect, so the data API answers them as client errors (409 / 422), never as a 500.

/**
 * What a constraint or value error of the database says:
 * - `unique`: a unique key already holds the value;
 * - `missingReference`: a foreign key names a row that does not exist (insert or update of the child);
 * - `stillReferenced`: a row cannot be deleted or changed while other rows point at it;
 * - `notNull`: a NOT NULL column was given null;
 * - `outOfRange`: a number too big for its column;
 * - `invalidValue`: a value the column type refuses (text too long, a NUL character, a bad date).
 */
export type DbViolationKind = 'unique' | 'missingReference' | 'stillReferenced' | 'notNull' | 'outOfRange' | 'invalidValue';

/** A classified database error; the parts a driver does not tell are absent. */
export interface DbViolation {
  kind: DbViolationKind;
  /** The table the statement wrote (for foreign keys: the referencing table), without schema. */
  table?: string;
  /** The columns named, when the driver says. */
  columns: string[];
  /** The constraint or index name, when the driver says. */
  constraint?: string;
  /** The offending value as the driver prints it (unique keys, missing references). */
  value?: string;
  /** The driver's own code (`23505`, `ER_DUP_ENTRY`, `SQLITE_CONSTRAINT_UNIQUE`, `2627`). */
  driverCode: string;
}

const PG: Record<string, DbViolationKind> = {
  '23505': 'unique',
  '23502': 'notNull',
  '22003': 'outOfRange',
  '22001': 'invalidValue', // string_data_right_truncation
  '22021': 'invalidValue', // character_not_in_repertoire (NUL)
  '22007': 'invalidValue', // invalid_datetime_format
  '22008': 'invalidValue', // datetime_field_overflow
  '22P02': 'invalidValue', // invalid_text_representation
};

const MYSQL: Record<number, DbViolationKind> = {
  1062: 'unique', // ER_DUP_ENTRY
  1586: 'unique', // ER_DUP_ENTRY_WITH_KEY_NAME
  1452: 'missingReference', // ER_NO_REFERENCED_ROW_2
  1216: 'missingReference', // ER_NO_REFERENCED_ROW
  1451: 'stillReferenced', // ER_ROW_IS_REFERENCED_2
  1217: 'stillReferenced', // ER_ROW_IS_REFERENCED
  1048: 'notNull', // ER_BAD_NULL_ERROR
  1364: 'notNull', // ER_NO_DEFAULT_FOR_FIELD
  1264: 'outOfRange', // ER_WARN_DATA_OUT_OF_RANGE
  1406: 'invalidValue', // ER_DATA_TOO_LONG
  1292: 'invalidValue', // ER_TRUNCATED_WRONG_VALUE (dates)
  1366: 'invalidValue', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD (text)
};

const MSSQL: Record<number, DbViolationKind> = {
  2627: 'unique', // unique or primary key constraint
  2601: 'unique', // unique index
  515: 'notNull',
  8115: 'outOfRange', // arithmetic overflow
  242: 'invalidValue', // datetime out of range
  8152: 'invalidValue', // string or binary data would be truncated
  2628: 'invalidValue', // the same, naming the column (SQL Server 2019+)
};

const SQLITE: Record<string, DbViolationKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_NOTNULL: 'notNull',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'missingReference',
};

function bare(name: string): string {
  // `schema.table`, `db`.`table`, [dbo].[table] → table
  const parts = name.replace(/[`"[\]]/g, '').split('.');
  return parts[parts.length - 1]!;
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((c) => bare(c.trim()))
    .filter(Boolean);
}

function props(error: object): Record<string, unknown> {
  return error as Record<string, unknown>;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function fromPostgres(e: Record<string, unknown>, kind: DbViolationKind, code: string): DbViolation {
  const detail = str(e.detail) ?? '';
  const out: DbViolation = { kind, columns: [], driverCode: code };
  const table = str(e.table);
  if (table) out.table = table;
  const constraint = str(e.constraint);
  if (constraint) out.constraint = constraint;
  const column = str(e.column);
  if (column) out.columns.push(column);
  // Key (account)=(alice) already exists. / Key (user_id)=(9) is not present in table "fw_user".
  const key = /Key \((.+?)\)=\((.*)\) (?:already exists|is not present|is still referenced)/.exec(detail);
  if (key) {
    out.columns = splitList(key[1]!);
    out.value = key[2]!;
  }
  if (kind === 'missingReference' && /is still referenced/.test(detail)) out.kind = 'stillReferenced';
  return out;
}

function fromMysql(e: Record<string, unknown>, kind: DbViolationKind, errno: number): DbViolation {
  const message = str(e.sqlMessage) ?? (e instanceof Error ? e.message : '');
  const out: DbViolation = { kind, columns: [], driverCode: str(e.code) ?? String(errno) };
  // Duplicate entry 'alice' for key 'fw_user_account_unique' (MySQL 8: 'fw_user.fw_user_account_unique')
  const dup = /Duplicate entry '(.*)' for key '(.+?)'/.exec(message);
  if (dup) {
    out.value = dup[1]!;
    const key = dup[2]!;
    const dot = key.indexOf('.');
    if (dot > 0) out.table = key.slice(0, dot);
    out.constraint = dot > 0 ? key.slice(dot + 1) : key;
  }
  // (`db`.`fw_user_role`, CONSTRAINT `fw_user_role_role_id_foreign` FOREIGN KEY (`role_id`) REFERENCES …
  const fk = /\((`[^`]+`\.)?`([^`]+)`, CONSTRAINT `([^`]+)` FOREIGN KEY \(([^)]+)\)/.exec(message);
  if (fk) {
    out.table = fk[2]!;
    out.constraint = fk[3]!;
    out.columns = splitList(fk[4]!);
  }
  // Column 'x' cannot be null / Field 'x' doesn't have a default value / … for column 'x' at row 1
  const column = /(?:Column|Field|column) [`']?([^`'\s]+(?:`\.`[^`'\s]+)*)[`']? (?:cannot be null|doesn't have a default|at row)/.exec(message);
  if (column && out.columns.length === 0) out.columns.push(bare(column[1]!));
  return out;
}

function fromMssql(kind: DbViolationKind, number: number, message: string): DbViolation {
  const out: DbViolation = { kind, columns: [], driverCode: String(number) };
  // Violation of UNIQUE KEY constraint 'x'. Cannot insert duplicate key in object 'dbo.t'. The duplicate key value is (v).
  // Cannot insert duplicate key row in object 'dbo.t' with unique index 'x'. The duplicate key value is (v).
  const constraint = /(?:constraint|unique index) ["']([^"']+)["']/i.exec(message);
  if (constraint) out.constraint = constraint[1]!;
  const object = /in object '([^']+)'/.exec(message);
  if (object) out.table = bare(object[1]!);
  const value = /duplicate key value is \((.*)\)\./.exec(message);
  if (value) out.value = value[1]!;
  // Cannot insert the value NULL into column 'c', table 'db.dbo.t'; …
  const column = /into column '([^']+)', table '([^']+)'/.exec(message);
  if (column) {
    out.columns.push(column[1]!);
    out.table = bare(column[2]!);
  }
  if (number === 547) {
    // The INSERT statement conflicted with the FOREIGN KEY constraint "x". / The DELETE statement conflicted with the REFERENCE constraint "x".
    out.kind = /REFERENCE constraint|DELETE statement/i.test(message) ? 'stillReferenced' : 'missingReference';
    // The table and column mssql names are the referenced ones: the constraint name is what identifies the child.
    delete out.table;
  }
  return out;
}

function fromSqlite(kind: DbViolationKind, code: string, message: string): DbViolation {
  const out: DbViolation = { kind, columns: [], driverCode: code };
  // UNIQUE constraint failed: fw_user.account[, fw_user.other] / NOT NULL constraint failed: t.c
  const failed = /constraint failed: ([\w.]+(?:, [\w.]+)*)/.exec(message);
  if (failed) {
    const parts = failed[1]!.split(', ');
    const first = parts[0]!;
    if (first.includes('.')) out.table = first.slice(0, first.lastIndexOf('.'));
    out.columns = parts.map((p) => bare(p));
  }
  return out;
}

/**
 * Reads a driver error (better-sqlite3, pg, mysql2, tedious through knex, or one wrapped in
 * `cause` / `originalError`) as a {@link DbViolation}, or `undefined` when it is not about the
 * data (a syntax error, a lost connection, a bug).
 * @example
 * try { await knex('fw_role').insert(row) } catch (e) { const v = classifyDbError(e); if (v?.kind === 'unique') … }
 */
export function classifyDbError(error: unknown): DbViolation | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth += 1) {
    const p = props(e);
    const message = e instanceof Error ? e.message : '';
    const code = p.code;
    if (typeof code === 'string' && SQLITE[code]) return fromSqlite(SQLITE[code]!, code, message);
    if (typeof code === 'string' && PG[code]) return fromPostgres(p, PG[code]!, code);
    if (typeof code === 'string' && code === '23503') return fromPostgres(p, 'missingReference', code);
    if (typeof p.errno === 'number' && MYSQL[p.errno] && typeof p.sqlState === 'string') return fromMysql(p, MYSQL[p.errno]!, p.errno);
    const number = p.number;
    if (typeof number === 'number' && (MSSQL[number] || number === 547)) return fromMssql(MSSQL[number] ?? 'missingReference', number, message);
    e = p.originalError ?? p.cause;
  }
  return undefined;
}

/**
 * True when `violation` is about `column` of `table`: the driver named that table and column, or
 * named a constraint knex would have created for it (`<table>_<column>_unique`,
 * `<table>_<column>_foreign`, MySQL 8's `<table>.<…>`), or named the column alone with no table.
 */
export function violationConcerns(violation: DbViolation, table: string, column: string): boolean {
  const plainTable = bare(table);
  if (violation.table !== undefined && violation.table !== plainTable) {
    // mssql and MySQL may name the index or constraint only; fall through to the name check.
    if (violation.constraint === undefined) return false;
  }
  if (violation.columns.includes(column) && (violation.table === undefined || violation.table === plainTable)) return true;
  const constraint = violation.constraint;
  if (constraint === undefined) return false;
  return [`${plainTable}_${column}_unique`, `${plainTable}_${column}_foreign`, `${plainTable}_${column}_index`].includes(constraint);
}
