// The answer shapes of the routes in routes.ts that their own modules (activity, power,
// sessions) document; here so that routes.ts needs no import back from those modules.
import type { PowerObject } from '../types';

/** One sign-in to the person's account. */
export interface SignInEntry {
  id: number;
  time: string;
  success: boolean;
  reason: string | null;
  ip: string | null;
  userAgent: string | null;
  method: string;
}

/** One successful data operation of the person. */
export interface EditEntry {
  id: number;
  time: string;
  model: string;
  action: string;
  source: string;
  targetId: string | null;
}

/** `GET /my/activity`. */
export interface Activity {
  signIns: SignInEntry[];
  edits: EditEntry[];
}

/** One menu as a cell of the matrix. */
export interface GrantableMenu {
  id: number;
  code: string | null;
  name: string;
  status: string;
  grantable: boolean;
  revocable: boolean;
  refusal?: { code: string; message: string };
}

/** A row of the matrix: a non-function menu with its function menus by column key. */
export interface GrantableRow {
  menu: GrantableMenu;
  type: string;
  parentId: number | null;
  depth: number;
  model?: string;
  cells: Record<string, GrantableMenu>;
}

/** `GET /power/grantable`. */
export interface GrantableMatrix {
  editor: { id: number; isAdmin: boolean };
  role: { model: string; field: string };
  columns: Array<{ key: string; flag?: string; name?: string }>;
  rows: GrantableRow[];
}

/** One step of a flag's explanation; `value` is the flag after it. */
export interface ExplainStep {
  kind: 'declared' | 'admin' | 'modelMenu' | 'functionMenu' | 'handler' | 'aiGate' | 'cellGate' | 'requires';
  value: boolean;
  code?: string;
  held?: boolean;
  roles?: Array<{ id: number; name: string; menu: { id: number; name: string } }>;
  changed?: boolean;
  requires?: string;
  fields?: string[];
}

/** `GET /power/explain/{fw}`. */
export interface PowerExplanation {
  model: { name: string; title: string };
  user: { id: number; account: string; name: string | null; isAdmin: boolean };
  power: PowerObject;
  flags: Array<{ flag: string; value: boolean; steps: ExplainStep[] }>;
}

/** One role or organisation as the user form's picker offers it. */
export interface AssignableEntry {
  id: number;
  name: string;
  code: string | null;
  parentId?: number | null;
  depth?: number;
  status?: string;
  grantable: boolean;
  refusal?: { code: string; message: string };
}

/** `GET /power/assignable`. */
export interface AssignableLists {
  editor: { id: number; isAdmin: boolean };
  user: { model: string; roles?: string; orgs?: string };
  roles: AssignableEntry[];
  orgs: AssignableEntry[];
}

/** One session as `GET /sessions` answers it. */
export interface SessionEntry {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  method: string | null;
}

/** One row of `GET /sessions/online`. */
export interface OnlineUserEntry {
  userId: number;
  account: string | null;
  name: string | null;
  sessions: number;
  lastSeenAt: string;
  expiresAt: string;
}

/** A page of online users. */
export interface OnlineUsersPage {
  total: number;
  page: number;
  size: number;
  rows: OnlineUserEntry[];
}

/** Where a change came from, as the operate log records it. */
export type ChangeSource = 'http' | 'form' | 'cell' | 'import' | 'bulk' | 'ai' | 'restore' | 'undo' | (string & {});

/** One entry of a row's history (`GET /data/{fw}/{id}/history`), newest first. */
export interface HistoryEntry {
  /** The operate-log row's id: what a restore names. */
  id: number;
  at: string;
  /** The account the log holds and the user's name now (`name` absent from servers before it was added). */
  user: { id: number | null; account: string | null; name?: string | null };
  source: ChangeSource;
  action: string;
  batch: string | null;
  changes: Array<{ field: string; before: unknown; after: unknown }>;
}

/** A page of a row's history. */
export interface HistoryPage {
  rows: HistoryEntry[];
  total: number;
  page: number;
  size: number;
}

/** The answer of `POST /data/{fw}/{id}/restore`. */
export interface RestoreAnswer {
  row: Record<string, unknown>;
  restored: string[];
  skipped: Array<{ field: string; reason: string }>;
  batch?: string;
}

/** The answer of `POST /data/modify/{fw}/update-many`. */
export interface BulkAnswer {
  updated: number;
  batch: string;
}

/** What `POST /data/undo` takes: one batch, or (administrators) one user's changes in a time window. */
export type UndoBody = ({ batch: string } | { actor: number; from: string; to: string }) & {
  /** Check every entry as the undo would, write nothing. */
  dryRun?: boolean;
  /** Entries (log ids) undone even though their row changed since. */
  force?: number[];
};

/** One entry an undo takes back (or would, on a dry run). */
export interface UndoStep {
  entry: number;
  model: string;
  id: number;
  /** `update`: fields put back; `delete`: an added row deleted; `undelete`: a deleted row put back. */
  action: 'update' | 'delete' | 'undelete';
  fields?: string[];
  forced?: true;
}

/** Why an entry is not undone; only `changed` may be forced. */
export type UndoConflictReason = 'changed' | 'gone' | 'taken' | 'invalid' | 'removed' | 'unsupported';

/** One entry an undo leaves alone. */
export interface UndoConflict {
  entry: number;
  model: string;
  id: number | null;
  reason: UndoConflictReason;
  message: string;
}

/** The answer of `POST /data/undo`. The lists stop at 500 entries; the counts are whole. */
export interface UndoAnswer {
  /** The undo's own batch (undo it to redo); null on a dry run or when nothing was undone. */
  batch: string | null;
  undone: number;
  conflicted: number;
  steps: UndoStep[];
  conflicts: UndoConflict[];
  skipped: Array<{ entry: number; field: string; reason: string }>;
  dryRun?: true;
}

/** One trashed row (`POST /data/trash/{fw}`). */
export interface TrashEntry {
  trashId: number;
  id: number;
  deletedAt: string;
  deletedBy: { id: number | null; account: string | null };
  row: Record<string, unknown>;
}

/** A page of a model's trash. */
export interface TrashPage {
  rows: TrashEntry[];
  total: number;
  page: number;
  size: number;
}

/** One saved view of a model (`GET /views/{fw}`). */
export interface SavedView {
  id: number;
  name: string;
  /** The caller's own view (else one shared with a role the caller holds). */
  mine: boolean;
  owner: { id: number; account?: string };
  conditions: unknown[];
  sort: Array<{ field: string; order: 'asc' | 'desc' }>;
  size: number | null;
  columns: string[] | null;
  /** The roles it is shared with (told to its owner only). */
  roles?: number[];
  /** Set when the view names fields the model no longer has. */
  broken?: { fields: string[]; message: string };
  createdAt: string;
  updatedAt: string;
}

/** What saving a view sends. */
export interface ViewInput {
  id?: number;
  name: string;
  conditions: unknown[];
  sort: Array<{ field: string; order: 'asc' | 'desc' }>;
  size?: number;
  columns?: string[] | null;
  roles?: number[];
}
