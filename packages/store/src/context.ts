import type { Knex } from 'knex';
import type { FwDialect } from './dialect.js';
import type { BoundModels } from './models.js';

/** What every repository of one store shares. */
export interface RepositoryContext {
  /** The store's knex; repositories never use a global one. */
  knex: Knex;
  dialect: FwDialect;
  /** The built-in objection models bound to `knex`. */
  models: BoundModels;
  /** Called after every write that changes what users are granted (roles, menus, user roles). */
  grantsChanged(): Promise<void>;
}

/** Paging of a list. */
export interface ListOptions {
  /** At most this many rows. @default every row */
  limit?: number;
  /** Rows to skip first (with `limit`). @default 0 */
  offset?: number;
}
