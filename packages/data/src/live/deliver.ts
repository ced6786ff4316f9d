// Delivery of committed changes to the open streams of one hub (issue 24 §2), in batches. While a
// delivery runs, messages that arrive wait in the hub's queue; the next delivery takes the waiting
// messages of one model together (at most BATCH_MESSAGES messages or BATCH_IDS row ids) and pays
// once for the batch what it used to pay per message: one read of the rows, one grants version,
// one power check and one view (visibility, afterFetch) per viewer. Each stream still gets every
// message's events in order, each under its message's own `id:` (so Last-Event-ID resumes stay
// exact), and all its events of the batch in one write. What is the same for many is worked out
// once: the events a viewer sees and their text (per viewer, or per batch when the model has no
// afterFetch), the judgement of the rows (per row filter), the bytes of a write (per viewer's
// streams that were told the same); a stream itself only walks the messages that can concern it.
import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { Actor, DataService } from '../service.js';
import type { LiveMessage } from './bus.js';
import { beforeRows } from './before-rows.js';
import { eventText, type LiveStream } from './stream.js';
import { NO_EVENTS, indexChanges, streamEvents, viewShare, viewerEvents, viewsOfBatch, type BatchIndex, type BatchViews, type EventShare, type LiveChange, type LiveEvent } from './viewer.js';

/**
 * Most messages delivered as one batch. As many as the id bound allows: under a steady stream of
 * edits a delivery must take what arrived during the last one, or the queue grows without end (64
 * fell behind at about 400 edits a second in bench/live.bench.ts).
 */
export const BATCH_MESSAGES = 1000;
/** Most row ids in one batch (a message alone may carry up to 1,000 of its own). */
export const BATCH_IDS = 1000;

/** One message waiting for delivery, and the streams it goes to (all of its model's, or one resuming stream). */
export interface LiveDelivery {
  message: LiveMessage;
  streams: readonly LiveStream[];
}

/**
 * Takes the next batch out of `queue`: its first delivery and the later ones of the same model,
 * within the bounds. Deliveries of other models keep their places: a stream follows one model,
 * so no stream sees its messages out of order.
 */
export function takeBatch(queue: LiveDelivery[]): LiveDelivery[] {
  const first = queue[0];
  if (!first) return [];
  const batch: LiveDelivery[] = [];
  const rest: LiveDelivery[] = [];
  let ids = 0;
  // Once one of the model's messages is left for later, so are all after it (they keep their order).
  let full = false;
  for (const delivery of queue) {
    if (delivery.message.model !== first.message.model) rest.push(delivery);
    else if (!full && (batch.length === 0 || (batch.length < BATCH_MESSAGES && ids + delivery.message.ids.length <= BATCH_IDS))) {
      batch.push(delivery);
      ids += delivery.message.ids.length;
    } else {
      full = true;
      rest.push(delivery);
    }
  }
  queue.splice(0, queue.length, ...rest);
  return batch;
}

/** Delivers `batch` (one model's messages, in order) to their streams; a viewer whose hook fails gets a reload. */
export async function deliverBatch(service: DataService, batch: readonly LiveDelivery[], onError: (error: unknown) => void): Promise<void> {
  const live = batch.filter((d) => d.streams.some((s) => !s.closed));
  const model = live[0] && service.registry.get(live[0].message.model);
  if (!model) return;
  const pk = model.primaryKey;
  const idsOf = (message: LiveMessage) => message.ids.filter((id) => Number.isSafeInteger(id));
  // One read of the rows of every insert and update in the batch.
  const readIds = new Set<number>();
  for (const { message } of live) if (message.kind !== 'delete') for (const id of idsOf(message)) readIds.add(id);
  const read = new Map<number, FormRow>();
  if (readIds.size > 0) for (const row of await service.rawRows(model, [...readIds])) read.set(Number(row[pk]), row);
  const changes: LiveChange[] = [];
  for (const { message } of live) {
    const ids = idsOf(message);
    let before: Promise<ReadonlyMap<number, FormRow>> | undefined;
    changes.push({
      message,
      rows: message.kind === 'delete' ? [] : [...new Set(ids)].map((id) => read.get(id)).filter((row) => row !== undefined),
      trashed: message.kind === 'delete' && model.trash && ids.length > 0 ? await service.store.trash.findRows(model.name, ids.map(String)) : [],
      // Read once for all viewers, and only when one of them has a row filter that needs it.
      before: () => (before ??= beforeRows(service.store.knex, model, message)),
    });
  }
  // Which messages each stream gets, in order. Usually every message of the batch went to the same
  // streams (the hub hands out one list while its model's streams stay the same): one pass then.
  const order = new Map<LiveStream, number[]>();
  const all = live.map((_, i) => i);
  if (live.every((d) => d.streams === live[0]!.streams)) for (const stream of live[0]!.streams) order.set(stream, all);
  else {
    live.forEach(({ streams }, i) => {
      for (const stream of streams) {
        const list = order.get(stream);
        if (list) list.push(i);
        else order.set(stream, [i]);
      }
    });
  }
  // One grants version for the batch: the power resolver caches by it. The streams of one user
  // share what that user may see (power, visibility, afterFetch), worked out one user after another;
  // users with the same row filter share its judgement of the rows (ViewShare).
  const version = await service.store.grants.version();
  // Per user: the views of the batch's changes, null when they may not query the model, 'error' when a hook failed.
  const views = new Map<number, BatchViews | null | 'error'>();
  const share = viewShare();
  const index = (share.index = indexChanges(model, changes));
  for (const stream of order.keys()) {
    const actor: Actor = stream.actor;
    if (stream.closed || views.has(actor.user.id)) continue;
    try {
      const power = await service.power(model, actor.user, version);
      views.set(actor.user.id, power.query ? await viewsOfBatch(service, model, { ...actor, grantsVersion: version }, changes, share) : null);
    } catch (error) {
      onError(error);
      views.set(actor.user.id, 'error');
    }
  }
  // Per user, worked out on the first of their streams: the events all their streams get of each
  // message (the inserts and updates they see) with their text, and which messages can concern
  // them at all (see UserPlan); each stream adds only what depends on what it was told (streamEvents).
  const plans = new Map<number, UserPlan>();
  const planShare: PlanShare = { events: model.dataProxy.afterFetch ? undefined : [], texts: new Map() };
  // Streams of one user that were given the same texts (the usual case: nothing of their own) share
  // one Buffer, so the batch's text is joined and encoded once per user, not once per stream.
  const encoded = new Map<number, Array<{ parts: string[]; bytes: Buffer }>>();
  for (const [stream, indices] of order) {
    if (stream.closed) continue;
    const userId = stream.actor.user.id;
    const view = views.get(userId);
    // A hook that fails for one viewer closes their streams (they reload), never the others'.
    if (view === 'error') stream.reload('error');
    else if (!view) stream.close('power');
    if (!view || view === 'error') continue;
    let plan = plans.get(userId);
    if (!plan) plans.set(userId, (plan = planFor(model, live, changes, view, userId, planShare)));
    const known = stream.known;
    let walk = indices;
    if (indices === all) {
      // Only the messages that concern the user, and the updates of a row this stream was told of
      // that the user does not see now (it may have left their table).
      const hits = toldOf(known, index, view.visible);
      walk = hits ? [...new Set([...plan.concern, ...hits])].sort((x, y) => x - y) : plan.concern;
    }
    const parts: string[] = [];
    let count = 0;
    for (const i of walk) {
      const shared = plan.shared[i] ?? NOTHING;
      const own = (plan.mayOwn[i] ?? changes[i]!.message.kind === 'update') ? streamEvents(model, changes[i]!, view.views[i]!, known, userId) : NO_EVENTS;
      if (shared.events.length === 0 && own.length === 0) continue;
      stream.remember(shared.events);
      if (shared.text) parts.push(shared.text);
      if (own.length > 0) {
        stream.remember(own);
        for (const event of own) parts.push(eventText(live[i]!.message.id, event));
      }
      count += shared.events.length + own.length;
    }
    if (count === 0 || stream.closed) continue;
    let texts = encoded.get(userId);
    if (!texts) encoded.set(userId, (texts = []));
    let same = texts.find((e) => sameParts(e.parts, parts));
    if (!same) {
      same = { parts, bytes: Buffer.from(parts.join('')) };
      if (texts.length < MAX_SHARED) texts.push(same);
    }
    stream.write(same.bytes, count);
  }
}

/**
 * What a batch holds for one user, the same on each of their streams, worked out for the messages
 * of their {@link BatchViews.active} only: any other message shows them nothing, and gives a stream
 * something only when it updates a row the stream was told of (see {@link toldOf}).
 */
interface UserPlan {
  /** Per message looked at: the events every stream of the user gets, and their text. */
  shared: Array<{ events: readonly LiveEvent[]; text: string } | undefined>;
  /** The messages that give the user's streams something whatever they were told: events of their own, deletes, rows that left by the logged row. */
  concern: number[];
  /** Per message looked at: whether a stream may have events of its own (a delete, or an update of a row the user does not see now). */
  mayOwn: Array<boolean | undefined>;
}

const NOTHING = { events: NO_EVENTS, text: '' };

function planFor(model: ModelDefinition, live: readonly LiveDelivery[], changes: readonly LiveChange[], batch: BatchViews, userId: number, share: PlanShare): UserPlan {
  const plan: UserPlan = { shared: [], concern: [], mayOwn: [] };
  for (const i of batch.active) {
    const { message } = live[i]!;
    const view = batch.views[i]!;
    const events = viewerEvents(model, changes[i]!, view, userId, share.events && (share.events[i] ??= new Map()));
    let text = '';
    for (const event of events) {
      let one = share.texts.get(event);
      if (one === undefined) share.texts.set(event, (one = eventText(message.id, event)));
      text += one;
    }
    plan.shared[i] = { events, text };
    let concerns = events.length > 0 || message.kind === 'delete';
    let mayOwn = message.kind === 'delete';
    if (message.kind === 'update') {
      for (const id of message.ids) {
        if (view.visible.has(id)) continue;
        mayOwn = true;
        if (view.wasVisible.has(id)) concerns = true;
      }
    }
    plan.mayOwn[i] = mayOwn;
    if (concerns) plan.concern.push(i);
  }
  return plan;
}

/**
 * The updates of the batch naming a row `known` holds that the viewer does not see now: the only
 * messages outside their plan's `concern` that can give the stream anything (the row left their
 * table). Walks whichever is smaller, what the stream was told or the rows the batch updated.
 */
function toldOf(known: ReadonlySet<number>, index: BatchIndex, visible: ReadonlySet<number>): number[] | undefined {
  let hits: number[] | undefined;
  if (known.size <= index.updated.size) {
    for (const id of known) {
      const messages = visible.has(id) ? undefined : index.updated.get(id);
      if (messages) (hits ??= []).push(...messages);
    }
  } else {
    for (const [id, messages] of index.updated) if (known.has(id) && !visible.has(id)) (hits ??= []).push(...messages);
  }
  return hits;
}

/** What the users' plans of one batch share: events made for one row object (when there is no afterFetch, per message), and the text of each event. */
interface PlanShare {
  events: EventShare[] | undefined;
  texts: Map<LiveEvent, string>;
}

/** Different texts kept per user for sharing (a further stream's different text is encoded on its own). */
const MAX_SHARED = 8;

/** Whether two lists hold the same texts (usually the very same strings, compared by reference first). */
function sameParts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}
