// The row a form edits, for inputs that need it: an image field's stored files are shown as
// thumbnails, fetched through the file route that names the row.
import { createContext, useContext } from 'react';

/** The id of the row the surrounding form edits (undefined while adding). */
export const FormRowContext = createContext<unknown>(undefined);

/** The id of the row the surrounding form edits, if any. */
export function useFormRowId(): unknown {
  return useContext(FormRowContext);
}
