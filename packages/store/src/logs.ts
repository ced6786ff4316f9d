import type { Knex } from 'knex';
import { FwError, LOGIN_FAILURE_REASON, type LoginFailureReason } from '@fw/core';
import type { RepositoryContext } from './context.js';
import {
  checkInteger,
  checkLimit,
  checkOneOf,
  checkOptionalDate,
  checkOptionalId,
  checkText,
  clip,
  insertReturningId,
  logText,
  isRowId,
  toBoolean,
  toId,
  toOptionalId,
  toOptionalString,
  toRequiredDate,
} from './values.js';

/** One sign-in, successful or failed, as stored in `fw_login_log`. */
export interface FwLoginLogRecord {
  id: number;
  /**
   * Null when the user was deleted since, signed in through an account with no `fw_user` row, or
   * (failed rows) the account is unknown.
   */
  userId: number | null;
  /** The user's stored account; on a failed row of an unknown account, the account as typed (cut to 64). */
  account: string;
  loginTime: Date;
  ip: string | null;
  userAgent: string | null;
  /** How the user signed in: `password`, `oauth:<provider>`, … */
  method: string;
  /** Lowercase hex SHA-256 of the token issued (never the token itself). */
  tokenHash: string | null;
  /** The sign-in was an administrator's (the stored flag, or a login hook that said so). */
  admin: boolean;
  /** False for a failed sign-in (rows written before migration `0012_login_log_failures` are successes). */
  success: boolean;
  /** Why a failed sign-in failed, as a class; null on successes. */
  reason: LoginFailureReason | null;
  /** The account the client sent, cleaned (see `logText`); null when none was typed (single sign-on successes, summaries). */
  accountTyped: string | null;
  /** How many attempts the row stands for: 1, or on a `rate-limited` summary row the failures not written one by one. */
  attempts: number;
}

/** What `loginLogs.insert` accepts. Over-long ip / user agent values are cut to their column size. */
export interface LoginLogInput {
  userId: number | null;
  /** At most 64 characters. */
  account: string;
  ip?: string | null;
  userAgent?: string | null;
  /** At most 64 characters. */
  method: string;
  /** Lowercase hex SHA-256 (64 characters) of the issued token. */
  tokenHash?: string | null;
  /** The sign-in was an administrator's. @default false */
  admin?: boolean;
  /** @default now */
  loginTime?: Date;
  /** False records a failed sign-in, which then needs a `reason`. @default true */
  success?: boolean;
  /** A failed sign-in's class; required when `success` is false, refused otherwise. */
  reason?: LoginFailureReason | null;
  /**
   * The account as the client typed it: normalised to NFC, unprintable characters replaced by
   * U+FFFD, cut to 128 characters. Never a password.
   */
  accountTyped?: string | null;
  /** Attempts the row stands for (a summary row's count). @default 1 */
  attempts?: number;
}

/** Filters of `loginLogs.list`. */
export interface LoginLogListOptions {
  /** Only this user's sign-ins. */
  userId?: number;
  /** Only successful (true) or failed (false) sign-ins. */
  success?: boolean;
  /** @default 100 */
  limit?: number;
}

/** The `fw_login_log` table. */
export interface LoginLogRepository {
  /**
   * Records one sign-in, successful or failed.
   * @throws {FwError} `VALIDATION_FAILED` for a missing account or method, a malformed token hash,
   * or a failed row without a known reason class (a successful one with a reason).
   */
  insert(input: LoginLogInput): Promise<FwLoginLogRecord>;
  /** Sign-ins, newest first. */
  list(options?: LoginLogListOptions): Promise<FwLoginLogRecord[]>;
  /**
   * Where each of these tokens was issued (the sign-in row that recorded its hash), keyed by hash;
   * hashes without a row, or malformed, are left out. Reads only the columns every version of the
   * table has, through the `token_hash` index. At most 1000 hashes per call.
   */
  origins(tokenHashes: readonly string[]): Promise<Map<string, LoginOrigin>>;
}

/** The sign-in a token came from, as {@link LoginLogRepository.origins} reads it. */
export interface LoginOrigin {
  ip: string | null;
  userAgent: string | null;
  /** How the user signed in: `password`, `oauth:<provider>`, `open-api:<appId>`, … */
  method: string;
  loginTime: Date;
}

/** Outcome values of `fw_operate_log.status`. */
export const OPERATE_STATUS = Object.freeze({ SUCCESS: 'success', FAILURE: 'failure' } as const);
/** One of {@link OPERATE_STATUS}. */
export type OperateStatus = (typeof OPERATE_STATUS)[keyof typeof OPERATE_STATUS];
const OPERATE_STATUSES = Object.values(OPERATE_STATUS);

/** One data operation, as stored in `fw_operate_log`. */
export interface FwOperateLogRecord {
  id: number;
  userId: number | null;
  account: string | null;
  ip: string | null;
  /** The model's name. */
  model: string;
  /** `add`, `update` (the edit form and cell edits alike), `delete`, `copy`, `import`. */
  action: string;
  /** Where the operation came from: `http` (data API), `ai` (AI tools), `import`. */
  source: string;
  /** The row's primary key, as text. */
  targetId: string | null;
  /** The row before the change, as stored (JSON text). */
  beforeData: string | null;
  /** The request body, as stored (JSON text). */
  request: string | null;
  status: OperateStatus;
  /** The failure message when `status` is `failure`. */
  error: string | null;
  durationMs: number;
  createdAt: Date;
  /** The batch the operation belongs to (a bulk edit, a bulk delete, a restore): a UUID, or null. */
  batch: string | null;
}

/** What `operateLogs.insert` accepts. */
export interface OperateLogInput {
  userId?: number | null;
  account?: string | null;
  ip?: string | null;
  /** At most 64 characters. */
  model: string;
  /** At most 32 characters. */
  action: string;
  /** @default 'http' */
  source?: string;
  targetId?: string | number | null;
  /** Stored as is when a string, else as JSON. */
  beforeData?: unknown;
  /** Stored as is when a string, else as JSON. */
  request?: unknown;
  status: OperateStatus;
  error?: string | null;
  /** @default 0 */
  durationMs?: number;
  /** @default now */
  createdAt?: Date;
  /** At most 36 characters (a UUID). @default null */
  batch?: string | null;
}

/** Filters of `operateLogs.list`. */
export interface OperateLogListOptions {
  /** Only operations on this model. */
  model?: string;
  /** Only operations of this user (issue 20 §6: a person's recent edits on the home page). */
  userId?: number;
  /** @default 100 */
  limit?: number;
}

/** The `fw_operate_log` table. */
export interface OperateLogRepository {
  /**
   * Records one operation; with `transaction`, as part of it (the row commits or rolls back with
   * the change it records).
   * @throws {FwError} `VALIDATION_FAILED` for a missing model, action or status.
   */
  insert(input: OperateLogInput, options?: { transaction?: Knex.Transaction }): Promise<FwOperateLogRecord>;
  /** Operations, newest first. */
  list(options?: OperateLogListOptions): Promise<FwOperateLogRecord[]>;
}

type Row = Record<string, unknown>;

function toLoginLog(row: Row): FwLoginLogRecord {
  return {
    id: toId(row.id),
    userId: toOptionalId(row.user_id),
    account: String(row.account),
    loginTime: toRequiredDate(row.login_time),
    ip: toOptionalString(row.ip),
    userAgent: toOptionalString(row.user_agent),
    method: String(row.method),
    // PostgreSQL pads char(n); hashes are exactly 64 characters, but a hand-written row may not be.
    tokenHash: row.token_hash === null || row.token_hash === undefined ? null : String(row.token_hash).trimEnd(),
    admin: toBoolean(row.is_admin),
    // A row written by a store that predates the migration's columns reads as a success.
    success: row.success === undefined || row.success === null ? true : toBoolean(row.success),
    reason: (toOptionalString(row.reason) as LoginFailureReason | null) ?? null,
    accountTyped: toOptionalString(row.account_typed),
    attempts: row.attempts === undefined || row.attempts === null ? 1 : Number(row.attempts),
  };
}

const FAILURE_REASONS = Object.values(LOGIN_FAILURE_REASON);

function toOperateLog(row: Row): FwOperateLogRecord {
  return {
    id: toId(row.id),
    userId: toOptionalId(row.user_id),
    account: toOptionalString(row.account),
    ip: toOptionalString(row.ip),
    model: String(row.model),
    action: String(row.action),
    source: String(row.source),
    targetId: toOptionalString(row.target_id),
    beforeData: toOptionalString(row.before_data),
    request: toOptionalString(row.request),
    status: String(row.status) as OperateStatus,
    error: toOptionalString(row.error),
    durationMs: Number(row.duration_ms),
    createdAt: toRequiredDate(row.created_at),
    // A row written before migration 0017 has no batch.
    batch: toOptionalString(row.batch) ?? null,
  };
}

function asText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The login-log repository of one store. */
export function createLoginLogRepository(ctx: RepositoryContext): LoginLogRepository {
  const { knex, dialect } = ctx;
  return {
    async insert(input) {
      const tokenHash = input.tokenHash ?? null;
      if (tokenHash !== null && !/^[0-9a-f]{64}$/.test(tokenHash)) {
        const message = 'must be the lowercase hex SHA-256 of the token (64 characters)';
        throw new FwError('VALIDATION_FAILED', `tokenHash ${message}`, { details: [{ path: 'tokenHash', type: 'matches', message }] });
      }
      const success = input.success !== false;
      if (success && input.reason !== undefined && input.reason !== null) {
        const message = 'only a failed sign-in has a reason';
        throw new FwError('VALIDATION_FAILED', `reason ${message}`, { details: [{ path: 'reason', type: 'oneOf', message }] });
      }
      const row = {
        user_id: checkOptionalId('userId', input.userId),
        // A failed row's account may be the typed one: cleaned like account_typed, never refused for it.
        account: checkText('account', success ? input.account : logText(input.account, 64), 64),
        login_time: checkOptionalDate('loginTime', input.loginTime) ?? new Date(),
        ip: clip(input.ip, 64),
        user_agent: success ? clip(input.userAgent, 512) : logText(input.userAgent, 512),
        method: checkText('method', input.method, 64),
        token_hash: tokenHash,
        is_admin: input.admin === true,
        success,
        reason: success ? null : checkOneOf('reason', input.reason, FAILURE_REASONS),
        account_typed: logText(input.accountTyped, 128),
        attempts: input.attempts === undefined ? 1 : checkInteger('attempts', input.attempts, 1),
      };
      if (row.attempts < 1) {
        const message = 'must be at least 1';
        throw new FwError('VALIDATION_FAILED', `attempts ${message}`, { details: [{ path: 'attempts', type: 'min', message }] });
      }
      const id = await insertReturningId(knex, dialect, 'fw_login_log', row);
      return toLoginLog({ id, ...row });
    },

    async list(options = {}) {
      let query = knex('fw_login_log').orderBy('login_time', 'desc').orderBy('id', 'desc').limit(checkLimit(options.limit, 100)).select('*');
      if (options.userId !== undefined) {
        if (!isRowId(options.userId)) return [];
        query = query.where('user_id', options.userId);
      }
      if (options.success !== undefined) query = query.where('success', options.success === true);
      return (await query).map(toLoginLog);
    },

    async origins(tokenHashes) {
      const hashes = [...new Set(tokenHashes.filter((hash) => typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash)))].slice(0, 1000);
      const found = new Map<string, LoginOrigin>();
      if (hashes.length === 0) return found;
      // Only rows that issued a token carry its hash (failed sign-ins, when logged, have none).
      const rows: Array<Record<string, unknown>> = await knex('fw_login_log')
        .whereIn('token_hash', hashes)
        .orderBy('id', 'asc')
        .select('token_hash', 'ip', 'user_agent', 'method', 'login_time');
      for (const row of rows) {
        found.set(String(row.token_hash).trimEnd(), {
          ip: toOptionalString(row.ip),
          userAgent: toOptionalString(row.user_agent),
          method: String(row.method),
          loginTime: toRequiredDate(row.login_time),
        });
      }
      return found;
    },
  };
}

/** The operate-log repository of one store. */
export function createOperateLogRepository(ctx: RepositoryContext): OperateLogRepository {
  const { knex, dialect } = ctx;
  return {
    async insert(input, options = {}) {
      const row = operateLogRow(input);
      const id = await insertReturningId(options.transaction ?? knex, dialect, 'fw_operate_log', row);
      return toOperateLog({ id, ...row });
    },

    async list(options = {}) {
      let query = knex('fw_operate_log').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(checkLimit(options.limit, 100)).select('*');
      if (options.model !== undefined) query = query.where('model', options.model);
      if (options.userId !== undefined) {
        if (!isRowId(options.userId)) return [];
        query = query.where('user_id', options.userId);
      }
      return (await query).map(toOperateLog);
    },
  };
}

/**
 * The `fw_operate_log` columns of an entry, checked and clipped as `operateLogs.insert` writes
 * them; for a writer that inserts the row on a connection of its own (the data API's synchronous
 * SQLite write). @internal
 */
export function operateLogRow(input: OperateLogInput) {
  return {
    user_id: checkOptionalId('userId', input.userId),
    account: clip(input.account, 64),
    ip: clip(input.ip, 64),
    model: checkText('model', input.model, 64),
    action: checkText('action', input.action, 32),
    source: input.source === undefined ? 'http' : checkText('source', input.source, 16),
    target_id: clip(input.targetId, 64),
    before_data: asText(input.beforeData),
    request: asText(input.request),
    status: checkOneOf('status', input.status, OPERATE_STATUSES),
    error: asText(input.error),
    duration_ms: checkInteger('durationMs', input.durationMs, 0),
    created_at: checkOptionalDate('createdAt', input.createdAt) ?? new Date(),
    batch: input.batch === undefined || input.batch === null ? null : checkText('batch', input.batch, 36),
  };
}
