// The differences between models and the database, as callers see them, and the error that
// lists those start-up cannot apply.
/** What differs between a model and its table. */
export type ModelTableChangeKind =
  /** The model's table does not exist: it is created (safe). */
  | 'missingTable'
  /** A COLLECTION field's join table does not exist: it is created (safe). */
  | 'missingJoinTable'
  /** A stored field has no column: the column is added, nullable, with the field's default (safe). */
  | 'missingColumn'
  /** A declared index does not exist (no index starts with its columns): it is created (safe). */
  | 'missingIndex'
  /** The column's type is not the one the field needs (unsafe: converting may lose data). */
  | 'typeChanged'
  /** A column no field maps to holds values (unsafe: the field was dropped or renamed while it had data). */
  | 'droppedField'
  /** A new `notNull` field without a default on a table with rows: those rows would break the model's rule (unsafe). */
  | 'notNullWithoutDefault'
  /** The table exists without the model's primary-key column (unsafe: no safe SQL adds a key to a table with rows). */
  | 'missingPrimaryKey'
  /** A column no field maps to, empty: left alone, reported as a note. */
  | 'extraColumn'
  /** A declared index over a column SQL Server cannot index (nvarchar(max)): not created, reported as a note. */
  | 'indexNotPossible';

/** One difference between a model definition and the database. */
export interface ModelTableChange {
  /** The model's name (for a join table, the model declaring the COLLECTION field). */
  readonly model: string;
  /** The table, as the model names it (`schema.table` or `table`). */
  readonly table: string;
  /** The field concerned, when there is one. */
  readonly field?: string;
  /** The column concerned, when there is one (an index's first column). */
  readonly column?: string;
  /** A `missingIndex`'s name. */
  readonly index?: string;
  readonly kind: ModelTableChangeKind;
  /** One line a person can act on. */
  readonly message: string;
  /**
   * SQL for this database's dialect: what start-up runs for a safe change; for an unsafe one, what
   * a person could run once they have decided (after saving data, or choosing a value where the SQL
   * says `<value>`). Statements end with `;`.
   */
  readonly sql: string;
}

/** The differences between models and the database, sorted by what start-up does with them. */
export interface ModelTablesPlan {
  /** Applied by {@link createModelTables} (tables created, columns added, indexes created). */
  readonly safe: ModelTableChange[];
  /** Each stops {@link createModelTables} with a {@link ModelTablesError}; nothing is applied. */
  readonly unsafe: ModelTableChange[];
  /** Reported only (empty columns no field maps to, indexes SQL Server cannot make). */
  readonly notes: ModelTableChange[];
}

/**
 * The database cannot be brought in line with the models without a person deciding: thrown by
 * {@link createModelTables} before anything is changed. The message lists every difference with
 * the SQL a person could run; `differences` has them as data.
 */
export class ModelTablesError extends Error {
  override readonly name = 'ModelTablesError';
  readonly differences: readonly ModelTableChange[];
  constructor(differences: readonly ModelTableChange[]) {
    super(describeModelTableChanges(differences));
    this.differences = differences;
  }
}

/**
 * The text of a {@link ModelTablesError}: a heading line, then per difference its message and the
 * SQL, indented. `fw doctor` prints the same.
 */
export function describeModelTableChanges(differences: readonly ModelTableChange[]): string {
  const lines = [`The database differs from the model definitions in ${differences.length} way${differences.length === 1 ? '' : 's'} that cannot be applied safely:`];
  for (const d of differences) {
    lines.push(`- ${d.message}`);
    for (const line of d.sql.split('\n')) lines.push(`    ${line}`);
  }
  return lines.join('\n');
}

/** A change of the plan, with how to apply it when it is safe. */
export interface PlannedChange extends ModelTableChange {
  /** Applies a safe change; true when it created a table. */
  readonly apply?: () => Promise<boolean>;
}
