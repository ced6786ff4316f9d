// Sessions that a committed write ends: a user's, when their password, administrator flag or
// status changes or the account is deleted; an open-API key's, when the key changes or goes.
import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { endKeySessions, keyAppIds } from '../key-sessions.js';
import type { Actor, TokenRevoker } from '../service-types.js';

const USER_TABLE = 'fw_user';
/** Columns of `fw_user` that the sessions of a user depend on. */
const SESSION_COLUMNS = new Set(['password_hash', 'is_admin', 'status']);

/** Ends sessions after writes that change what they were granted on. Without a token service, it does nothing. */
export class SessionEnds {
  readonly #store: FwStore;
  readonly #tokens: TokenRevoker | undefined;

  constructor(store: FwStore, tokens: TokenRevoker | undefined) {
    this.#store = store;
    this.#tokens = tokens;
  }

  /**
   * True when an update of a user row changes what its sessions were granted on: the password,
   * the administrator flag or the status. Such a change ends the user's other sessions.
   */
  endsUserSessions(model: ModelDefinition, changes: FormRow): boolean {
    if (model.table !== USER_TABLE) return false;
    return Object.keys(changes).some((name) => SESSION_COLUMNS.has(model.fields[name]?.column ?? ''));
  }

  /** Ends every session of the user but the acting request's own (a change of one's own password keeps it). */
  async endUserSessions(userId: number, actor: Actor): Promise<void> {
    if (!this.#tokens) return;
    const keep = actor.user.id === userId && actor.token ? { except: actor.token } : undefined;
    // The change is committed; a store that cannot revoke must not pass as success, so this may throw (503).
    await this.#tokens.revokeUser(userId, keep);
  }

  /** Ends the tokens exchanged with these open-API keys (rows of `model`; nothing for other models). */
  async endKeySessions(model: ModelDefinition, keys: FormRow[]): Promise<void> {
    if (!this.#tokens?.revokeHash) return;
    const revoker = { revokeHash: this.#tokens.revokeHash.bind(this.#tokens) };
    // Committed already; like a user's sessions, a store that cannot revoke must not pass as success.
    await endKeySessions(this.#store, revoker, keyAppIds(model, keys));
  }

  /** After a committed delete: a deleted account's sessions end with it (stores without a foreign key keep them otherwise), and a deleted key's. */
  async endDeleted(model: ModelDefinition, ids: number[], rows: FormRow[]): Promise<void> {
    if (model.table === USER_TABLE && this.#tokens) for (const id of ids) await this.#tokens.revokeUser(id);
    await this.endKeySessions(model, rows);
  }
}
