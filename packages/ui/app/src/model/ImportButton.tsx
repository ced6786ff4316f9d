// Import: the chosen CSV file goes as the request body; a refused file lists every failing row.
import { useRef, useState } from 'react';
import { App, Button } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api';
import { useI18n } from '../i18n';
import { invalidateModel } from '../queries';

/** The import button of a model. */
export function ImportButton({ fw }: { fw: string }) {
  const { t } = useI18n();
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);

  const upload = async (file: File) => {
    setBusy(true);
    try {
      const answer = await api<{ imported: number }>(`/data/import/${encodeURIComponent(fw)}`, { body: await file.text(), contentType: 'text/csv' });
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
                {details.map((d, i) => (
                  <li key={i}>
                    <code>{d.path}</code>: {d.message}
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

  return (
    <>
      <input
        ref={input}
        type="file"
        accept=".csv,text/csv"
        hidden
        className="fw-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void upload(file);
        }}
      />
      <Button icon={<UploadOutlined />} loading={busy} onClick={() => input.current?.click()}>
        {t('model.import')}
      </Button>
    </>
  );
}
