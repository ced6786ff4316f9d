// The table's layout menu (issue 20 §5): show or hide each column, move it up or down, choose
// the row height, or go back to the model's default. Every control is a button or a checkbox,
// so it works from the keyboard; the moved column's button keeps the focus.
import { useLayoutEffect, useRef, useState } from 'react';
import { Button, Checkbox, Divider, Popover, Segmented, Tooltip, Typography } from 'antd';
import { ArrowDownOutlined, ArrowUpOutlined, SettingOutlined, UndoOutlined } from '@ant-design/icons';
import { useI18n } from '../../i18n';
import { DENSITIES, type Density } from './tablePrefs';

/** A column as the chooser lists it. */
export interface ChooserColumn {
  key: string;
  title: string;
}

export interface ColumnChooserProps {
  /** Every column that may be shown, in the current order. */
  columns: ChooserColumn[];
  hidden: ReadonlySet<string>;
  density: Density;
  onToggle: (key: string, show: boolean) => void;
  onMove: (key: string, by: -1 | 1) => void;
  onDensity: (density: Density) => void;
  onReset: () => void;
}

export function ColumnChooser({ columns, hidden, density, onToggle, onMove, onDensity, onReset }: ColumnChooserProps) {
  const { t } = useI18n();
  const list = useRef<HTMLDivElement>(null);
  const [refocus, setRefocus] = useState<{ key: string; by: -1 | 1 }>();
  const shown = columns.filter((c) => !hidden.has(c.key)).length;

  // React moves a list item's DOM node when its place changes, which drops the focus it held.
  useLayoutEffect(() => {
    if (!refocus || !list.current) return;
    const find = (by: number) => list.current!.querySelector<HTMLButtonElement>(`[data-move="${CSS.escape(`${refocus.key}:${by}`)}"]:not([disabled])`);
    (find(refocus.by) ?? find(-refocus.by))?.focus();
    setRefocus(undefined);
  }, [refocus, columns]);

  const move = (key: string, by: -1 | 1) => {
    onMove(key, by);
    setRefocus({ key, by });
  };

  const content = (
    <div className="fw-col-chooser" ref={list}>
      <ul className="fw-col-list" aria-label={t('table.columnsTitle')}>
        {columns.map((c, i) => {
          const visible = !hidden.has(c.key);
          return (
            <li key={c.key} className="fw-col-item" data-col={c.key}>
              <Checkbox
                checked={visible}
                // One column always stays: a table of none has nothing to hold a row.
                disabled={visible && shown === 1}
                aria-label={t('table.show', { column: c.title })}
                onChange={(e) => onToggle(c.key, e.target.checked)}
              >
                {c.title}
              </Checkbox>
              <span className="fw-col-move">
                <Button
                  size="small"
                  type="text"
                  icon={<ArrowUpOutlined />}
                  aria-label={t('table.moveUp', { column: c.title })}
                  data-move={`${c.key}:-1`}
                  disabled={i === 0}
                  onClick={() => move(c.key, -1)}
                />
                <Button
                  size="small"
                  type="text"
                  icon={<ArrowDownOutlined />}
                  aria-label={t('table.moveDown', { column: c.title })}
                  data-move={`${c.key}:1`}
                  disabled={i === columns.length - 1}
                  onClick={() => move(c.key, 1)}
                />
              </span>
            </li>
          );
        })}
      </ul>
      <Divider className="fw-col-divider" />
      <Typography.Text id="fw-density-label">{t('table.density')}</Typography.Text>
      <Segmented<Density>
        block
        aria-labelledby="fw-density-label"
        className="fw-density"
        value={density}
        options={DENSITIES.map((d) => ({ value: d, label: t(`table.density.${d}`) }))}
        onChange={onDensity}
      />
      <Button block icon={<UndoOutlined />} className="fw-col-reset" onClick={onReset}>
        {t('table.reset')}
      </Button>
    </div>
  );
  return (
    <Popover content={content} title={t('table.columnsTitle')} trigger="click" placement="bottomRight">
      <Tooltip title={t('table.columns')}>
        <Button icon={<SettingOutlined />} aria-label={t('table.columns')} className="fw-columns" />
      </Tooltip>
    </Popover>
  );
}
