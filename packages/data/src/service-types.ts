import type { DataHookContext, DataSource, FwUser, ModelDefinition, PasswordPolicy } from '@fw/core';
import type { FileStorage } from '@fw/files';
import type { FwStore } from '@fw/store';
import type { FormRow } from '@fw/row-patch';
import type { PowerResolver } from '@fw/power';
import type { ModelRegistry } from '@fw/core';
import type { QueryLimits } from './read/query.js';
import type { ReferenceLabels } from './read/references.js';
import type { UploadQuota } from './files/upload-quota.js';
import type { PageCursors } from './read/keyset-page.js';

/** Who is acting, from where. */
export interface Actor {
  user: FwUser;
  /** Client address, for the operate log. */
  ip: string | null;
  /** `http` for the data API (form and cell edits alike), `ai` for AI tools, `import` for imports. */
  source: DataSource;
  /** The grants version, when authentication already read it; otherwise the service reads it. */
  grantsVersion?: number;
  /** The token the request carried: a password change of one's own account keeps it alive. */
  token?: string;
}

/** What the data service needs of a token service: ending a user's sessions. */
export interface TokenRevoker {
  revokeUser(userId: number, options?: { except?: string }): Promise<number>;
  /** Ends one token by its hash: the tokens exchanged with an open-API key end when the key changes. */
  revokeHash?(hash: string): Promise<boolean>;
}

/** Options of {@link DataService.update}. */
export interface UpdateOptions {
  /** The row version the client read (an `If-Match` header): a row changed since is not overwritten. */
  ifMatch?: string;
  /** The batch id the update's operate-log row carries (a restore's). */
  batch?: string;
  /**
   * What the editor was shown (issue 24 §1): `check` answers the fields whose value now differs
   * from it (none: the write goes on). A cell edit's `expect`, a pasted row's.
   */
  expect?: CellExpectation;
}

/** The values an edit was seeded with, checked against the stored row before anything is written. */
export interface CellExpectation {
  /** The fields expected. */
  readonly fields: readonly string[];
  /** The expected fields whose shown value now differs (an empty list when all still match). */
  check(stored: FormRow): string[] | Promise<string[]>;
}

/** Options of {@link DataService}. */
export interface DataServiceOptions {
  store: FwStore;
  registry: ModelRegistry;
  /** Page-size and condition bounds of table queries. */
  limits?: Partial<QueryLimits>;
  /** Most rows one export writes. @default 100000 */
  exportMaxRows?: number;
  /** Most rows one import reads. @default 10000 */
  importMaxRows?: number;
  /** Rows per export read (one keyset seek each). @default 1000 */
  exportBatchRows?: number;
  /** Rows per multi-row INSERT of an import (all batches in one transaction). @default 500 */
  importBatchRows?: number;
  /** Most rows one bulk edit (update-many) changes. @default 10000 */
  bulkMaxRows?: number;
  /** The power engine; one is made when absent. */
  power?: PowerResolver;
  /**
   * Ends a user's other sessions when an edit changes their password, administrator flag or
   * status. Without it, such edits still apply to the next request of a locked account, but a
   * new password leaves old tokens alive. `fwData` passes its token service.
   */
  tokens?: TokenRevoker;
  /** Called with errors that must not fail the request (operate-log writes, event listeners, after-commit work). @default console.error */
  onBackgroundError?: (error: unknown) => void;
  /**
   * Where the files of ATTACHMENT fields are stored (`@fw/files`). Required when a model has
   * such a field: uploads and downloads answer 500 without it. `fwAdmin` defaults to a local folder.
   */
  files?: FileStorage;
  /**
   * The policy a user's new password is held to on every write path (add, edit form, cell edit,
   * copy, import, AI): FwUser's `password`, checked against the row's account. `fwData` passes the
   * one of its `passwordPolicy` option.
   * @default passwordPolicy() of `@fw/core` (at least 10 characters, at most 200, not the account, not a common password)
   */
  passwordPolicy?: PasswordPolicy;
  /**
   * The per-user bound on pending uploads (uploaded, not yet saved in a row): past `maxFiles` an
   * upload is a 429 `UPLOAD_QUOTA_FILES`, past `maxBytes` a 413 `UPLOAD_QUOTA_BYTES`. A save that
   * attaches files, and the expiry of unsaved ones after 24 hours, make room again.
   * @default { maxFiles: 20, maxBytes: 209715200 } (200 MiB)
   */
  uploadQuota?: Partial<UploadQuota>;
  /** Trashed rows older than this many days are purged with their files. @default 30 */
  trashRetentionDays?: number;
}

/** One page of a table query. */
export interface TablePage {
  /** The rows, COLLECTION fields included (as arrays of ids). */
  rows: FormRow[];
  /** The number of matching rows: exact, or an estimate at least the rows seen so far when {@link totalIsEstimate}. */
  total: number;
  /** True when `total` is an estimate (statistics, a cached count, or a lower bound), false when it was counted or proven exact. */
  totalIsEstimate: boolean;
  page: number;
  size: number;
  /**
   * Where the pages around this one start, for `before` / `after` of the next request (opaque,
   * bound to the model and the sort): `prev` is null when no row precedes the first row, `next`
   * when no row follows the last one. Pages by number carry them too.
   */
  cursors: PageCursors;
  /** Labels of the reference and collection values in `rows`: field → id → label (rows the user may not see left out). */
  labels: ReferenceLabels;
}

/** The context every data hook receives (the write modules add the transaction). */
export function hookContext(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): DataHookContext {
  return { user: actor.user, model: model.name, action, source: actor.source };
}
