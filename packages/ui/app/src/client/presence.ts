// Presence (issue 24 §4), the posting side: while this tab has a row open in the edit form or a
// cell editor, `POST /data/presence/{fw}` says so, again every 20 s (the server forgets an entry
// after 60 s), and `id: null` says it left. One tab holds one entry per model on the server, so
// the claims of the components are gathered here per model: a cell editor that closes as the next
// one opens (Tab) sends only the new cell, and the posts of a model go out one after another, so a
// late "left" never overtakes the claim that followed it. Failures are dropped: presence is a
// courtesy to others, never an error the person has to read.
import { useEffect } from 'react';
import { call } from './api';
import { liveClientKey } from './live';
import { routes } from './routes';

/** What a component has open: a row, and the field of a cell editor. */
export interface PresenceTarget {
  id: number;
  field?: string;
}

/** How often an open editor is posted again, ms (the server keeps an entry 60 s). */
export const PRESENCE_REFRESH_MS = 20_000;

interface ModelPresence {
  /** The claim in force (the latest component's), or null. */
  want: { target: PresenceTarget; owner: object } | null;
  /** What the server was last told. */
  sent: PresenceTarget | null;
  /** Posts of this model, one after another. */
  queue: Promise<void>;
  flush?: ReturnType<typeof setTimeout>;
  refresh?: ReturnType<typeof setInterval>;
}

const models = new Map<string, ModelPresence>();
const sameTarget = (a: PresenceTarget | null, b: PresenceTarget | null) => a?.id === b?.id && a?.field === b?.field;

function post(fw: string, target: PresenceTarget | null): Promise<void> {
  const body = { client: liveClientKey(), id: target?.id ?? null, ...(target?.field ? { field: target.field } : {}) };
  return call(routes.presence(fw, body)).then(
    () => undefined,
    () => undefined, // silent: see the file's head
  );
}

// Kept for the page's life (a few models at most): a new claim must queue behind the last "left".
function entryOf(fw: string): ModelPresence {
  let entry = models.get(fw);
  if (!entry) models.set(fw, (entry = { want: null, sent: null, queue: Promise.resolve() }));
  return entry;
}

// Sends what is wanted now, after the current task: a release followed at once by a claim is one post.
function schedule(fw: string, entry: ModelPresence): void {
  clearTimeout(entry.flush);
  entry.flush = setTimeout(() => {
    const target = entry.want?.target ?? null;
    clearInterval(entry.refresh);
    entry.refresh = undefined;
    if (target) entry.refresh = setInterval(() => (entry.queue = entry.queue.then(() => post(fw, target))), PRESENCE_REFRESH_MS);
    if (sameTarget(target, entry.sent)) return;
    entry.sent = target;
    entry.queue = entry.queue.then(() => post(fw, target));
  }, 0);
}

/** Claims `target` of `fw` for `owner`; answers the release (which leaves only if the claim is still `owner`'s). */
export function claimPresence(fw: string, target: PresenceTarget): () => void {
  const owner = {};
  const entry = entryOf(fw);
  entry.want = { target, owner };
  schedule(fw, entry);
  return () => {
    if (entry.want?.owner !== owner) return;
    entry.want = null;
    schedule(fw, entry);
  };
}

/**
 * Says again what this tab has open in `fw`: after its stream opened anew, since the server ended
 * the tab's entry when the old stream dropped.
 */
export function repostPresence(fw: string): void {
  const entry = models.get(fw);
  if (!entry?.want) return;
  entry.sent = null;
  schedule(fw, entry);
}

// Leaving the page (closing the tab, going elsewhere): "left" now, with keepalive, while the page can
// still send; a page restored from the back-forward cache says again what it has open.
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => {
    for (const [fw, entry] of models) {
      if (!entry.sent) continue;
      entry.sent = null;
      void post(fw, null);
    }
  });
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    for (const [fw, entry] of models) if (entry.want) schedule(fw, entry);
  });
}

/**
 * Posts this tab's presence on row `target` of `fw` while the calling component is mounted with a
 * target (a cell editor, the edit form), and "left" when it unmounts or the target goes.
 */
export function usePresenceReport(fw: string, target: PresenceTarget | undefined): void {
  const id = target?.id;
  const field = target?.field;
  useEffect(() => {
    if (id === undefined || !Number.isFinite(id)) return;
    return claimPresence(fw, { id, ...(field ? { field } : {}) });
  }, [fw, id, field]);
}
