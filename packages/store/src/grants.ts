import { MENU_STATUS } from '@fw/core';
import type { Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { isRowId, isUniqueViolation } from './values.js';

const VERSION_KEY = 'grants_version';

/**
 * What a user may see and do, as menu codes, and a version number that changes whenever a role, a
 * menu or a user's roles change: caches of effective power key on it, so every instance sharing
 * the database notices a change on its next request.
 */
export interface GrantsRepository {
  /** The current grants version (0 before the first change). */
  version(): Promise<number>;
  /** Marks the grants as changed. The repositories call it after every write that changes grants. */
  bump(): Promise<void>;
  /** Codes of the menus granted to the user through roles whose status is normal, disabled menus left out. */
  codesForUser(userId: number): Promise<Set<string>>;
}

/** @internal */
export function createGrantsRepository(ctx: RepositoryContext): GrantsRepository {
  const { knex } = ctx;

  async function bumpOnce(db: Knex): Promise<void> {
    const updated = await db('fw_meta').where('name', VERSION_KEY).increment('value', 1);
    if (updated === 0) await db('fw_meta').insert({ name: VERSION_KEY, value: 1 });
  }

  return {
    async version() {
      const row: { value?: unknown } | undefined = await knex('fw_meta').where('name', VERSION_KEY).first('value');
      return row ? Number(row.value) : 0;
    },

    async bump() {
      try {
        await bumpOnce(knex);
      } catch (error) {
        // Two first bumps raced on the insert: the other one created the row, so count ours on it.
        if (!isUniqueViolation(error)) throw error;
        await bumpOnce(knex);
      }
    },

    async codesForUser(userId) {
      if (!isRowId(userId)) return new Set();
      const rows: Array<{ code: string | null }> = await knex('fw_menu')
        .whereIn(
          'id',
          knex('fw_role_menu')
            .join('fw_user_role', 'fw_user_role.role_id', 'fw_role_menu.role_id')
            .join('fw_role', 'fw_role.id', 'fw_role_menu.role_id')
            .where('fw_user_role.user_id', userId)
            .where('fw_role.status', 'normal')
            .select('fw_role_menu.menu_id'),
        )
        .whereNot('status', MENU_STATUS.DISABLED)
        .whereNotNull('code')
        .select('code');
      return new Set(rows.map((r) => r.code as string));
    },
  };
}
