import { EventEmitter } from 'node:events';
import type { DataSource } from '@fw/core';

/** Sent after a successful update (edit form, cell edit, AI), once the transaction committed. */
export interface EditEvent {
  /** The model's name. */
  model: string;
  /** The row's primary key. */
  id: number;
  /** Who changed it (`name` when the user has one). */
  user: { id: number; account: string; name?: string };
  /** Where the change came from: the HTTP API (form and cell edit alike) or an AI tool. */
  source: DataSource;
  /** The row before, as the edit form sees it (passwords left out). */
  before: Record<string, unknown>;
  /** The row after. */
  after: Record<string, unknown>;
  /** Names of the fields whose value changed. */
  changed: string[];
}

/** Sent once an undelete committed, one per row put back. */
export interface InsertEvent {
  model: string;
  id: number;
  user: { id: number; account: string; name?: string };
  source: DataSource;
  /** Why the row appeared: `undelete`. */
  reason: 'undelete';
  /** The row as the edit form sees it (passwords left out). */
  after: Record<string, unknown>;
}

/** The events a data service emits. */
export interface DataEventMap {
  update: [EditEvent];
  /** A row put back by an undelete (write/trash.ts), once the transaction committed. */
  insert: [InsertEvent];
}

/**
 * Hosts subscribe here: `fwData.events.on('update', (event) => …)`. Listener errors are caught
 * and reported on `error` listeners, so they never fail the request that caused the event.
 */
export class DataEvents extends EventEmitter<DataEventMap & { error: [unknown] }> {}
