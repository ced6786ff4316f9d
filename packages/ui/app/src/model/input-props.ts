// The props every field input takes, apart from the inputs themselves so the attachment input
// (attachments.tsx), which inputs.tsx renders, can name them without importing back.
import type { FieldView } from '../types';

/** What every input gets: the value and onChange from the form item, and where it is. */
export interface InputProps {
  field: FieldView;
  /** The model the field belongs to (reference pickers ask the server for its candidates). */
  model: string;
  value?: unknown;
  onChange?: (value: unknown) => void;
  id?: string;
  autoFocus?: boolean;
  disabled?: boolean;
  /** The edit form: an empty password keeps the stored one. */
  keepEmptyPassword?: boolean;
  /** The cell editor: open pickers at once. */
  inCell?: boolean;
}
