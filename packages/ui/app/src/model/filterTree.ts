// The filter builder's state: a group of rules joined by AND or OR, which may hold groups of its
// own (one level in the builder; the server takes deeper ones). Kept apart from the component (no
// antd here) so the URL, the table query and saved views read and write the same shape, and so it
// can be tested on its own.
import type { Condition, ConditionNode, FieldView } from '../types';

/** The operators the builder offers (the table query's names). */
export type FilterOp = Condition['op'];

/** One rule: a field, an operator and, for most operators, a value. */
export interface FilterRule {
  field: string;
  op: FilterOp;
  value?: unknown;
}

/** A group: its rules (and groups) all hold (`and`), or any one does (`or`). */
export interface FilterGroup {
  join: 'and' | 'or';
  items: Array<FilterRule | FilterGroup>;
}

/** True for a group, false for a rule. */
export function isGroup(item: FilterRule | FilterGroup): item is FilterGroup {
  return 'items' in item;
}

/** The builder's starting point: an empty AND group. */
export function emptyFilter(): FilterGroup {
  return { join: 'and', items: [] };
}

const TEXT_OPS: FilterOp[] = ['like', 'startsWith', 'eq', 'ne', 'in', 'notIn', 'isNull', 'notNull'];
const ORDERED_OPS: FilterOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'isNull', 'notNull'];
const LIST_OPS: FilterOp[] = ['like', 'isNull', 'notNull'];
const PICK_OPS: FilterOp[] = ['eq', 'ne', 'in', 'notIn', 'isNull', 'notNull'];

/** The operators that make sense for a field's type (all of them accepted by the server for it). */
export function opsFor(field: FieldView): FilterOp[] {
  switch (field.type) {
    case 'NUMBER':
      return field.integer ? [...ORDERED_OPS.slice(0, 7), 'in', 'notIn', 'isNull', 'notNull'] : ORDERED_OPS;
    case 'DATE':
    case 'DATETIME':
      return ORDERED_OPS;
    case 'BOOLEAN':
      return ['eq', 'ne', 'isNull', 'notNull'];
    case 'MULTI_CHOICE':
    case 'TAGS':
      return LIST_OPS;
    case 'CHOICE':
    case 'REFERENCE_TABLE':
    case 'REFERENCE_TREE':
      return PICK_OPS;
    case 'HIDDEN':
      return field.integer ? PICK_OPS : TEXT_OPS;
    default:
      return TEXT_OPS;
  }
}

/** Operators that take no value. */
export function takesNoValue(op: FilterOp): boolean {
  return op === 'isNull' || op === 'notNull';
}

/** Operators whose value is a list. */
export function takesList(op: FilterOp): boolean {
  return op === 'in' || op === 'notIn';
}

const filled = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Whether a rule is complete enough to send (a half-typed one is left out, not sent as an error). */
export function ruleReady(rule: FilterRule): boolean {
  if (!rule.field) return false;
  if (takesNoValue(rule.op)) return true;
  if (rule.op === 'between') return Array.isArray(rule.value) && rule.value.length === 2 && rule.value.every(filled);
  if (takesList(rule.op)) return Array.isArray(rule.value) && rule.value.length > 0;
  return filled(rule.value) && !(typeof rule.value === 'string' && rule.value.trim() === '');
}

/** The table query's node for an item, or undefined when nothing in it is ready. */
function toNode(item: FilterRule | FilterGroup): ConditionNode | undefined {
  if (!isGroup(item)) {
    if (!ruleReady(item)) return undefined;
    const value = typeof item.value === 'string' ? item.value.trim() : item.value;
    return takesNoValue(item.op) ? { field: item.field, op: item.op } : { field: item.field, op: item.op, value };
  }
  const nodes = item.items.map(toNode).filter((n): n is ConditionNode => n !== undefined);
  if (nodes.length === 0) return undefined;
  if (nodes.length === 1) return nodes[0];
  return item.join === 'or' ? { or: nodes } : { and: nodes };
}

/** The conditions a filter adds to the table query (none when it holds no complete rule). */
export function filterConditions(filter: FilterGroup | undefined): ConditionNode[] {
  if (!filter) return [];
  const node = toNode(filter);
  if (!node) return [];
  // A top-level AND is the query's own: its parts go in as they are.
  return 'and' in node ? node.and : [node];
}

/** How many complete rules a filter holds (the count on the Filter button). */
export function countRules(filter: FilterGroup | undefined): number {
  if (!filter) return 0;
  return filter.items.reduce((n, item) => n + (isGroup(item) ? countRules(item) : ruleReady(item) ? 1 : 0), 0);
}

const OPS = new Set<string>(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'like', 'startsWith', 'in', 'notIn', 'isNull', 'notNull']);

/**
 * A filter read back from the URL or a saved view: anything that is not a well-formed group of
 * rules (unknown operators, other keys, deeper than `depth`) is dropped rather than trusted.
 */
export function readFilter(raw: unknown, depth = 3): FilterGroup | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || depth === 0) return undefined;
  const group = raw as { join?: unknown; items?: unknown };
  if ((group.join !== 'and' && group.join !== 'or') || !Array.isArray(group.items)) return undefined;
  const items: FilterGroup['items'] = [];
  for (const item of group.items.slice(0, 50)) {
    if (item && typeof item === 'object' && 'items' in item) {
      const inner = readFilter(item, depth - 1);
      if (inner) items.push(inner);
      continue;
    }
    const rule = item as { field?: unknown; op?: unknown; value?: unknown };
    if (typeof rule?.field !== 'string' || typeof rule.op !== 'string' || !OPS.has(rule.op)) continue;
    items.push({ field: rule.field, op: rule.op as FilterOp, ...(rule.value !== undefined ? { value: rule.value } : {}) });
  }
  return { join: group.join, items };
}

/** The fields a filter names that the model no longer offers (a saved view from before a change). */
export function missingFields(filter: FilterGroup | undefined, fields: FieldView[]): string[] {
  if (!filter) return [];
  const known = new Set(fields.map((f) => f.name));
  const out = new Set<string>();
  const walk = (g: FilterGroup) => {
    for (const item of g.items) {
      if (isGroup(item)) walk(item);
      else if (!known.has(item.field)) out.add(item.field);
    }
  };
  walk(filter);
  return [...out];
}

/**
 * The filter a list of table-query conditions stands for (a saved view's): a top-level AND of
 * them, `{ or }` / `{ and }` nodes as groups. What is not a condition or a group is dropped.
 */
export function filterOfConditions(nodes: unknown): FilterGroup | undefined {
  if (!Array.isArray(nodes) || nodes.length === 0) return undefined;
  const item = (node: unknown, depth: number): FilterRule | FilterGroup | undefined => {
    if (!node || typeof node !== 'object' || depth > 3) return undefined;
    const n = node as { or?: unknown; and?: unknown; field?: unknown; op?: unknown; value?: unknown };
    if (Array.isArray(n.or) || Array.isArray(n.and)) {
      const items = ((n.or ?? n.and) as unknown[]).map((x) => item(x, depth + 1)).filter((x): x is FilterRule | FilterGroup => x !== undefined);
      return { join: Array.isArray(n.or) ? 'or' : 'and', items };
    }
    if (typeof n.field !== 'string') return undefined;
    const op = typeof n.op === 'string' && OPS.has(n.op) ? (n.op as FilterOp) : n.op === undefined ? 'eq' : undefined;
    if (!op) return undefined;
    return { field: n.field, op, ...(n.value !== undefined ? { value: n.value } : {}) };
  };
  return readFilter({ join: 'and', items: nodes.map((x) => item(x, 1)).filter(Boolean) });
}
