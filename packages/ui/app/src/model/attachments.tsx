// ATTACHMENT fields: the upload widget of the form (antd Upload, to the upload route, the field's
// limits shown), file links in the details view and a thumbnail in the table for image fields.
// Files are fetched with the token header and handed to the browser as blobs: a file URL never
// carries the token.
import { useEffect, useRef, useState } from 'react';
import { Button, Space, Typography, Upload, message } from 'antd';
import type { UploadFile } from 'antd';
import { ApiError } from '../client/api';
import { fetchFile } from '../client/links';
import { useUpload } from '../client/mutations';
import { useI18n } from '../i18n';
import type { AttachmentValue, FieldView } from '../types';
import type { InputProps } from './input-props';
import { useFormRowId } from './rowContext';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function filesOf(value: unknown): AttachmentValue[] {
  return Array.isArray(value) ? (value.filter((f) => f && typeof f === 'object' && typeof (f as AttachmentValue).id === 'string') as AttachmentValue[]) : [];
}

/** "1.5 MB", "320 KB", "12 B". */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** One stored file of a row's attachment field. */
interface StoredFile {
  model: string;
  field: string;
  rowId: unknown;
  fileId: string;
}

/** Saves a stored file under its name. */
async function download(file: StoredFile, name: string): Promise<void> {
  const url = URL.createObjectURL(await fetchFile(file.model, file.field, file.rowId, file.fileId));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The image of a stored file, small, as a table shows it. */
function Thumbnail({ model, field, rowId, fileId, name }: StoredFile & { name: string }) {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    let live = true;
    let made: string | undefined;
    fetchFile(model, field, rowId, fileId, true)
      .then((blob) => {
        made = URL.createObjectURL(blob);
        if (live) setUrl(made);
        else URL.revokeObjectURL(made);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [model, field, rowId, fileId]);
  return url ? <img className="fw-thumbnail" src={url} alt={name} title={name} /> : <span className="fw-thumbnail fw-thumbnail-empty" title={name} />;
}

/**
 * Blob URLs of image files for the form's preview: files uploaded in this form from the browser's
 * own copy, stored ones fetched with the token (the page's CSP allows `blob:` images only).
 */
function usePreviews(model: string, field: FieldView, rowId: unknown, files: AttachmentValue[], local: Record<string, string>): Record<string, string> {
  const [stored, setStored] = useState<Record<string, string>>({});
  const wanted = field.attachment?.image && rowId !== undefined ? files.filter((f) => !local[f.id]).map((f) => f.id) : [];
  const key = wanted.join(',');
  useEffect(() => {
    if (!key) return;
    let live = true;
    const made: string[] = [];
    for (const id of key.split(',')) {
      fetchFile(model, field.name, rowId, id, true)
        .then((blob) => {
          const url = URL.createObjectURL(blob);
          made.push(url);
          if (live) setStored((old) => ({ ...old, [id]: url }));
        })
        .catch(() => undefined);
    }
    return () => {
      live = false;
      for (const url of made) URL.revokeObjectURL(url);
    };
  }, [model, field.name, rowId, key]);
  return { ...stored, ...local };
}

/** The files of a row's ATTACHMENT field: links that download, or a thumbnail for image fields in the table. */
export function AttachmentList({
  model,
  field,
  rowId,
  value,
  thumbnail,
  preview,
}: {
  model: string;
  field: FieldView;
  rowId: unknown;
  value: unknown;
  thumbnail?: boolean;
  preview?: boolean;
}) {
  const { t } = useI18n();
  const files = filesOf(value);
  if (files.length === 0) return null;
  if (thumbnail && field.attachment?.image) {
    return (
      <Space size={4} className="fw-attachments">
        {files.map((f) => (
          <Thumbnail key={f.id} model={model} field={field.name} rowId={rowId} fileId={f.id} name={f.name} />
        ))}
      </Space>
    );
  }
  const save = (f: AttachmentValue) => download({ model, field: field.name, rowId, fileId: f.id }, f.name).catch(() => void message.error(t('upload.downloadFailed')));
  // The details view of an image field: each file's thumbnail above its download link.
  const shown = preview && field.attachment?.image;
  return (
    <Space size={[8, 2]} wrap className="fw-attachments">
      {files.map((f) => (
        <Space key={f.id} direction={shown ? 'vertical' : 'horizontal'} size={2} className={shown ? 'fw-attachment-preview' : undefined}>
          {shown && <Thumbnail model={model} field={field.name} rowId={rowId} fileId={f.id} name={f.name} />}
          <Button type="link" size="small" className="fw-attachment-link" onClick={() => void save(f)} title={`${f.name} (${formatSize(f.size)})`}>
            {f.name}
          </Button>
        </Space>
      ))}
    </Space>
  );
}

/** The limits of a field, as the widget's hint says them. */
function limitsText(field: FieldView, t: ReturnType<typeof useI18n>['t']): string {
  const a = field.attachment;
  if (!a) return '';
  const types = a.accept.length > 0 ? a.accept.map((x) => (x.startsWith('image/') && x !== 'image/*' ? x.slice(6).toUpperCase() : x)).join(', ') : t('upload.anyType');
  return t('upload.limits', { count: a.maxFiles, size: formatSize(a.maxSize), types });
}

/** The form's input of an ATTACHMENT field: uploads to the server at once, the value holds the uploaded files' records. */
export function AttachmentInput({ field, model, value, onChange, id, disabled }: InputProps) {
  const upload = useUpload(model, field.name);
  const { t } = useI18n();
  const files = filesOf(value);
  const image = field.attachment?.image === true;
  // Image fields preview their files: this browser's copy of a new upload, else the stored file.
  const [local, setLocal] = useState<Record<string, string>>({});
  const previews = usePreviews(model, field, useFormRowId(), files, local);
  const max = field.attachment?.maxFiles ?? 1;
  const [uploading, setUploading] = useState<UploadFile[]>([]);
  // The latest value, for uploads finishing one after another before the form re-renders.
  const latest = useRef(files);
  latest.current = files;
  const accept = (field.attachment?.accept.length ? field.attachment.accept : field.attachment?.image ? IMAGE_TYPES : []).join(',');
  // Failed uploads stay listed (red, removable) but take no place.
  const full = files.length + uploading.filter((u) => u.status === 'uploading').length >= max;
  const fileList: UploadFile[] = [
    ...files.map((f) => ({ uid: f.id, name: f.name, status: 'done' as const, size: f.size, type: f.type, ...(previews[f.id] ? { thumbUrl: previews[f.id] } : {}) })),
    ...uploading,
  ];
  return (
    <div className="fw-upload" id={id}>
      <Upload
        multiple={max > 1}
        maxCount={max > 1 ? undefined : 1}
        accept={accept || undefined}
        disabled={disabled || full}
        fileList={fileList}
        listType={image ? 'picture' : 'text'}
        showUploadList={{ showPreviewIcon: false, showDownloadIcon: false }}
        onRemove={(file) => {
          latest.current = files.filter((f) => f.id !== file.uid);
          onChange?.(latest.current);
          setUploading((list) => list.filter((u) => u.uid !== file.uid));
          return true;
        }}
        customRequest={async (options) => {
          const file = options.file as File & { uid: string };
          const entry: UploadFile = { uid: file.uid, name: file.name, status: 'uploading' };
          setUploading((list) => [...list, entry]);
          try {
            const data = await upload.mutateAsync(file);
            setUploading((list) => list.filter((u) => u.uid !== file.uid));
            // A single-file field replaces its file; a multiple one adds.
            latest.current = max > 1 ? [...latest.current, ...data.files] : data.files;
            if (image && data.files[0]) {
              const url = URL.createObjectURL(file);
              setLocal((old) => ({ ...old, [data.files[0]!.id]: url }));
            }
            onChange?.(latest.current);
            options.onSuccess?.(data);
          } catch (error) {
            const text = error instanceof ApiError ? error.message : String(error);
            setUploading((list) => list.map((u) => (u.uid === file.uid ? { ...u, status: 'error' as const, response: text } : u)));
            // The server's message names the file already.
            void message.error(text);
            options.onError?.(error as Error);
          }
        }}
      >
        <Button disabled={disabled || full} className="fw-upload-button">
          {t('upload.choose')}
        </Button>
      </Upload>
      <Typography.Text type="secondary" className="fw-upload-limits">
        {limitsText(field, t)}
      </Typography.Text>
    </div>
  );
}
