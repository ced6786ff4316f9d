// The trash (issue 23 §3) and undo behind DataService: who may page, undelete or purge a model's
// trash, and the dependencies undo runs with. The work is in trash.ts, undo.ts and
// read/trash-page.ts.
import { FwError, type ModelDefinition, type ModelRegistry } from '@fw/core';
import type { FwStore } from '@fw/store';
import type { DataAccess } from '../access.js';
import type { QueryLimits, TableQuery } from '../read/query.js';
import type { RowReader } from '../read/rows.js';
import { trashPage, type TrashPage } from '../read/trash-page.js';
import type { Actor } from '../service-types.js';
import type { AuditedWriter } from './audited-write.js';
import type { TrashWriter, UndeleteResult } from './trash.js';
import { runUndo, type UndoDeps, type UndoInput, type UndoResult } from './undo.js';

/** What a {@link TrashFacade} works with. */
export interface TrashFacadeDeps {
  store: FwStore;
  registry: ModelRegistry;
  limits: QueryLimits;
  access: DataAccess;
  reader: RowReader;
  writer: AuditedWriter;
  trash: TrashWriter;
}

/** Power checks in front of the trash and of undo. */
export class TrashFacade {
  readonly #deps: TrashFacadeDeps;

  constructor(deps: TrashFacadeDeps) {
    this.#deps = deps;
  }

  /**
   * The model's trash may be used by the actor for `use`: the model keeps a trash (else 404
   * `NOT_FOUND`), and the actor holds `delete` (the page), `delete` and `add` (undelete), or is
   * an administrator (purge; else 403 `POWER_DENIED`).
   */
  async requireTrash(model: ModelDefinition, actor: Actor, use: 'page' | 'undelete' | 'purge'): Promise<void> {
    if (use === 'purge') {
      if (!actor.user.isAdmin) throw new FwError('POWER_DENIED', `Only an administrator may purge the trash of ${model.name}`, { extra: { model: model.name } });
    } else await this.#deps.access.requirePower(model, actor, use === 'page' ? 'delete' : ['delete', 'add']);
    if (!model.trash) throw new FwError('NOT_FOUND', `${model.name} keeps no trash (trash: false)`, { extra: { model: model.name } });
  }

  /**
   * A page of the model's trashed rows the actor may see, newest first: `{ rows: [{ trashId, id,
   * deletedAt, deletedBy: { id, account }, row }], total, page, size }`, for a checked table
   * query (page, size, conditions). Needs `delete`.
   */
  async page(model: ModelDefinition, actor: Actor, query: TableQuery): Promise<TrashPage> {
    await this.requireTrash(model, actor, 'page');
    const { store, reader, limits } = this.#deps;
    return trashPage({ store, reader, limits }, model, actor, query);
  }

  /** Puts trashed rows back with their ids, all or none (see TrashWriter.undelete). Needs `delete` and `add`. */
  async undelete(model: ModelDefinition, actor: Actor, ids: number[]): Promise<UndeleteResult> {
    await this.requireTrash(model, actor, 'undelete');
    return this.#deps.trash.undelete(model, actor, ids, await this.#deps.access.grantCodes(model, actor));
  }

  /** Removes the model's trashed rows `ids` (row ids), or all of them, for good with their files. Administrators only. */
  async purge(model: ModelDefinition, actor: Actor, ids: number[] | undefined): Promise<{ purged: number }> {
    await this.requireTrash(model, actor, 'purge');
    return this.#deps.trash.purgeNow(model, actor, ids);
  }

  /**
   * Takes back a batch of changes, or what one user did in a time window (write/undo.ts): each
   * entry through the normal write paths, in one transaction; conflicts listed and skipped.
   */
  undo(actor: Actor, input: UndoInput): Promise<UndoResult> {
    const { store, registry, writer, trash, access, reader } = this.#deps;
    const deps: UndoDeps = {
      store,
      registry,
      writer,
      trash,
      requirePower: (model, who, flags) => access.requirePower(model, who, flags),
      visibility: (model, who, action) => reader.visibility(model, who, action),
      grantCodes: (model, who) => access.grantCodes(model, who),
    };
    return runUndo(deps, actor, input);
  }
}
