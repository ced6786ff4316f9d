import { FwError } from '@fw/core';
import type { RepositoryContext } from './context.js';
import type { FwOrgModel } from './models.js';
import { checkInteger, checkOptionalId, checkOptionalText, checkText, conflictOnDuplicate, isRowId, toId, toOptionalId } from './values.js';

/** An organisation (a node of the org tree) as the repositories return it. */
export interface FwOrgRecord {
  id: number;
  /** Unique when set. */
  code: string | null;
  name: string;
  parentId: number | null;
  sort: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What `orgs.create` accepts. */
export interface CreateOrgInput {
  /** Unique, at most 64 characters. */
  code?: string | null;
  /** At most 128 characters. */
  name: string;
  /** Id of an existing organisation. @default null (a root) */
  parentId?: number | null;
  /** @default 0 */
  sort?: number;
}

/** The `fw_org` table. */
export interface OrgRepository {
  /**
   * Creates an organisation.
   * @throws {FwError} `CONFLICT` when the code exists; `VALIDATION_FAILED` for a bad field or unknown parent.
   */
  create(input: CreateOrgInput): Promise<FwOrgRecord>;
  /** The organisation with this id, or undefined. */
  findById(id: number): Promise<FwOrgRecord | undefined>;
  /** Every organisation, by `sort` then id. */
  list(): Promise<FwOrgRecord[]>;
  /**
   * Deletes an organisation and its user links.
   * @returns false when there was none.
   * @throws {FwError} `CONFLICT` while it still has child organisations: members of a subtree are
   * not dropped as a side effect.
   */
  delete(id: number): Promise<boolean>;
}

function toRecord(m: FwOrgModel): FwOrgRecord {
  return {
    id: toId(m.id),
    code: m.code ?? null,
    name: m.name,
    parentId: toOptionalId(m.parentId),
    sort: Number(m.sort),
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** The organisation repository of one store. */
export function createOrgRepository(ctx: RepositoryContext): OrgRepository {
  const { Org } = ctx.models;

  async function findById(id: number): Promise<FwOrgRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await Org.query().findById(id);
    return row ? toRecord(row) : undefined;
  }

  return {
    async create(input) {
      const code = checkOptionalText('code', input.code, 64);
      const name = checkText('name', input.name, 128);
      const sort = checkInteger('sort', input.sort, 0);
      const parentId = checkOptionalId('parentId', input.parentId);
      if (parentId !== null && !(await Org.query().findById(parentId).select('id'))) {
        const message = `names no existing organisation: ${parentId}`;
        throw new FwError('VALIDATION_FAILED', `parentId ${message}`, { details: [{ path: 'parentId', type: 'exists', message }] });
      }
      const now = new Date();
      const inserted = await conflictOnDuplicate(
        () => Org.query().insert({ code, name, sort, parentId, createdAt: now, updatedAt: now }),
        'code',
        `An organisation with code ${JSON.stringify(code)} already exists`,
      );
      const created = await findById(toId(inserted.id));
      if (!created) throw new Error(`fw_org row ${String(inserted.id)} vanished right after its insert`);
      return created;
    },

    findById,

    async list() {
      return (await Org.query().orderBy('sort').orderBy('id')).map(toRecord);
    },

    async delete(id) {
      if (!isRowId(id)) return false;
      return ctx.knex.transaction(async (trx) => {
        const child = await Org.query(trx).where('parent_id', id).first();
        if (child) throw new FwError('CONFLICT', `Organisation ${id} still has child organisations; move or delete them first`);
        return (await Org.query(trx).deleteById(id)) > 0;
      });
    },
  };
}
