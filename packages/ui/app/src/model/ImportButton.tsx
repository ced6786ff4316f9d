// Import: the button opens the import dialog (mode, file; see ImportDialog), the menu beside it
// downloads the import template.
import { useState } from 'react';
import { App, Button, Dropdown, Space } from 'antd';
import { DownOutlined, UploadOutlined } from '@ant-design/icons';
import { ApiError } from '../client/api';
import { fetchImportTemplate } from '../client/links';
import { useI18n } from '../i18n';
import { useBuild } from '../client/queries';
import { ImportDialog } from './ImportDialog';

/** Saves a download the API serves only with the token header (the template), through a blob link. */
async function download(blob: Promise<Blob>, filename: string): Promise<void> {
  const url = URL.createObjectURL(await blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The import button of a model (it opens the import dialog), with the template downloads in its menu. */
export function ImportButton({ fw }: { fw: string }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const build = useBuild(fw).data;
  const title = build?.model.title ?? fw;
  const [open, setOpen] = useState(false);

  const template = async (format: 'xlsx' | 'csv') => {
    try {
      await download(fetchImportTemplate(fw, format), `${fw}-template.${format}`);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) message.error(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <>
      <Space.Compact>
        <Button icon={<UploadOutlined />} onClick={() => setOpen(true)} className="fw-import">
          {t('model.import')}
        </Button>
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              { key: 'xlsx', label: <span className="fw-template-xlsx">{t('model.templateXlsx')}</span> },
              { key: 'csv', label: <span className="fw-template-csv">{t('model.templateCsv')}</span> },
            ],
            onClick: ({ key }) => void template(key as 'xlsx' | 'csv'),
          }}
        >
          <Button icon={<DownOutlined />} aria-label={t('model.importMore')} className="fw-import-menu" />
        </Dropdown>
      </Space.Compact>
      <ImportDialog fw={fw} title={title} open={open} onClose={() => setOpen(false)} power={build?.power} />
    </>
  );
}
