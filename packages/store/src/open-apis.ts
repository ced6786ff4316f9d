import { randomBytes } from 'node:crypto';
import { FwError, hashPassword, verifyPassword, type PasswordHash } from '@fw/core';
import type { RepositoryContext } from './context.js';
import { checkOneOf, checkOptionalDate, checkText, conflictOnDuplicate, insertReturningId, isRowId, toId, toDate, toRequiredDate } from './values.js';

// The login log names an exchange `open-api:<appId>` in a 64-character column.
const APP_ID_MAX = 55;

/** Status values of `fw_open_api.status`: only `normal` keys verify. */
export const OPEN_API_STATUS = Object.freeze({ NORMAL: 'normal', LOCKED: 'locked' } as const);
/** One of {@link OPEN_API_STATUS}. */
export type OpenApiStatus = (typeof OPEN_API_STATUS)[keyof typeof OPEN_API_STATUS];
const OPEN_API_STATUSES = Object.values(OPEN_API_STATUS);

/** An open-API key as the repositories return it: never the secret or its hash. */
export interface FwOpenApiRecord {
  id: number;
  /** Public key id, unique. */
  appId: string;
  name: string;
  /** The user the key acts as. */
  userId: number;
  /** After this instant the key no longer verifies; null = never expires. */
  expireDate: Date | null;
  status: OpenApiStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** What `openApis.create` accepts. */
export interface CreateOpenApiInput {
  /** Public key id, at most 64 characters. @default 16 random URL-safe characters */
  appId?: string;
  /** At most 128 characters. */
  name: string;
  /** Id of the existing user the key acts as. */
  userId: number;
  /** @default null (never expires) */
  expireDate?: Date | null;
  /** @default 'normal' */
  status?: OpenApiStatus;
}

/** A new key: the record plus its secret, which is shown this once and stored only hashed. */
export interface CreatedOpenApi {
  record: FwOpenApiRecord;
  /** 43 random URL-safe characters (256 bits). */
  secret: string;
}

/** The `fw_open_api` table. */
export interface OpenApiRepository {
  /**
   * Creates a key with a fresh random secret.
   * @throws {FwError} `CONFLICT` when the app id exists; `VALIDATION_FAILED` for a bad field or unknown user.
   */
  create(input: CreateOpenApiInput): Promise<CreatedOpenApi>;
  /**
   * The key when `secret` matches and the key is `normal` and not expired; otherwise undefined.
   * Takes the same time whether or not the app id exists.
   */
  verify(appId: string, secret: string): Promise<FwOpenApiRecord | undefined>;
  /** The key with this app id, or undefined. */
  findByAppId(appId: string): Promise<FwOpenApiRecord | undefined>;
  /** Every key, by id. */
  list(): Promise<FwOpenApiRecord[]>;
  /** Deletes a key. @returns false when there was none. */
  delete(id: number): Promise<boolean>;
}

type Row = Record<string, unknown>;

function toRecord(row: Row): FwOpenApiRecord {
  return {
    id: toId(row.id),
    appId: String(row.app_id),
    name: String(row.name),
    userId: toId(row.user_id),
    expireDate: toDate(row.expire_date),
    status: String(row.status) as OpenApiStatus,
    createdAt: toRequiredDate(row.created_at),
    updatedAt: toRequiredDate(row.updated_at),
  };
}

/** The open-API key repository of one store. */
export function createOpenApiRepository(ctx: RepositoryContext): OpenApiRepository {
  const { knex, dialect } = ctx;
  // Compared against when the app id is unknown, so that answer costs one scrypt like any other.
  let decoy: Promise<PasswordHash> | undefined;

  async function findRow(appId: string): Promise<Row | undefined> {
    if (typeof appId !== 'string' || appId === '') return undefined;
    const row: Row | undefined = await knex('fw_open_api').where('app_id', appId).first();
    // A case- or accent-insensitive collation (MySQL, MariaDB, SQL Server) matches other spellings
    // of the id, and each spelling would have its own failure counter: only the id itself matches.
    return row && String(row.app_id) === appId ? row : undefined;
  }

  return {
    async create(input) {
      const appId = input.appId === undefined ? randomBytes(12).toString('base64url') : checkText('appId', input.appId, APP_ID_MAX);
      const name = checkText('name', input.name, 128);
      const expireDate = checkOptionalDate('expireDate', input.expireDate);
      const status = checkOneOf('status', input.status ?? OPEN_API_STATUS.NORMAL, OPEN_API_STATUSES);
      if (!isRowId(input.userId) || !(await knex('fw_user').where('id', input.userId).first('id'))) {
        const message = `names no existing user: ${JSON.stringify(input.userId)}`;
        throw new FwError('VALIDATION_FAILED', `userId ${message}`, { details: [{ path: 'userId', type: 'exists', message }] });
      }
      const secret = randomBytes(32).toString('base64url');
      const { hash, salt } = await hashPassword(secret);
      const now = new Date();
      const row = {
        app_id: appId,
        secret_hash: hash,
        secret_salt: salt,
        name,
        user_id: input.userId,
        expire_date: expireDate,
        status,
        created_at: now,
        updated_at: now,
      };
      const id = await conflictOnDuplicate(
        () => insertReturningId(knex, dialect, 'fw_open_api', row),
        'appId',
        `An open-API key with app id ${JSON.stringify(appId)} already exists`,
      );
      return { record: toRecord({ id, ...row }), secret };
    },

    async verify(appId, secret) {
      const row = await findRow(appId);
      const stored: PasswordHash = row ? { hash: String(row.secret_hash), salt: String(row.secret_salt) } : await (decoy ??= hashPassword(randomBytes(32).toString('base64url')));
      // verifyPassword compares in constant time; run it before any early answer.
      const matches = await verifyPassword(typeof secret === 'string' ? secret : '', stored);
      if (!row || !matches) return undefined;
      const record = toRecord(row);
      if (record.status !== OPEN_API_STATUS.NORMAL) return undefined;
      if (record.expireDate !== null && record.expireDate.getTime() <= Date.now()) return undefined;
      return record;
    },

    async findByAppId(appId) {
      const row = await findRow(appId);
      return row ? toRecord(row) : undefined;
    },

    async list() {
      return (await knex('fw_open_api').orderBy('id').select('*')).map(toRecord);
    },

    async delete(id) {
      if (!isRowId(id)) return false;
      return (await knex('fw_open_api').where('id', id).delete()) > 0;
    },
  };
}
