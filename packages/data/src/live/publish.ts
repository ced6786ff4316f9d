// Publishing committed changes on the live bus (issue 24 §2). Writers call `changed` once their
// transaction committed; rows of one model, kind, actor and changed fields are gathered until the
// writer's synchronous run of after-commit work ends (setImmediate), then go out as messages of
// at most 1,000 ids. Nothing is read here: the write path pays one bus publish per message.
import type { FwUser } from '@fw/core';
import { liveMessageId, type LiveBus, type LiveMessage } from './bus.js';

/** Most row ids in one message. */
export const LIVE_IDS_PER_MESSAGE = 1000;

type Kind = LiveMessage['kind'];

interface Pending {
  model: string;
  kind: Kind;
  actor: LiveMessage['actor'];
  changed?: string[];
  ids: number[];
  // The operate-log row of each id, where known (undefined where not), parallel to ids.
  logIds: Array<number | undefined>;
  batch?: string;
}

/** Where the operate log holds a change's rows before it (see {@link LiveMessage.logIds}). */
export interface LiveLogRef {
  /** The operate-log row of a one-row change. */
  logId?: number;
  /** The batch of a bulk write (its log rows carry it). */
  batch?: string;
}

/** Who made a change, as a message names them. */
export function liveActor(user: Pick<FwUser, 'id' | 'account'> & { name?: string | null }): LiveMessage['actor'] {
  return { id: user.id, account: user.account, ...(user.name ? { name: user.name } : {}) };
}

/** Gathers committed changes and publishes them on a bus. */
export class LivePublisher {
  readonly origin: string;
  readonly #bus: LiveBus;
  readonly #onError: (error: unknown) => void;
  #pending = new Map<string, Pending>();
  #flush: NodeJS.Immediate | undefined;

  constructor(bus: LiveBus, origin: string, onError: (error: unknown) => void) {
    this.#bus = bus;
    this.origin = origin;
    this.#onError = onError;
  }

  /**
   * Notes committed changes of `ids` (to be published shortly, in order of arrival); `log` says
   * where the operate log holds the rows before an update or delete.
   */
  changed(model: string, kind: Kind, ids: readonly number[], actor: LiveMessage['actor'], changed?: readonly string[], log: LiveLogRef = {}): void {
    if (ids.length === 0) return;
    const fields = changed ? [...changed].sort() : undefined;
    const key = `${model}\u0000${kind}\u0000${actor.id}\u0000${fields?.join(',') ?? ''}\u0000${log.batch ?? ''}`;
    let entry = this.#pending.get(key);
    if (!entry) {
      entry = { model, kind, actor, ids: [], logIds: [], ...(fields ? { changed: fields } : {}), ...(log.batch ? { batch: log.batch } : {}) };
      this.#pending.set(key, entry);
    }
    for (const id of ids) {
      entry.ids.push(id);
      entry.logIds.push(log.logId);
    }
    this.#flush ??= setImmediate(() => this.flush());
  }

  /** Publishes what was gathered now. */
  flush(): void {
    if (this.#flush) clearImmediate(this.#flush);
    this.#flush = undefined;
    const pending = [...this.#pending.values()];
    this.#pending = new Map();
    const at = new Date().toISOString();
    for (const entry of pending) {
      for (let i = 0; i < entry.ids.length; i += LIVE_IDS_PER_MESSAGE) {
        const logIds = entry.logIds.slice(i, i + LIVE_IDS_PER_MESSAGE).filter((id) => id !== undefined);
        const message: LiveMessage = {
          id: liveMessageId(this.origin),
          origin: this.origin,
          model: entry.model,
          kind: entry.kind,
          ids: entry.ids.slice(i, i + LIVE_IDS_PER_MESSAGE),
          actor: entry.actor,
          at,
          ...(entry.changed ? { changed: entry.changed } : {}),
          ...(logIds.length > 0 ? { logIds } : {}),
          ...(entry.batch ? { batch: entry.batch } : {}),
        };
        this.#bus.publish(message).catch(this.#onError);
      }
    }
  }
}
