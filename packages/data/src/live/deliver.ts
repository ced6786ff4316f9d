// Delivery of committed changes to the open streams of one hub (issue 24 §2), in batches. While a
// delivery runs, messages that arrive wait in the hub's queue; the next delivery takes the waiting
// messages of one model together (at most BATCH_MESSAGES messages or BATCH_IDS row ids) and pays
// once for the batch what it used to pay per message: one read of the rows, one grants version,
// one power check and one view (visibility, afterFetch) per viewer. Each stream still gets every
// message's events in order, each under its message's own `id:` (so Last-Event-ID resumes stay
// exact), and all its events of the batch in one write; the inserts and updates a viewer sees, and
// their text, are worked out once per viewer and shared by that viewer's streams.
import type { FormRow } from '@fw/row-patch';
import type { Actor, DataService } from '../service.js';
import type { LiveMessage } from './bus.js';
import { beforeRows } from './before-rows.js';
import { eventText, type LiveStream } from './stream.js';
import { streamEvents, viewerEvents, viewsOf, type LiveChange, type LiveEvent, type LiveView } from './viewer.js';

/** Most messages delivered as one batch. */
export const BATCH_MESSAGES = 64;
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
  const live = batch.map((d) => ({ message: d.message, streams: d.streams.filter((s) => !s.closed) })).filter((d) => d.streams.length > 0);
  const model = live[0] && service.registry.get(live[0].message.model);
  if (!model) return;
  const pk = model.primaryKey;
  const idsOf = (message: LiveMessage) => message.ids.filter((id) => Number.isSafeInteger(id));
  // One read of the rows of every insert and update in the batch.
  const readIds = new Set<number>();
  for (const { message } of live) if (message.kind !== 'delete') for (const id of idsOf(message)) readIds.add(id);
  const read = readIds.size > 0 ? await service.rawRows(model, [...readIds]) : [];
  const changes: LiveChange[] = [];
  for (const { message } of live) {
    const ids = idsOf(message);
    const wanted = new Set(ids);
    let before: Promise<ReadonlyMap<number, FormRow>> | undefined;
    changes.push({
      message,
      rows: message.kind === 'delete' ? [] : read.filter((row) => wanted.has(Number(row[pk]))),
      trashed: message.kind === 'delete' && model.trash && ids.length > 0 ? await service.store.trash.findRows(model.name, ids.map(String)) : [],
      // Read once for all viewers, and only when one of them has a row filter that needs it.
      before: () => (before ??= beforeRows(service.store.knex, model, message)),
    });
  }
  // One grants version for the batch: the power resolver caches by it. The streams of one user
  // share what that user may see (power, visibility, afterFetch), worked out one user after another.
  const version = await service.store.grants.version();
  // Per user: the views of the batch's changes, null when they may not query the model, 'error' when a hook failed.
  const views = new Map<number, LiveView[] | null | 'error'>();
  for (const { streams } of live) {
    for (const stream of streams) {
      const actor: Actor = stream.actor;
      if (views.has(actor.user.id)) continue;
      try {
        const power = await service.power(model, actor.user, version);
        views.set(actor.user.id, power.query ? await viewsOf(service, model, { ...actor, grantsVersion: version }, changes) : null);
      } catch (error) {
        onError(error);
        views.set(actor.user.id, 'error');
      }
    }
  }
  // Per stream, the text of its events of the batch, written once at the end.
  const out = new Map<LiveStream, { text: string[]; count: number }>();
  for (let i = 0; i < live.length; i += 1) {
    const { message, streams } = live[i]!;
    // The inserts and updates one viewer sees are the same on each of their streams: worked out,
    // and put into text, once per viewer; each stream adds only what depends on what it was told.
    const common = new Map<number, { events: LiveEvent[]; text: string }>();
    for (const stream of streams) {
      if (stream.closed) continue;
      const userId = stream.actor.user.id;
      const view = views.get(userId);
      // A hook that fails for one viewer closes their streams (they reload), never the others'.
      if (view === 'error') stream.reload('error');
      else if (!view) stream.close('power');
      if (!view || view === 'error') continue;
      let shared = common.get(userId);
      if (!shared) {
        const events = viewerEvents(model, changes[i]!, view[i]!, userId);
        common.set(userId, (shared = { events, text: events.map((event) => eventText(message.id, event)).join('') }));
      }
      const own = streamEvents(model, changes[i]!, view[i]!, stream.known, userId);
      if (shared.events.length === 0 && own.length === 0) continue;
      stream.remember(own.length === 0 ? shared.events : [...shared.events, ...own]);
      let entry = out.get(stream);
      if (!entry) out.set(stream, (entry = { text: [], count: 0 }));
      if (shared.text) entry.text.push(shared.text);
      for (const event of own) entry.text.push(eventText(message.id, event));
      entry.count += shared.events.length + own.length;
    }
  }
  for (const [stream, { text, count }] of out) if (!stream.closed) stream.write(text.join(''), count);
}
