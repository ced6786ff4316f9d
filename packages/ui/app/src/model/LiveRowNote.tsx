// The row drawer's side of live tables (issue 24 §3). Showing a row's details, a change by anyone
// patches the details query at once (then the row is read again in the background for its new
// version). Editing it, the form is left alone: a note says who changed which fields and shows
// their new values, and "Load their changes" reads the row again and puts only those fields into
// the form, with the row's new version, so the person's other edits stay. Saving without loading
// them is still refused by the server (If-Match, 409 STALE_ROW), the last guard.
import { useContext, useState } from 'react';
import { Alert, Button, Descriptions } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useLiveEvent, type LiveEvent } from '../client/live';
import { keys } from '../client/queries';
import { useI18n } from '../i18n';
import type { FieldView, Row } from '../types';
import { renderValue } from './cells';
import { formTitle } from './fields';
import { LiveContext } from './LiveBar';
import { ReferenceLabels } from './references';

/** What happened to the drawer's row since it was read. */
export type LiveRowChange = { actor: string; values: Row; deleted?: undefined } | { actor: string; deleted: true };

type Details = { row: Row; version?: string };

const isReference = (f: FieldView) => f.type === 'REFERENCE_TABLE' || f.type === 'REFERENCE_TREE' || f.type === 'COLLECTION';

/**
 * Follows the page's live stream for row `id` of `fw` while the drawer shows it (`mode`): patches
 * the details query in details mode, and answers the change to show in edit mode. `base` is the
 * row as the form started from it; `busy` (the person's own save under way) ignores events.
 */
export function useLiveRow(fw: string, id: number | undefined, mode: string, base: Row | undefined, busy: boolean): [LiveRowChange | undefined, () => void] {
  const channel = useContext(LiveContext);
  const queryClient = useQueryClient();
  const [change, setChange] = useState<LiveRowChange>();
  const actor = (event: LiveEvent) => (typeof event.data.actor === 'string' ? event.data.actor : '?');
  const changed = (event: LiveEvent, values: Row) => {
    if (id === undefined || event.data.id !== id || busy) return;
    if (mode === 'details') {
      queryClient.setQueryData<Details>(keys.details(fw, id), (old) => (old ? { ...old, row: { ...old.row, ...values } } : old));
      void queryClient.invalidateQueries({ queryKey: keys.details(fw, id) });
    } else if (mode === 'edit') {
      const news = Object.fromEntries(Object.entries(values).filter(([name, v]) => JSON.stringify(v ?? null) !== JSON.stringify(base?.[name] ?? null)));
      if (Object.keys(news).length === 0) return;
      setChange((old) => ({ actor: actor(event), values: { ...(old && !old.deleted ? old.values : {}), ...news } }));
    }
  };
  useLiveEvent(channel, 'update', (event) => changed(event, (event.data.values ?? {}) as Row));
  useLiveEvent(channel, 'insert', (event) => changed(event, (event.data.row ?? {}) as Row));
  useLiveEvent(channel, 'delete', (event) => {
    if (id !== undefined && Array.isArray(event.data.ids) && event.data.ids.includes(id) && mode !== 'add' && !busy) setChange({ actor: actor(event), deleted: true });
  });
  return [change, () => setChange(undefined)];
}

/** The note above the edit form. */
export function LiveRowNote({ fw, fields, change, onLoad }: { fw: string; fields: FieldView[]; change: LiveRowChange; onLoad: () => void }) {
  const { t } = useI18n();
  if (change.deleted) return <Alert type="error" showIcon className="fw-live-note fw-live-row-deleted" title={t('live.rowDeleted', { actor: change.actor })} />;
  const shown = fields.filter((f) => f.type !== 'PASSWORD' && f.name in change.values);
  return (
    <Alert
      type="warning"
      showIcon
      className="fw-live-note fw-live-row-changed"
      title={t('live.rowChanged', { actor: change.actor })}
      description={
        <div>
          <Descriptions
            size="small"
            column={1}
            items={shown.map((f) => ({
              key: f.name,
              label: formTitle(f),
              children: isReference(f) ? (
                <ReferenceLabels model={fw} field={f.name} value={change.values[f.name]} />
              ) : (
                (renderValue(f, change.values[f.name], undefined, t) ?? t('stale.empty'))
              ),
            }))}
          />
          <Button size="small" className="fw-live-load" onClick={onLoad}>
            {t('live.takeRow')}
          </Button>
        </div>
      }
    />
  );
}
