import { hashPassword, USER_STATUS, type UserStatus } from '@fw/core';
import type { ListOptions, RepositoryContext } from './context.js';
import type { FwUserModel } from './models.js';
import { linkedIds, replaceLinks } from './links.js';
import { checkBoolean, checkOneOf, checkPassword, checkOptionalDate, checkOptionalText, checkText, conflictOnDuplicate, isRowId, paged, toId } from './values.js';

/** A user as the repositories return it: never the password hash or salt. */
export interface FwUserRecord {
  id: number;
  /** Login account, unique. */
  account: string;
  name: string | null;
  isAdmin: boolean;
  status: UserStatus;
  /** After this instant the account may no longer sign in; null = never expires. */
  expireDate: Date | null;
  /** Comma-separated IPs / CIDRs the user may sign in from; null = anywhere. */
  whiteIp: string | null;
  /** When the password was last set through `setPassword`; null = never since creation. */
  resetPwdTime: Date | null;
  /** False for users without a local password (directory or sign-on accounts). */
  hasPassword: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What `users.create` accepts. */
export interface CreateUserInput {
  /** Login account, at most 64 characters, unique. */
  account: string;
  /** Display name, at most 128 characters. */
  name?: string | null;
  /**
   * Clear-text password, hashed with scrypt before it is stored. Omit for users without a local
   * password. Not held to the password policy: this is the programmatic API, and the user-facing
   * paths (data API, change-pwd, first administrator, CLI) check `passwordPolicy` of `@fw/core`
   * before they call it.
   */
  password?: string | null;
  /**
   * Whether the user must change the given password at the first sign-in (until then the token
   * reaches only the password change). False records the password as the user's own choice
   * (`resetPwdTime` = now), as `setPassword` does.
   * @default true (an administrator set it)
   */
  mustChangePassword?: boolean;
  /** @default false */
  isAdmin?: boolean;
  /** @default 'normal' */
  status?: UserStatus;
  /** @default null (never expires) */
  expireDate?: Date | null;
  /** Comma-separated IPs / CIDRs, at most 1024 characters. @default null (anywhere) */
  whiteIp?: string | null;
}

/** What `users.update` accepts: any subset of the creation fields except the password (see `setPassword`). */
export type UpdateUserInput = Partial<Omit<CreateUserInput, 'password' | 'mustChangePassword'>>;

/** A user's stored password, for the login service to verify with core's `verifyPassword`. */
export interface UserCredentials {
  id: number;
  /** Hex scrypt hash. */
  hash: string;
  /** Hex salt. */
  salt: string;
}

/** The `fw_user` table and the user's role and organisation links. */
export interface UserRepository {
  /**
   * Creates a user, hashing the password. The password is not checked against the password
   * policy (see {@link CreateUserInput.password}).
   * @throws {FwError} `CONFLICT` (409) when the account exists; `VALIDATION_FAILED` (422) for a bad field.
   */
  create(input: CreateUserInput): Promise<FwUserRecord>;
  /** The user with this id, or undefined. */
  findById(id: number): Promise<FwUserRecord | undefined>;
  /**
   * The user with this account, or undefined. Letter case follows the database's collation
   * (ignored on MySQL, MariaDB and SQL Server by default); nothing else does: a spelling a
   * collation would also match (`àdmin`, `admin `) is another account.
   */
  findByAccount(account: string): Promise<FwUserRecord | undefined>;
  /** Users by id. */
  list(options?: ListOptions): Promise<FwUserRecord[]>;
  /**
   * Changes the given fields; returns the updated user, or undefined when there is none.
   * @throws {FwError} `CONFLICT` when renaming onto an existing account.
   */
  update(id: number, patch: UpdateUserInput): Promise<FwUserRecord | undefined>;
  /** The stored hash and salt of an account; undefined when the account does not exist or has no local password. */
  getCredentials(account: string): Promise<UserCredentials | undefined>;
  /**
   * Replaces the password (null removes the local password) and records `resetPwdTime`, so the
   * user is not asked to change it. Programmatic: not checked against the password policy, which
   * the user-facing paths apply before they call this.
   * @returns false when there is no such user.
   */
  setPassword(id: number, password: string | null): Promise<boolean>;
  /** Deletes the user with its role, organisation and open-API links. @returns false when there was none. */
  delete(id: number): Promise<boolean>;
  /**
   * Replaces the user's roles, in one transaction.
   * @throws {FwError} `ROW_NOT_FOUND` for an unknown user, `VALIDATION_FAILED` for unknown role ids.
   */
  setRoles(userId: number, roleIds: readonly number[]): Promise<void>;
  /** Ids of the user's roles, ascending. */
  roleIds(userId: number): Promise<number[]>;
  /**
   * Replaces the user's organisations, in one transaction.
   * @throws {FwError} `ROW_NOT_FOUND` for an unknown user, `VALIDATION_FAILED` for unknown org ids.
   */
  setOrgs(userId: number, orgIds: readonly number[]): Promise<void>;
  /** Ids of the user's organisations, ascending. */
  orgIds(userId: number): Promise<number[]>;
}

const USER_STATUSES = Object.values(USER_STATUS);

function toRecord(m: FwUserModel): FwUserRecord {
  return {
    id: toId(m.id),
    account: m.account,
    name: m.name ?? null,
    isAdmin: m.isAdmin,
    status: m.status as UserStatus,
    expireDate: m.expireDate ?? null,
    whiteIp: m.whiteIp ?? null,
    resetPwdTime: m.resetPwdTime ?? null,
    hasPassword: m.passwordHash !== null && m.passwordHash !== undefined,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/**
 * Whether a row the database matched is the account asked for. Collations of MySQL, MariaDB and
 * SQL Server also match other spellings (`àdmin`, `admin ` for `admin`); only letter case may
 * differ, which the failed-login counters fold too, so every spelling that reaches an account's
 * password shares that account's counter (issue 10 §2).
 */
function sameAccount(stored: unknown, asked: string): boolean {
  return typeof stored === 'string' && stored.toLowerCase() === asked.toLowerCase();
}

function duplicateAccount(account: string): string {
  return `An account named ${JSON.stringify(account)} already exists`;
}

/** The user repository of one store. */
export function createUserRepository(ctx: RepositoryContext): UserRepository {
  const { User } = ctx.models;

  async function findById(id: number): Promise<FwUserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await User.query().findById(id);
    return row ? toRecord(row) : undefined;
  }

  function checkPatch(patch: UpdateUserInput, creating: boolean): Partial<FwUserModel> {
    const out: Partial<FwUserModel> = {};
    if (creating || patch.account !== undefined) out.account = checkText('account', patch.account, 64);
    if (creating || patch.name !== undefined) out.name = checkOptionalText('name', patch.name, 128);
    if (creating || patch.isAdmin !== undefined) out.isAdmin = checkBoolean('isAdmin', patch.isAdmin, false);
    if (creating || patch.status !== undefined) out.status = checkOneOf('status', patch.status ?? USER_STATUS.NORMAL, USER_STATUSES);
    if (creating || patch.expireDate !== undefined) out.expireDate = checkOptionalDate('expireDate', patch.expireDate);
    if (creating || patch.whiteIp !== undefined) out.whiteIp = checkOptionalText('whiteIp', patch.whiteIp, 1024);
    return out;
  }

  return {
    async create(input) {
      const fields = checkPatch(input, true);
      let password: { hash: string; salt: string } | null = null;
      if (input.password !== undefined && input.password !== null) password = await hashPassword(checkPassword(input.password));
      const now = new Date();
      const chosen = password !== null && checkBoolean('mustChangePassword', input.mustChangePassword, true) === false;
      const inserted = await conflictOnDuplicate(
        () =>
          User.query().insert({
            ...fields,
            passwordHash: password?.hash ?? null,
            passwordSalt: password?.salt ?? null,
            ...(chosen ? { resetPwdTime: now } : {}),
            createdAt: now,
            updatedAt: now,
          }),
        'account',
        duplicateAccount(fields.account ?? ''),
      );
      const created = await findById(toId(inserted.id));
      if (!created) throw new Error(`fw_user row ${String(inserted.id)} vanished right after its insert`);
      return created;
    },

    findById,

    async findByAccount(account) {
      if (typeof account !== 'string' || account === '') return undefined;
      const row = await User.query().findOne({ account });
      return row && sameAccount(row.account, account) ? toRecord(row) : undefined;
    },

    async list(options = {}) {
      return (await paged(User.query().orderBy('id'), options)).map(toRecord);
    },

    async update(id, patch) {
      if (!isRowId(id)) return undefined;
      const fields = checkPatch(patch, false);
      if (Object.keys(fields).length > 0) {
        const count = await conflictOnDuplicate(
          () =>
            User.query()
              .findById(id)
              .patch({ ...fields, updatedAt: new Date() }),
          'account',
          duplicateAccount(fields.account ?? ''),
        );
        if (count === 0) return undefined;
      }
      return findById(id);
    },

    async getCredentials(account) {
      if (typeof account !== 'string' || account === '') return undefined;
      const row = await User.query().findOne({ account }).select('id', 'account', 'password_hash', 'password_salt');
      if (!row || !sameAccount(row.account, account) || !row.passwordHash || !row.passwordSalt) return undefined;
      return { id: toId(row.id), hash: row.passwordHash, salt: row.passwordSalt };
    },

    async setPassword(id, password) {
      if (!isRowId(id)) return false;
      const hashed = password === null ? null : await hashPassword(checkPassword(password));
      const now = new Date();
      const count = await User.query()
        .findById(id)
        .patch({ passwordHash: hashed?.hash ?? null, passwordSalt: hashed?.salt ?? null, resetPwdTime: now, updatedAt: now });
      return count > 0;
    },

    async delete(id) {
      if (!isRowId(id)) return false;
      return (await User.query().deleteById(id)) > 0;
    },

    async setRoles(userId, roleIds) {
      await replaceLinks(
        ctx,
        { table: 'fw_user_role', ownerColumn: 'user_id', targetColumn: 'role_id', ownerTable: 'fw_user', targetTable: 'fw_role', ownerName: 'user', path: 'roleIds' },
        userId,
        roleIds,
      );
      await ctx.grantsChanged();
    },

    roleIds(userId) {
      return linkedIds(ctx, 'fw_user_role', 'user_id', 'role_id', userId);
    },

    setOrgs(userId, orgIds) {
      return replaceLinks(
        ctx,
        { table: 'fw_user_org', ownerColumn: 'user_id', targetColumn: 'org_id', ownerTable: 'fw_user', targetTable: 'fw_org', ownerName: 'user', path: 'orgIds' },
        userId,
        orgIds,
      );
    },

    orgIds(userId) {
      return linkedIds(ctx, 'fw_user_org', 'user_id', 'org_id', userId);
    },
  };
}
