// The pager of a table whose total is an estimate (issue 21): "About 5,000,000" with a "Count
// exactly" action, first / previous / next / last buttons that move by cursor, and a page number
// field for a jump by offset. It never shows a page count as if it were known: "Page 7 of about
// 250,000". A table with an exact total keeps antd's numbered pager (TablePager chooses).
import { useEffect, useState, type ReactNode } from 'react';
import { Button, InputNumber, Pagination, Select, Tooltip, Typography } from 'antd';
import { LeftOutlined, RightOutlined, VerticalLeftOutlined, VerticalRightOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';
import type { TablePage } from '../types';
import { canGoNext, canGoPrev, firstPage, formatCount, lastPage, nextPage, pageCount, pageNumbered, pagerTotal, prevPage, type PagePosition, type PageTarget } from './paging';

/** The page sizes offered, as in antd's pager. */
export const PAGE_SIZES = [10, 20, 50, 100, 200];

export interface EstimatePagerProps {
  at: PagePosition;
  /** The answer on screen (the previous one while the next loads). */
  answer: TablePage | undefined;
  /**
   * The answer on screen is the previous page's, kept while the asked one loads: its cursors are
   * not the current page's, so moves wait (the buttons stay enabled: a disabled button would drop
   * the keyboard focus).
   */
  stale: boolean;
  /** The person asked for an exact count and the answer to it is in. */
  exactRefused: boolean;
  /** The exact count has been asked and is not answered yet. */
  counting: boolean;
  onGo(target: PageTarget): void;
  onSize(size: number): void;
  onCountExact(): void;
}

/** The pager under a table with an estimated total. */
export function EstimatePager({ at, answer, stale, exactRefused, counting, onGo, onSize, onCountExact }: EstimatePagerProps) {
  const { t, locale } = useI18n();
  const pages = pageCount(answer?.total ?? 0, at.size);
  const [typed, setTyped] = useState<number | null>(at.page);
  useEffect(() => setTyped(at.page), [at.page]);
  const jump = () => {
    // Beyond the estimated end there is nothing to read: the field stops at the last page's number.
    const to = typed === null ? at.page : Math.min(Math.max(1, Math.floor(typed)), pages);
    setTyped(to);
    if (to !== at.page && !stale) onGo(pageNumbered(at, answer, to));
  };
  const prev = canGoPrev(at, answer);
  const next = canGoNext(at, answer);
  const move = (label: string, className: string, icon: ReactNode, enabled: boolean, target: () => PageTarget) => (
    <Tooltip title={label}>
      <Button className={className} icon={icon} aria-label={label} disabled={!enabled} onClick={() => !stale && onGo(target())} />
    </Tooltip>
  );
  return (
    <nav className="fw-pager" aria-label={t('pager.label')}>
      <div className="fw-pager-count">
        <span className="fw-pager-total" title={t('pager.estimateHint')}>
          {t('model.totalAbout', { total: formatCount(answer?.total ?? 0, locale) })}
        </span>
        <Button size="small" className="fw-count-exact" loading={counting} onClick={onCountExact}>
          {t('pager.countExactly')}
        </Button>
        {exactRefused && (
          <Typography.Text type="secondary" className="fw-count-timeout" role="status">
            {t('pager.stillEstimate')}
          </Typography.Text>
        )}
      </div>
      <div className="fw-pager-moves">
        <div className="fw-pager-steps">
          {move(t('pager.first'), 'fw-pager-first', <VerticalRightOutlined />, at.page > 1 || prev, firstPage)}
          {move(t('pager.prev'), 'fw-pager-prev', <LeftOutlined />, prev, () => prevPage(at, answer))}
          <span className="fw-pager-where">
            <span aria-hidden>{t('pager.pageBefore')}</span>
            <InputNumber
              className="fw-pager-page"
              size="small"
              min={1}
              max={pages}
              precision={0}
              controls={false}
              value={typed}
              aria-label={t('pager.pageInput', { pages: formatCount(pages, locale) })}
              onChange={(v) => setTyped(typeof v === 'number' ? v : null)}
              onPressEnter={jump}
              onBlur={jump}
            />
            <span aria-hidden>{t('pager.pageAfter', { pages: formatCount(pages, locale) })}</span>
          </span>
          {move(t('pager.next'), 'fw-pager-next', <RightOutlined />, next, () => nextPage(at, answer))}
          {move(t('pager.last'), 'fw-pager-last', <VerticalLeftOutlined />, next, () => lastPage(at, answer))}
        </div>
        <Select
          className="fw-pager-size"
          size="small"
          value={at.size}
          aria-label={t('pager.size')}
          popupMatchSelectWidth={false}
          options={PAGE_SIZES.map((n) => ({ value: n, label: t('pager.perPage', { size: n }) }))}
          onChange={onSize}
        />
      </div>
    </nav>
  );
}

/**
 * The pager under a flat table: antd's numbered one for an exact total, else {@link EstimatePager}.
 * It is drawn beside the table, not by it: given a page longer than its size (a live insert grows
 * the page by one), antd's table pager cuts the rows as if they were the whole table, and on any
 * page but the first shows none. `exact`: the person asked for an exact count.
 */
export function TablePager({ at, answer, stale, exact, onGo, onSize, onCountExact }: Omit<EstimatePagerProps, 'exactRefused' | 'counting'> & { exact: boolean }) {
  const { t, locale } = useI18n();
  if (answer?.totalIsEstimate === true)
    return <EstimatePager at={at} answer={answer} stale={stale} counting={exact && stale} exactRefused={exact && !stale} onGo={onGo} onSize={onSize} onCountExact={onCountExact} />;
  return (
    <Pagination
      className="fw-table-pager"
      current={at.page}
      pageSize={at.size}
      total={answer ? pagerTotal(at, answer, answer.rows.length) : 0}
      showSizeChanger
      pageSizeOptions={PAGE_SIZES}
      showTotal={() => t('model.total', { total: formatCount(answer?.total ?? 0, locale) })}
      onChange={(page, size) => {
        if (size !== at.size) onSize(size);
        // While the previous answer stands in for the asked page its cursors are not this page's: by number then.
        else onGo(pageNumbered(at, stale ? undefined : answer, page));
      }}
    />
  );
}
