import type { RepositoryContext } from './context.js';
import { classifyDbError } from './db-errors.js';
import { isRowId, toRequiredDate } from './values.js';

/** One stored preference of one user. */
export interface FwUserPrefRecord {
  /** The preference's name, e.g. `table:Book`. */
  key: string;
  /** The JSON value as stored (parsed). */
  value: unknown;
  updatedAt: Date;
}

/**
 * The `fw_user_pref` table: small JSON documents a user keeps for themselves (a table's columns,
 * widths and density, issue 20 §5). Every call names the user, so a caller can only ever reach
 * the rows of the user it was given; the HTTP routes give it the signed-in user alone.
 */
export interface UserPrefRepository {
  /** The preference, or undefined when the user has none under this key. */
  get(userId: number, key: string): Promise<FwUserPrefRecord | undefined>;
  /** Writes (creates or replaces) the preference; `value` is stored as JSON. */
  put(userId: number, key: string, value: unknown): Promise<FwUserPrefRecord>;
  /** Removes the preference. @returns false when there was none. */
  delete(userId: number, key: string): Promise<boolean>;
  /** How many preferences the user keeps. */
  count(userId: number): Promise<number>;
}

type Row = Record<string, unknown>;

function toRecord(row: Row): FwUserPrefRecord {
  return { key: String(row.key), value: JSON.parse(String(row.value)) as unknown, updatedAt: toRequiredDate(row.updated_at) };
}

/** @internal */
export function createUserPrefRepository(ctx: RepositoryContext): UserPrefRepository {
  const { knex } = ctx;
  const table = () => knex('fw_user_pref');

  async function update(userId: number, key: string, json: string, now: Date): Promise<number> {
    return table().where({ user_id: userId, key }).update({ value: json, updated_at: now });
  }

  return {
    async get(userId, key) {
      if (!isRowId(userId)) return undefined;
      const row = (await table().where({ user_id: userId, key }).first()) as Row | undefined;
      return row ? toRecord(row) : undefined;
    },

    async put(userId, key, value) {
      const json = JSON.stringify(value);
      const now = new Date();
      // Update first, insert when there was nothing: portable to every dialect (SQL Server has no
      // ON CONFLICT). Two first writes racing: the loser's insert hits the key and updates instead.
      if ((await update(userId, key, json, now)) === 0) {
        try {
          await table().insert({ user_id: userId, key, value: json, updated_at: now });
        } catch (error) {
          if (classifyDbError(error)?.kind !== 'unique') throw error;
          await update(userId, key, json, now);
        }
      }
      return { key, value: JSON.parse(json) as unknown, updatedAt: now };
    },

    async delete(userId, key) {
      if (!isRowId(userId)) return false;
      return (await table().where({ user_id: userId, key }).delete()) > 0;
    },

    async count(userId) {
      if (!isRowId(userId)) return 0;
      const [row] = (await table().where({ user_id: userId }).count({ n: '*' })) as Array<{ n: unknown }>;
      return Number(row?.n ?? 0);
    },
  };
}
