// What the model page says about its live stream (issue 24 §3): a small status in the toolbar
// (following, reconnecting, paused while the tab is hidden), the "N new rows" notice for rows
// others added that belong elsewhere in the table, and a warning when the stream ended because the
// person may no longer query the model.
import { createContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert, Badge, Button, Popover, Tooltip } from 'antd';
import { CloseOutlined, DownOutlined } from '@ant-design/icons';
import { useLiveChannel, type LiveChannel, type LiveStatus } from '../client/live';
import { useI18n } from '../i18n';
import type { Row } from '../types';

/** The model page's live channel, for the drawer and the cell editor inside the page. */
export const LiveContext = createContext<LiveChannel | undefined>(undefined);

/** Opens the live stream of `fw` while the model page shows its table, for everything inside. */
export function LiveProvider({ fw, children }: { fw: string; children: ReactNode }) {
  return <LiveContext value={useLiveChannel(fw)}>{children}</LiveContext>;
}

const BADGE: Record<LiveStatus, 'success' | 'processing' | 'warning' | 'default' | 'error'> = {
  live: 'success',
  connecting: 'processing',
  retrying: 'warning',
  paused: 'default',
  denied: 'error',
  gone: 'default',
};

/** The stream's state, small, beside the reload button; while it waits to reconnect, "Reconnect now". */
export function LiveStatusBadge({ status, onRetry }: { status: LiveStatus | undefined; onRetry?: () => void }) {
  const { t } = useI18n();
  // After a press the attempt it started is given a few seconds: pressing again would abort it.
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (!tried) return;
    const timer = setTimeout(() => setTried(false), RETRY_GRACE_MS);
    return () => clearTimeout(timer);
  }, [tried]);
  useEffect(() => setTried(false), [status]);
  // The stream reconnected by itself while "Reconnect now" had the focus: the button goes, the
  // focus goes to the reload button beside it rather than to the page.
  const retryFocused = useRef(false);
  useEffect(() => {
    if (status === 'retrying' || !retryFocused.current) return;
    retryFocused.current = false;
    if (document.activeElement === document.body || document.activeElement === null) focusReload();
  }, [status]);
  if (!status || status === 'gone') return null;
  const text = t(`live.status.${status}`);
  return (
    <span className="fw-live-state">
      <Tooltip title={status === 'live' ? t('live.hint') : undefined}>
        <span className="fw-live-status" data-status={status} role="status" aria-live="polite">
          <Badge status={BADGE[status]} text={text} />
        </span>
      </Tooltip>
      {status === 'retrying' && onRetry && !tried && (
        <Button
          type="link"
          size="small"
          className="fw-live-retry"
          onFocus={() => (retryFocused.current = true)}
          onBlur={() => (retryFocused.current = false)}
          onClick={() => {
            focusReload();
            setTried(true);
            onRetry();
          }}
        >
          {t('live.retryNow')}
        </Button>
      )}
    </span>
  );
}

/** How long "Reconnect now" stays away after a press, ms. */
const RETRY_GRACE_MS = 5000;

/** The most new rows the notice lists; the rest are counted. */
const MAX_LISTED = 20;

/** Puts the focus on the model page's reload button (what stays when a notice or a button goes). */
export function focusReload(): void {
  document.querySelector<HTMLElement>('.fw-table-reload')?.focus();
}

/** The notice above the table when the stream ended because the person's access changed. */
export function LiveDenied({ status }: { status: LiveStatus | undefined }) {
  const { t } = useI18n();
  if (status !== 'denied') return null;
  return <Alert type="warning" showIcon className="fw-live-denied" title={t('live.denied')} />;
}

/**
 * The new rows others added that belong elsewhere in the table (another page, or a place the
 * browser cannot tell): a notice floating over the table's top edge, so nothing below it moves.
 * It opens the list of those rows, each of which opens the row (`onOpen`, when the person may see
 * it); "Reload" loads the table again. Announced politely: the live region is always there.
 */
export function FreshRows({
  rows,
  label,
  onOpen,
  onReload,
  onDismiss,
}: {
  rows: Row[];
  /** What the list calls a row. */
  label: (row: Row) => string;
  /** Opens a row; none: the rows are only listed. */
  onOpen?: (row: Row) => void;
  onReload: () => void;
  onDismiss: () => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const count = rows.length;
  const text = count === 1 ? t('live.newOne') : t('live.newMany', { count });
  // The notice keeps the focus while the list closes: a drawer opened from it returns it there.
  // Opening the last row listed takes the notice away: the table's reload button holds it instead.
  const pick = (run: () => void) => {
    setOpen(false);
    if (count > 1) trigger.current?.focus();
    else focusReload();
    run();
  };
  // Dismissed or reloaded, the notice goes: the focus goes to the table's reload button, not the page.
  const leave = (run: () => void) => {
    setOpen(false);
    focusReload();
    run();
  };
  const list = (
    <div className="fw-live-fresh-list" role="group" aria-label={text}>
      <ul>
        {rows.slice(0, MAX_LISTED).map((row, i) => (
          <li key={i}>
            {onOpen ? (
              <Button type="link" size="small" className="fw-live-fresh-row" onClick={() => pick(() => onOpen(row))}>
                {label(row)}
              </Button>
            ) : (
              <span className="fw-live-fresh-row">{label(row)}</span>
            )}
          </li>
        ))}
      </ul>
      {count > MAX_LISTED && <div className="fw-live-fresh-more">{t('live.more', { count: count - MAX_LISTED })}</div>}
      <Button size="small" className="fw-live-reload" onClick={() => leave(onReload)}>
        {t('model.reload')}
      </Button>
    </div>
  );
  return (
    <div className="fw-live-fresh-region" role="status" aria-live="polite">
      {count > 0 && (
        <div className="fw-live-fresh">
          <Popover
            content={list}
            trigger="click"
            open={open}
            placement="bottom"
            onOpenChange={(next) => {
              setOpen(next);
              // Opened: the first row of the list takes the focus; closed by Esc: the notice gets it back.
              if (next) requestAnimationFrame(() => document.querySelector<HTMLElement>('.fw-live-fresh-list button')?.focus());
              else trigger.current?.focus();
            }}
          >
            <Button ref={trigger} type="primary" size="small" shape="round" className="fw-live-show" aria-expanded={open} aria-haspopup="true">
              {text}
              <DownOutlined />
            </Button>
          </Popover>
          <Tooltip title={t('live.dismiss')}>
            <Button
              type="primary"
              size="small"
              shape="circle"
              className="fw-live-dismiss"
              icon={<CloseOutlined />}
              aria-label={t('live.dismiss')}
              onClick={() => leave(onDismiss)}
            />
          </Tooltip>
        </div>
      )}
    </div>
  );
}
