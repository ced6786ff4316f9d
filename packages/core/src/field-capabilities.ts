// What a field can do (be filtered, sorted, edited in a cell, kept secret, stored in which kind of
// column) follows from its definition alone. It is decided here, once, when defineModel builds
// the model; the patcher, the schema view, the query builder, the cursor, the table builder and
// the OpenAPI description read the answer instead of deciding again, so they cannot drift apart.
import { EditType, type CellEditAnswer, type FieldCapabilities, type FieldDefinition, type ModelCapabilities, type StoredKind } from './model-types.js';
import { GRANT_TABLES, PERMISSION_LINKS, PERMISSION_TABLES } from './grant-tables.js';
import type { PowerFlags } from './power.js';

const CAN_EDIT: CellEditAnswer = Object.freeze({ ok: true });
/** Operators `gt`, `gte`, `lt`, `lte`, `between` compare these types. */
const ORDERED = new Set<string>([
  EditType.NUMBER,
  EditType.DATE,
  EditType.DATETIME,
  EditType.INPUT,
  EditType.TEXTAREA,
  EditType.CHOICE,
  EditType.HIDDEN,
  EditType.REFERENCE_TABLE,
  EditType.REFERENCE_TREE,
]);
/** `like` searches the text of these types (lists by their stored JSON text). */
const TEXTUAL = new Set<string>([EditType.INPUT, EditType.TEXTAREA, EditType.CHOICE, EditType.HIDDEN, EditType.MULTI_CHOICE, EditType.TAGS]);

/** A field before its capabilities are known: what {@link fieldCapabilities} reads. */
export type FieldFacts = Pick<FieldDefinition, 'name' | 'stored' | 'primaryKey' | 'views' | 'edit'>;

/** The model parts {@link fieldCapabilities} and {@link modelCapabilities} read. */
export interface ModelFacts {
  readonly name: string;
  readonly power: Readonly<Pick<PowerFlags, 'cellEdit'>>;
  /** The model's table; {@link modelCapabilities} reads it (whether writes touch grants). */
  readonly table?: string;
}

function refuse(code: Extract<CellEditAnswer, { ok: false }>['code'], reason: string): CellEditAnswer {
  return Object.freeze({ ok: false, code, reason });
}

/** The model's own cell-edit switch: declared `power.cellEdit: false` closes every cell, whatever the role. */
function modelCellEdit(model: ModelFacts): CellEditAnswer {
  return model.power.cellEdit === false ? refuse('CELL_EDIT_DISABLED', `Cell editing is disabled for model ${model.name}`) : CAN_EDIT;
}

/**
 * The cell-edit checks in the order the update-cell route runs them: the model's switch, the
 * field's switch, the primary key, a COLLECTION, a PASSWORD, a read-only field. The first that
 * refuses gives the answer.
 */
function cellEditOf(model: ModelFacts, field: FieldFacts): CellEditAnswer {
  const closed = modelCellEdit(model);
  if (!closed.ok) return closed;
  const at = `${model.name}.${field.name}`;
  if (field.edit.cellEdit === false) return refuse('FIELD_CELL_EDIT_DISABLED', `Cell editing is disabled for field ${at}`);
  if (field.primaryKey) return refuse('PRIMARY_KEY_FIELD', `${at} is the primary key and cannot be edited`);
  if (field.edit.type === EditType.COLLECTION) return refuse('COLLECTION_FIELD', `${at} is a collection field and cannot be edited in a cell`);
  if (field.edit.type === EditType.PASSWORD) return refuse('PASSWORD_FIELD', `${at} is a password field and cannot be edited in a cell`);
  if (field.edit.readonly) return refuse('READONLY_FIELD', `${at} is read-only`);
  return CAN_EDIT;
}

/** The kind of column a field needs; undefined for a COLLECTION field (it has no column). */
function storedKindOf(field: FieldFacts): StoredKind | undefined {
  // The key's column follows `integer` whatever its edit type: an undeclared key is a hidden integer.
  if (field.primaryKey) return field.edit.integer ? 'integer' : 'string';
  switch (field.edit.type) {
    case EditType.HIDDEN:
      // A hidden id (an owner, a tenant) is a number: compared, sorted and joined as one.
      return field.edit.integer ? 'integer' : 'string';
    case EditType.INPUT:
    case EditType.PASSWORD:
    case EditType.CHOICE:
      return 'string';
    case EditType.TEXTAREA:
    case EditType.MULTI_CHOICE:
    case EditType.TAGS:
    case EditType.ATTACHMENT:
      return 'text';
    case EditType.NUMBER:
      return field.edit.integer ? 'integer' : 'number';
    case EditType.BOOLEAN:
      return 'boolean';
    case EditType.DATE:
      return 'date';
    case EditType.DATETIME:
      return 'datetime';
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      return 'integer';
    case EditType.COLLECTION:
      return undefined;
  }
}

/**
 * What `field` of `model` can do, frozen. `defineModel` calls it for every field; it is exported
 * for tests and for tools that inspect a definition.
 */
export function fieldCapabilities(model: ModelFacts, field: FieldFacts): FieldCapabilities {
  const secret = field.edit.type === EditType.PASSWORD;
  // Filtering or sorting on a secret would leak it one comparison at a time; attachments are
  // JSON lists of file records, nothing a condition or a sort can use.
  const queryable = field.stored && !secret && field.edit.type !== EditType.ATTACHMENT;
  return Object.freeze({
    secret,
    queryable,
    filterable: queryable,
    sortable: queryable && field.views.sortable,
    // A HIDDEN field declared `integer` is a number column (keys, owner ids): LOWER() of it fails on PostgreSQL.
    textSearch: TEXTUAL.has(field.edit.type) && !field.edit.integer,
    ordered: ORDERED.has(field.edit.type),
    cellEdit: cellEditOf(model, field),
    storedKind: storedKindOf(field),
  });
}

/** What `model` can do as a whole, frozen, from its fields' capabilities. */
export function modelCapabilities(
  model: ModelFacts,
  fieldNames: readonly string[],
  fields: Readonly<Record<string, FieldFacts & { capabilities: FieldCapabilities }>>,
): ModelCapabilities {
  const list = fieldNames.map((name) => fields[name]!);
  const names = (keep: (f: FieldFacts & { capabilities: FieldCapabilities }) => boolean) => Object.freeze(list.filter(keep).map((f) => f.name));
  const joinTables = list.flatMap((f) => (f.edit.collection ? [f.edit.collection.joinTable] : []));
  // A model stored in, or linking rows through, one of `tables` (a collection's join table).
  const writesInto = (tables: ReadonlySet<string>) => (model.table !== undefined && tables.has(model.table)) || joinTables.some((t) => tables.has(t));
  return Object.freeze({
    cellEdit: modelCellEdit(model),
    secretFields: names((f) => f.capabilities.secret),
    readableFields: names((f) => f.stored && !f.capabilities.secret),
    collectionFields: names((f) => f.edit.type === EditType.COLLECTION),
    attachmentFields: names((f) => f.edit.type === EditType.ATTACHMENT),
    touchesGrants: writesInto(GRANT_TABLES),
    holdsGrants: (model.table !== undefined && PERMISSION_TABLES.has(model.table)) || writesInto(PERMISSION_LINKS),
  });
}
