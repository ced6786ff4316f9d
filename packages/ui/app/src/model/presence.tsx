// Presence (issue 24 §4), the seeing side: the page's live stream carries `presence` events (who has
// which row open in a form or a cell editor, already filtered by the server to the rows and fields
// this person may see). The provider keeps the current ones for the whole page, so a drawer opened
// later knows who is already there; the table draws stacked initials on the row and an outline on
// the cell being edited, the edit form a line naming the others. This tab's own entries are left
// out (its key is the stream's `X-Fw-Live-Client`); the person's other tabs are shown like anyone.
import { createContext, useContext, useEffect, useRef, useState, type CSSProperties, type Key, type ReactNode } from 'react';
import { Tooltip } from 'antd';
import { liveClientKey, useLiveEvent } from '../client/live';
import { repostPresence } from '../client/presence';
import { useI18n } from '../i18n';
import type { FieldView } from '../types';
import { columnTitle } from './fields';
import { LiveContext } from './LiveBar';
import './presence.css';

/** Another tab that has a row open: whose, which row, and the field of a cell editor. */
export interface Peer {
  client: string;
  user: string;
  id: number;
  field?: string;
}

const PresenceContext = createContext<readonly Peer[]>([]);

/** Follows the `presence` events of the page's stream (LiveContext) for everything inside. */
export function PresenceProvider({ children }: { children: ReactNode }) {
  const channel = useContext(LiveContext);
  const [peers, setPeers] = useState<ReadonlyMap<string, Peer>>(new Map());
  useLiveEvent(channel, 'presence', ({ data }) => {
    const { client, user, id, field, state } = data;
    if (typeof client !== 'string' || client === liveClientKey()) return;
    setPeers((old) => {
      const next = new Map(old);
      if (state === 'editing' && typeof id === 'number')
        next.set(client, { client, user: typeof user === 'string' ? user : '?', id, ...(typeof field === 'string' ? { field } : {}) });
      else if (state === 'left' && old.has(client)) next.delete(client);
      else return old;
      return next;
    });
  });
  // A stream that opens again starts with the entries in force (a snapshot): those that ended
  // while it was away would never hear their `left`, so the page forgets everything first. The
  // server ended this tab's own entry with the old stream: it is posted again.
  useEffect(
    () =>
      channel?.onStatus((status) => {
        if (status === 'live') repostPresence(channel.fw);
        else setPeers((old) => (old.size ? new Map() : old));
      }),
    [channel],
  );
  return <PresenceContext value={[...peers.values()]}>{children}</PresenceContext>;
}

/** The other tabs that have a row of the page open. */
export function usePeers(): readonly Peer[] {
  return useContext(PresenceContext);
}

/** The peers on row `id`. */
export function peersOn(peers: readonly Peer[], id: unknown): Peer[] {
  return peers.filter((p) => String(p.id) === String(id));
}

/** Up to two letters naming a person: the first letters of their first two words (one character of a CJK name). */
export function initials(name: string): string {
  const words = name
    .trim()
    .split(/[\s._@-]+/)
    .filter(Boolean);
  const first = Array.from(words[0] ?? '?');
  if (/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u.test(first[0] ?? '')) return first[0]!;
  const letters = words.length > 1 ? [first[0], Array.from(words[1]!)[0]] : first.slice(0, 2);
  return letters.join('').toUpperCase();
}

// Dark enough for white letters (contrast ≥ 4.5:1); a person keeps one colour wherever they appear.
const COLOURS = ['#1d4ed8', '#9d174d', '#166534', '#92400e', '#5b21b6', '#0f766e', '#b91c1c', '#374151'];

/** The colour of a person's initials and outline. */
export function colourOf(name: string): string {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.codePointAt(0)!) | 0;
  return COLOURS[Math.abs(hash) % COLOURS.length]!;
}

/** What a peer is doing, in words: "Alice is editing Price", or "… this row" (no field, or one not shown). */
export function usePeerLabel(fields: readonly FieldView[]): (peer: Peer) => string {
  const { t } = useI18n();
  return (peer) => {
    const field = peer.field === undefined ? undefined : fields.find((f) => f.name === peer.field);
    return field ? t('presence.editingField', { user: peer.user, field: columnTitle(field) }) : t('presence.editingRow', { user: peer.user });
  };
}

const MAX_SHOWN = 3;

/**
 * Stacked initials of the people on a row (one person in two tabs is one), with what they do in
 * the tooltip and the accessible label. The tooltip shows on hover, and while a cell of the row has
 * the focus: a keyboard user moving through the table learns who "BS" is as a mouse user does.
 */
export function PresenceBadge({ peers, fields, id }: { peers: readonly Peer[]; fields: readonly FieldView[]; id?: string }) {
  const label = usePeerLabel(fields);
  const own = useRef<HTMLSpanElement>(null);
  const [hover, setHover] = useState(false);
  const [focused, setFocused] = useState(false);
  const present = peers.length > 0;
  useEffect(() => {
    const cell = own.current?.closest('tr');
    if (!cell) return;
    const on = () => setFocused(true);
    const off = () => setFocused(false);
    cell.addEventListener('focusin', on);
    cell.addEventListener('focusout', off);
    return () => {
      cell.removeEventListener('focusin', on);
      cell.removeEventListener('focusout', off);
    };
  }, [present]);
  if (!present) return null;
  const lines = [...new Set(peers.map(label))];
  const people = [...new Map(peers.map((p) => [p.user, p])).values()];
  const shown = people.slice(0, people.length > MAX_SHOWN ? MAX_SHOWN - 1 : MAX_SHOWN);
  const more = people.length - shown.length;
  return (
    <Tooltip
      open={hover || focused}
      onOpenChange={setHover}
      title={
        <>
          {lines.map((line, i) => (
            <div key={i}>{line}</div>
          ))}
        </>
      }
    >
      <span ref={own} className="fw-presence" role="img" aria-label={lines.join('; ')} id={id} data-users={people.map((p) => p.user).join(',')}>
        {shown.map((p) => (
          <span key={p.client} className="fw-presence-avatar" style={{ background: colourOf(p.user) }} aria-hidden="true">
            {initials(p.user)}
          </span>
        ))}
        {more > 0 && (
          <span className="fw-presence-avatar fw-presence-more" aria-hidden="true">
            +{more}
          </span>
        )}
      </span>
    </Tooltip>
  );
}

/** The line in the edit form of row `id`: who else has it open. */
export function PresenceNote({ id, fields }: { id: number; fields: readonly FieldView[] }) {
  const { t, locale } = useI18n();
  const here = peersOn(usePeers(), id);
  if (here.length === 0) return null;
  const names = [...new Set(here.map((p) => p.user))];
  const text =
    names.length === 1 ? t('presence.alsoOne', { user: names[0]! }) : t('presence.alsoMany', { users: new Intl.ListFormat(locale, { type: 'conjunction' }).format(names) });
  return (
    <div className="fw-presence-note" role="status">
      {/* The sentence says it all; the initials are for the eye. */}
      <span aria-hidden="true">
        <PresenceBadge peers={here} fields={fields} />
      </span>
      <span>{text}</span>
    </div>
  );
}

/** The id of row `rowKey`'s initials (the outlined cell and the first cell name it in aria-describedby). */
const badgeId = (rowKey: unknown) => `fw-presence-${String(rowKey).replace(/[^A-Za-z0-9_-]/g, '_')}`;

type CellProps = { className?: string; style?: CSSProperties; 'aria-describedby'?: string } & Record<string, unknown>;

/**
 * The table's side: which `<td>` carries a row's initials (the first column shown that holds a
 * field, see `place`), which cell is outlined (a peer's cell editor is on it), and the badge itself.
 */
export function useTablePresence(fields: readonly FieldView[]) {
  const peers = usePeers();
  const at = useRef<string>(undefined);
  return {
    /** Chooses the column of the initials: the first of `columns` (as the person arranged them) named in `eligible`. */
    place(columns: ReadonlyArray<{ key?: Key }>, eligible: readonly string[]) {
      at.current = columns.map((c) => String(c.key)).find((k) => eligible.includes(k));
    },
    /** `props` of the cell of `field` in row `rowKey`, with the presence classes and description added. */
    onCell<P extends CellProps>(rowKey: unknown, field: string, props: P): P {
      const here = peersOn(peers, rowKey);
      if (here.length === 0) return props;
      const editor = here.find((p) => p.field === field);
      const first = field === at.current;
      if (!editor && !first) return props;
      return {
        ...props,
        className: [props.className, first && 'fw-presence-at', editor && 'fw-presence-field'].filter(Boolean).join(' '),
        ...(editor ? { style: { ...props.style, '--fw-presence-colour': colourOf(editor.user) } as CSSProperties } : {}),
        'aria-describedby': [props['aria-describedby'], badgeId(rowKey)].filter(Boolean).join(' '),
      };
    },
    /** The content of the cell of `field` in row `rowKey`, with the row's initials when it is the row's first cell. */
    withBadge(rowKey: unknown, field: string, content: ReactNode): ReactNode {
      const here = field === at.current ? peersOn(peers, rowKey) : [];
      if (here.length === 0) return content;
      return (
        <>
          {content}
          <PresenceBadge peers={here} fields={fields} id={badgeId(rowKey)} />
        </>
      );
    },
  };
}
