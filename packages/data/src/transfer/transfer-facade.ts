// The exports, imports and import templates of DataService: the model by name and the power each
// needs, then the work of transfers.ts. An import's power is checked before its file is read.
import type { Readable } from 'node:stream';
import type { ModelDefinition, PowerObject } from '@fw/core';
import { assertPower } from '@fw/power';
import type { DataAccess } from '../access.js';
import type { Actor } from '../service-types.js';
import type { ImportMode, ImportResult } from './transfer-import.js';
import type { TransferFormat, Transfers } from './transfers.js';

/** Power checks in front of {@link Transfers}. */
export class TransferFacade {
  readonly #access: DataAccess;
  readonly #transfers: Transfers;

  constructor(access: DataAccess, transfers: Transfers) {
    this.#access = access;
    this.#transfers = transfers;
  }

  /**
   * The visible rows matching the conditions, as CSV lines (header of field names first), for at
   * most `exportMaxRows` rows. Needs `export`. The first `next()` checks the request and reads the
   * first batch of rows, so every failure that can still become an error answer happens there.
   */
  async *exportCsv(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    const model = this.#access.model(name);
    await this.#access.requirePower(model, actor, 'export');
    yield* this.#transfers.exportCsv(model, actor, rawConditions, rawSort);
  }

  /**
   * The visible rows matching the conditions as an `.xlsx` workbook stream (typed cells, column
   * titles as a frozen, filtered header). Needs `export`. Resolves once the request is checked
   * and the first batch of rows is read, so a refusal is still an error answer.
   */
  async exportXlsx(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): Promise<Readable> {
    const model = this.#access.model(name);
    await this.#access.requirePower(model, actor, 'export');
    return this.#transfers.exportXlsx(model, actor, rawConditions, rawSort);
  }

  /**
   * Imports CSV rows (header = field names or column titles, any case), all or nothing: every row
   * is converted and validated, and hooks run, inside one transaction. Needs `importable`, and
   * `add` for added rows, `edit` for updated ones (`mode`: add, update or upsert; see runImport).
   */
  async importCsv(name: string, actor: Actor, text: string, mode: ImportMode): Promise<ImportResult> {
    const model = this.#access.model(name);
    const power = await this.requireImport(model, actor, mode);
    return this.#transfers.importCsv(model, actor, text, { mode, power, codes: await this.#access.grantCodes(model, actor) });
  }

  /** Imports the first sheet of an `.xlsx` workbook, like {@link importCsv}. */
  async importXlsx(name: string, actor: Actor, file: Buffer, mode: ImportMode): Promise<ImportResult> {
    const model = this.#access.model(name);
    const power = await this.requireImport(model, actor, mode);
    return this.#transfers.importXlsx(model, actor, file, { mode, power, codes: await this.#access.grantCodes(model, actor) });
  }

  /**
   * The power an import in `mode` needs before its file is read: `importable`, and `add` (mode
   * add), `edit` (mode update) or either (mode upsert; each row is then held to its own flag).
   */
  async requireImport(model: ModelDefinition, actor: Actor, mode: ImportMode): Promise<PowerObject> {
    if (mode === 'add') return this.#access.requirePower(model, actor, ['importable', 'add']);
    if (mode === 'update') return this.#access.requirePower(model, actor, ['importable', 'edit']);
    const power = await this.#access.requirePower(model, actor, 'importable');
    if (!power.add && !power.edit) assertPower(power, 'add', model.name);
    return power;
  }

  /** The import template (header and one example row) as a workbook or CSV. Needs `importable`. */
  async template(name: string, actor: Actor, format: TransferFormat): Promise<Buffer | string> {
    const model = this.#access.model(name);
    await this.#access.requirePower(model, actor, 'importable');
    return this.#transfers.template(model, format);
  }
}
