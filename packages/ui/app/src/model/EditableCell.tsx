// A table cell's content: the value, and where the cell editor is allowed, a pencil always in
// sight (not a Tab stop: the cell itself is one, see useCellFocus) and double-click to edit.
import type { ReactNode } from 'react';
import { EditOutlined } from '@ant-design/icons';

/** The content of the cell `id` (its value span is `${id}-value`, part of the cell's name). */
export function EditableCell({ id, children, onEdit, editLabel }: { id: string; children: ReactNode; onEdit?: () => void; editLabel: string }) {
  return (
    <div className="fw-cell" onDoubleClick={onEdit} data-editable={onEdit ? 'true' : undefined}>
      <span className="fw-cell-value" id={`${id}-value`}>
        {children}
      </span>
      {onEdit && (
        <span className="fw-cell-edit" aria-hidden="true" title={editLabel} onClick={onEdit}>
          <EditOutlined />
        </span>
      )}
    </div>
  );
}
