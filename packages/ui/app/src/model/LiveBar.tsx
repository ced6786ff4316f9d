// What the model page says about its live stream (issue 24 §3): a small status in the toolbar
// (following, reconnecting, paused while the tab is hidden), the "N new rows — show" notice for
// rows others added that the page cannot place, and a warning when the stream ended because the
// person may no longer query the model.
import { createContext, type ReactNode } from 'react';
import { Alert, Badge, Button, Tooltip } from 'antd';
import { useLiveChannel, type LiveChannel, type LiveStatus } from '../client/live';
import { useI18n } from '../i18n';

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

/** The stream's state, small, beside the reload button. */
export function LiveStatusBadge({ status }: { status: LiveStatus | undefined }) {
  const { t } = useI18n();
  if (!status || status === 'gone') return null;
  const text = t(`live.status.${status}`);
  return (
    <Tooltip title={status === 'live' ? t('live.hint') : undefined}>
      <span className="fw-live-status" data-status={status} role="status" aria-live="polite">
        <Badge status={BADGE[status]} text={text} />
      </span>
    </Tooltip>
  );
}

/** The notices above the table: new rows to show, or a stream ended by a change of access. */
export function LiveNotices({ status, fresh, onShow }: { status: LiveStatus | undefined; fresh: number; onShow: () => void }) {
  const { t } = useI18n();
  return (
    <div className="fw-live-bar">
      {status === 'denied' && <Alert type="warning" showIcon className="fw-live-denied" title={t('live.denied')} />}
      {fresh > 0 && (
        <Alert
          type="info"
          showIcon
          className="fw-live-fresh"
          title={fresh === 1 ? t('live.newOne') : t('live.newMany', { count: fresh })}
          action={
            <Button size="small" type="primary" className="fw-live-show" onClick={onShow}>
              {t('live.show')}
            </Button>
          }
        />
      )}
    </div>
  );
}
