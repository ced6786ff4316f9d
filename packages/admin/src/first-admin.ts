import { FwDefinitionError, passwordPolicy, type PasswordPolicy } from '@fw/core';
import type { FwStore, FwUserRecord } from '@fw/store';

/** The first administrator {@link fwAdmin} creates when the database has none. */
export interface FwFirstAdmin {
  /** Its login account. */
  account: string;
  /**
   * Its password: required and non-empty, so an unset variable (`password: process.env.ADMIN_PASSWORD`)
   * stops the start instead of creating an account nobody can sign in to. When the account is
   * created it must pass the password policy (see docs/login.md); the administrator is asked to
   * change it at the first sign-in.
   */
  password: string;
  /** Display name. @default the account */
  name?: string;
}

/**
 * Checks the `admin` option before anything is opened.
 * @throws {FwDefinitionError} when it is not `{ account, password }` with both non-empty strings.
 */
export function checkFirstAdmin(admin: unknown): FwFirstAdmin {
  if (typeof admin !== 'object' || admin === null) throw new FwDefinitionError('fwAdmin.admin', 'must be { account, password, name? }');
  const { account, password, name } = admin as Record<string, unknown>;
  if (typeof account !== 'string' || account.trim() === '') throw new FwDefinitionError('fwAdmin.admin.account', 'must be a non-empty string');
  if (typeof password !== 'string' || password.trim() === '') {
    throw new FwDefinitionError(
      'fwAdmin.admin.password',
      `must be a non-empty string, got ${password === undefined ? 'undefined (is its environment variable set?)' : JSON.stringify(password)}`,
    );
  }
  if (name !== undefined && typeof name !== 'string') throw new FwDefinitionError('fwAdmin.admin.name', 'must be a string');
  return { account, password, ...(name !== undefined ? { name } : {}) };
}

/** Whether `fw_user` holds at least one administrator. */
export async function hasAdministrator(store: FwStore): Promise<boolean> {
  return (await store.knex('fw_user').where('is_admin', true).first('id')) !== undefined;
}

/**
 * Creates the first administrator when `fw_user` has none; leaves the database alone otherwise
 * (the password of an existing administrator is never reset by a restart). The password is held to
 * `policy` only when the account is created: once an administrator exists the option is unused, and
 * a restart of a running deployment does not stop over it.
 * @returns the user created, or undefined when there already was an administrator.
 * @throws {FwDefinitionError} when the account exists but is not an administrator (promoting it
 *   silently would hand an existing person administration, and its password is not the one given),
 *   or when the password breaks the policy (naming every rule it breaks).
 */
export async function ensureFirstAdmin(store: FwStore, admin: FwFirstAdmin, policy: PasswordPolicy = passwordPolicy()): Promise<FwUserRecord | undefined> {
  if (await hasAdministrator(store)) return undefined;
  const existing = await store.users.findByAccount(admin.account);
  if (existing) {
    throw new FwDefinitionError(
      'fwAdmin.admin.account',
      `"${admin.account}" exists and is not an administrator; choose another account or make it one (fw user add --admin, or the user page)`,
    );
  }
  const refusals = policy.check(admin.password, { account: admin.account });
  if (refusals.length > 0) {
    throw new FwDefinitionError('fwAdmin.admin.password', `breaks the password policy: ${refusals.map((r) => `${r.message} (${r.type})`).join('; ')}`);
  }
  try {
    return await store.users.create({ account: admin.account, name: admin.name ?? admin.account, password: admin.password, isAdmin: true });
  } catch (error) {
    // Two instances starting together: the other one created it first.
    if (await hasAdministrator(store)) return undefined;
    throw error;
  }
}
