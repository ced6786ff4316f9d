// Import: the chosen file (CSV or an Excel workbook) goes as a multipart file field, and the server
// tells the two apart by their bytes; a refused file lists every failing cell with its row and
// column. The menu beside it downloads the import template.
import { useRef, useState } from 'react';
import { App, Button, Dropdown, Space } from 'antd';
import { DownOutlined, UploadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { api, apiUrl, ApiError } from '../api';
import { getToken } from '../auth';
import { useI18n } from '../i18n';
import { invalidateModel } from '../queries';

const ACCEPT = '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Saves a download the API serves only with the token header (the template), through a blob link. */
async function download(path: string, filename: string): Promise<void> {
  const token = getToken();
  const response = await fetch(apiUrl(path), { headers: token ? { token } : {} });
  if (!response.ok) throw new ApiError(response.status, `HTTP_${response.status}`, response.statusText || `HTTP ${response.status}`, [], {});
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The import button of a model, with the template downloads in its menu. */
export function ImportButton({ fw }: { fw: string }) {
  const { t } = useI18n();
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);

  const upload = async (file: File) => {
    setBusy(true);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const answer = await api<{ imported: number }>(`/data/import/${encodeURIComponent(fw)}`, { body: form });
      message.success(t('model.imported', { count: answer.imported }));
      await invalidateModel(queryClient, fw);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      const details = error instanceof ApiError ? error.details : [];
      modal.error({
        title: t('model.importRefused'),
        width: 560,
        className: 'fw-import-refused',
        content: (
          <div>
            {/* The server's message, when it says more than the title. */}
            {error instanceof Error && error.message !== t('model.importRefused') && <p>{error.message}</p>}
            {details.length > 0 && (
              <ul className="fw-import-errors">
                {/* A cell error's message starts with its place ("row 3, column B (Price): …"). */}
                {details.map((d, i) => (
                  <li key={i}>
                    {d.row === undefined && d.path ? (
                      <>
                        <code>{d.path}</code>: {d.message}
                      </>
                    ) : (
                      d.message
                    )}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ),
      });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const template = async (format: 'xlsx' | 'csv') => {
    try {
      await download(`/data/import-template/${encodeURIComponent(fw)}?format=${format}`, `${fw}-template.${format}`);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) message.error(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        hidden
        className="fw-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void upload(file);
        }}
      />
      <Space.Compact>
        <Button icon={<UploadOutlined />} loading={busy} onClick={() => input.current?.click()} className="fw-import">
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
    </>
  );
}
