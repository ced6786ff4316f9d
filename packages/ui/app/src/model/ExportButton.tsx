// Export: a download link of the visible rows (the table's sort and search) as CSV by default,
// and a menu for the other format (an Excel workbook).
import { Button, Dropdown, Space } from 'antd';
import { DownOutlined, DownloadOutlined } from '@ant-design/icons';
import { exportUrl } from '../client/links';
import { useI18n } from '../i18n';

/** The export button of a model: CSV on click, CSV or Excel from its menu. */
export function ExportButton({ fw, params }: { fw: string; params: Record<string, string> }) {
  const { t } = useI18n();
  const href = (format: 'csv' | 'xlsx') => exportUrl(fw, { ...params, ...(format === 'xlsx' ? { format } : {}) });
  return (
    <Space.Compact>
      <Button icon={<DownloadOutlined />} href={href('csv')} download={`${fw}.csv`} className="fw-export">
        {t('model.export')}
      </Button>
      <Dropdown
        trigger={['click']}
        menu={{
          items: [
            {
              key: 'csv',
              label: (
                <a href={href('csv')} download={`${fw}.csv`} className="fw-export-csv">
                  {t('model.exportCsv')}
                </a>
              ),
            },
            {
              key: 'xlsx',
              label: (
                <a href={href('xlsx')} download={`${fw}.xlsx`} className="fw-export-xlsx">
                  {t('model.exportXlsx')}
                </a>
              ),
            },
          ],
        }}
      >
        <Button icon={<DownOutlined />} aria-label={t('model.exportFormats')} className="fw-export-menu" />
      </Dropdown>
    </Space.Compact>
  );
}
