// The writes of the UI as mutation hooks (issue 22 §5): each sends one route of routes.ts and
// answers what the route answers; errors are the transport's ApiError, unchanged. Which cache keys
// a write makes stale is the caller's step after it (invalidateModel in queries.ts, keys.userinfo
// and keys.menu after a password change), so messages and refreshes keep their order.
import { useMutation } from '@tanstack/react-query';
import { call, send } from './api';
import { routes, type ImportMode } from './routes';
import type { CellEdit, PastedRow, Row } from '../types';
import type { UndoBody, ViewInput } from './answers';

// Sent at once even when the browser says it is offline: the request fails as a NETWORK ApiError
// and the form shows it, as when these writes called the transport directly (TanStack's default
// would hold the write until the browser is online again).
const SEND_NOW = { networkMode: 'always' } as const;

/** Saves one cell (`POST /data/modify/{fw}/update-cell`); answers the row as stored. */
export function useUpdateCell(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (cell: CellEdit) => call(routes.updateCell(fw, cell)) });
}

/** Adds a row from the form's values. */
export function useAddRow(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (values: Row) => send(routes.addRow(fw, values)) });
}

/** Updates a row; `version` (the ETag it was read with) goes as If-Match. */
export function useUpdateRow(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: ({ values, version }: { values: Row; version?: string }) => send(routes.updateRow(fw, values, version)) });
}

/** Adds a copy of row `id` with the form's values. */
export function useCopyRow(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: ({ id, values }: { id: number; values: Row }) => send(routes.copyRow(fw, id, values)) });
}

/** Deletes rows by id; answers how many went. */
export function useDeleteRows(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (ids: number[]) => call(routes.deleteRows(fw, ids)) });
}

/** Imports a spreadsheet file in `mode`. */
export function useImport(fw: string) {
  return useMutation({
    ...SEND_NOW,
    mutationFn: ({ file, mode }: { file: File; mode: ImportMode }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return call(routes.importRows(fw, mode, form));
    },
  });
}

/** Uploads one file to an attachment field; answers the stored files. */
export function useUpload(fw: string, field: string) {
  return useMutation({
    ...SEND_NOW,
    mutationFn: (file: File) => {
      const body = new FormData();
      body.append('file', file, file.name);
      return call(routes.upload(fw, field, body));
    },
  });
}

/** Changes the signed-in person's password (the three values already encoded for the wire). */
export function useChangePassword() {
  return useMutation({ ...SEND_NOW, mutationFn: (body: { pwd: string; newPwd: string; newPwd2: string }) => call(routes.changePassword(body)) });
}

/** Ends the current session on the server (a 401 is not an ended-session redirect here). */
export function useLogout() {
  return useMutation({ ...SEND_NOW, mutationFn: () => call(routes.logout()) });
}

/** Signs in (`POST /login`; a 401 is the wrong-password answer, not an ended session). */
export function useSignIn() {
  return useMutation({ ...SEND_NOW, mutationFn: (body: Record<string, string>) => call(routes.signIn(body)) });
}

/** Sets the same values on many rows in one all-or-nothing request; answers the count and the batch id. */
export function useUpdateMany(fw: string) {
  return useMutation({
    ...SEND_NOW,
    mutationFn: ({ target, values }: { target: { ids: number[] } | { conditions: unknown[] }; values: Row }) => call(routes.updateMany(fw, target, values)),
  });
}

/** Saves rows each with their own values (a paste) in one all-or-nothing request; `dryRun` only checks them. */
export function useUpdateRows(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: ({ rows, dryRun }: { rows: PastedRow[]; dryRun?: boolean }) => call(routes.updateRows(fw, rows, dryRun)) });
}

/** Puts a row back to how it was before history entry `entry`. */
export function useRestore(fw: string, id: number) {
  return useMutation({ ...SEND_NOW, mutationFn: (entry: number) => call(routes.restore(fw, id, entry)) });
}

/** Puts trashed rows back with their ids, all or none. */
export function useUndelete(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (ids: number[]) => call(routes.undelete(fw, ids)) });
}

/** Empties trashed rows for good (administrators): the given ones, or all of the model's. */
export function usePurgeTrash(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (ids?: number[]) => call(routes.purgeTrash(fw, ids)) });
}

/** Saves a view (a new one, or one of the caller's own by id). */
export function useSaveView(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (view: ViewInput) => call(routes.saveView(fw, view)) });
}

/** Deletes one of the caller's own views. */
export function useDeleteView(fw: string) {
  return useMutation({ ...SEND_NOW, mutationFn: (id: number) => call(routes.deleteView(fw, id)) });
}

/** Takes back a batch of changes (or, administrators, a user's changes in a time window); `dryRun` only lists them. */
export function useUndo() {
  return useMutation({ ...SEND_NOW, mutationFn: (body: UndoBody) => call(routes.undo(body)) });
}
