// The Fw HTTP routes the admin UI calls, as one typed table (issue 22 §5). Each entry builds a
// request — method, path under the API prefix, body, extra headers — and carries the type of its
// answer, so `send(routes.deleteRows('Book', [1]))` is typed end to end. Names and ids in a path are
// URI-encoded here and nowhere else. This file holds no browser code (tested under Node by
// packages/ui/src/client-routes.test.ts); sending is client/api.ts, the hooks are the other files
// of client/. Shapes come from ../types.ts and the hook files beside this one.
import type { AttachmentValue, BuildView, CellEdit, PastedRow, LoginSettings, MenuEntry, ReferencePage, Row, TablePage, TableQuery, UserInfo } from '../types';
import type {
  Activity,
  AssignableLists,
  BulkAnswer,
  GrantableMatrix,
  HistoryPage,
  SavedView,
  TrashPage,
  UndoAnswer,
  UndoBody,
  ViewInput,
  OnlineUsersPage,
  PowerExplanation,
  RestoreAnswer,
  SessionEntry,
} from './answers';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One request of the UI; `Answer` is the JSON the route answers with (never set at run time). */
export interface Route<Answer> {
  method: Method;
  /** The path under the API prefix, query string included ("/data/import/Book?mode=add"). */
  path: string;
  /** JSON-encoded, or a FormData sent as multipart. */
  body?: unknown;
  headers?: Record<string, string>;
  /** A 401 is an answer of this route (a wrong password), not an ended session. */
  keep401?: boolean;
  /** Sent with `keepalive`, so it still goes out while the page is being left (`pagehide`). */
  keepalive?: boolean;
  /** Type only: what the route answers. */
  readonly answer?: Answer;
}

/** A route whose answer is bytes (a stored file, an import template), read as a blob. */
export interface BlobRoute {
  method: 'GET';
  path: string;
}

/** The answer of `POST /login`. */
export interface LoginAnswer {
  pass: boolean;
  token?: string;
  resetPwd?: boolean;
  useVerifyCode?: boolean;
  reason?: string;
  retryAfter?: number;
}

/** The body of a presence post: the tab's key, the row open (`null`: none) and the field of a cell editor. */
export type PresenceBody = { client: string; id: number | null; field?: string };

/** Search, page or ids of a reference field's candidates. */
export type ReferenceParams = { search?: string; page?: number; size?: number; ids?: number[] };

/** How an import treats rows: add new ones, update by key, or both. */
export type ImportMode = 'add' | 'update' | 'upsert';

/** The answer of `POST /data/import/{fw}`. */
export interface ImportAnswer {
  imported: number;
  added?: number;
  updated?: number;
  /** The batch of the rows written (servers that log imports by batch): what an undo names. */
  batch?: string;
}

const seg = (part: string | number): string => encodeURIComponent(String(part));
const userQuery = (userId: number | undefined) => (userId === undefined ? '' : `?user=${userId}`);
const get = <A>(path: string): Route<A> => ({ method: 'GET', path });
const post = <A>(path: string, body?: unknown, extra: Partial<Route<A>> = {}): Route<A> => ({ method: 'POST', path, ...(body === undefined ? {} : { body }), ...extra });

/** Every route of the UI by what it does. */
export const routes = {
  // sign-in and the account
  loginSettings: () => get<LoginSettings>('/login-settings'),
  signIn: (body: Record<string, string>) => post<LoginAnswer>('/login', body, { keep401: true }),
  captchaPath: (mark: string) => `/code-img?mark=${mark}`,
  logout: () => post<unknown>('/logout', undefined, { keep401: true }),
  changePassword: (body: { pwd: string; newPwd: string; newPwd2: string }) => post<unknown>('/change-pwd', body),
  userInfo: () => get<UserInfo>('/userinfo'),
  menu: () => get<MenuEntry[]>('/menu'),
  activity: () => get<Activity>('/my/activity?limit=8'),

  // a model: description, reads, writes
  build: (fw: string) => get<BuildView>(`/build/${seg(fw)}`),
  table: (fw: string, query: TableQuery) => post<TablePage>(`/data/table/${seg(fw)}`, query),
  row: (fw: string, id: number) => get<Row>(`/data/${seg(fw)}/${seg(id)}`),
  /** The live stream of a model's changes (server-sent events, read by client/live.ts). */
  liveEvents: (fw: string) => get<never>(`/data/events/${seg(fw)}`),
  /** This tab has row `id` (and `field`) open in a form or cell editor; `id: null`: it left (client/presence.ts). */
  presence: (fw: string, body: PresenceBody) => post<void>(`/data/presence/${seg(fw)}`, body, { keep401: true, keepalive: true }),
  reference: (fw: string, field: string, params: ReferenceParams) => post<ReferencePage>(`/data/reference/${seg(fw)}/${seg(field)}`, params),
  updateCell: (fw: string, cell: CellEdit) => post<Row>(`/data/modify/${seg(fw)}/update-cell`, cell),
  addRow: (fw: string, values: Row) => post<unknown>(`/data/modify/${seg(fw)}`, values),
  /** `version` (the row's ETag) goes as `If-Match`: a row changed since is refused (409 STALE_ROW). */
  updateRow: (fw: string, values: Row, version?: string) => post<unknown>(`/data/modify/${seg(fw)}/update`, values, { headers: version ? { 'if-match': version } : {} }),
  copyRow: (fw: string, id: number, values: Row) => post<unknown>(`/data/modify/${seg(fw)}/copy`, { id, values }),
  deleteRows: (fw: string, ids: number[]) => post<{ deleted: number; batch?: string }>(`/data/modify/${seg(fw)}/delete`, { ids }),
  /** One change to many rows, all or none: chosen ids, or every visible row matching conditions. */
  updateMany: (fw: string, target: { ids: number[] } | { conditions: unknown[] }, values: Row) => post<BulkAnswer>(`/data/modify/${seg(fw)}/update-many`, { ...target, values }),
  /** Rows each with their own values (a paste), all or none; `dryRun` checks without writing. */
  updateRows: (fw: string, rows: PastedRow[], dryRun = false) => post<BulkAnswer>(`/data/modify/${seg(fw)}/update-many`, { rows, ...(dryRun ? { dryRun: true } : {}) }),
  trash: (fw: string, page: number, size: number) => post<TrashPage>(`/data/trash/${seg(fw)}`, { page, size }),
  undelete: (fw: string, ids: number[]) => post<{ restored: number; batch?: string; dropped?: unknown[] }>(`/data/modify/${seg(fw)}/undelete`, { ids }),
  purgeTrash: (fw: string, ids?: number[]) => post<{ purged: number }>(`/data/trash/${seg(fw)}/purge`, ids ? { ids } : {}),
  /** Takes back a batch, or a user's changes in a time window; `dryRun` lists what would happen. */
  undo: (body: UndoBody) => post<UndoAnswer>('/data/undo', body),
  history: (fw: string, id: number, page: number, size: number) => get<HistoryPage>(`/data/${seg(fw)}/${seg(id)}/history?page=${page}&size=${size}`),
  restore: (fw: string, id: number, entry: number) => post<RestoreAnswer>(`/data/${seg(fw)}/${seg(id)}/restore`, { entry }),
  importRows: (fw: string, mode: ImportMode, form: FormData) => post<ImportAnswer>(`/data/import/${seg(fw)}?mode=${mode}`, form),
  importTemplate: (fw: string, format: 'xlsx' | 'csv'): BlobRoute => ({ method: 'GET', path: `/data/import-template/${seg(fw)}?format=${format}` }),
  upload: (fw: string, field: string, form: FormData) => post<{ files: AttachmentValue[] }>(`/data/upload/${seg(fw)}/${seg(field)}`, form),
  file: (fw: string, field: string, rowId: unknown, fileId: string, inline = false): BlobRoute => ({
    method: 'GET',
    path: `/data/file/${seg(fw)}/${seg(field)}/${seg(String(rowId))}/${seg(fileId)}${inline ? '?inline=1' : ''}`,
  }),
  /** Paths opened as links (the token goes as `_token`, see links.ts). */
  printPath: (fw: string, id: number) => `/data/print/${seg(fw)}/${seg(id)}`,
  exportPath: (fw: string) => `/data/export/${seg(fw)}`,

  // saved views of a model
  views: (fw: string) => get<{ views: SavedView[] }>(`/views/${seg(fw)}`),
  saveView: (fw: string, view: ViewInput) => post<SavedView>(`/views/${seg(fw)}`, view),
  deleteView: (fw: string, id: number): Route<{ id: number; deleted: true }> => ({ method: 'DELETE', path: `/views/${seg(fw)}/${seg(id)}` }),

  // sessions
  sessions: (userId?: number) => get<{ sessions: SessionEntry[] }>(`/sessions${userQuery(userId)}`),
  onlineUsers: (page: number, size: number) => get<OnlineUsersPage>(`/sessions/online?page=${page}&size=${size}`),
  endSession: (id: string, userId?: number) => ({ method: 'DELETE', path: `/sessions/${seg(id)}${userQuery(userId)}` }) as Route<{ ok: true; current: boolean }>,
  endOtherSessions: (userId?: number) => post<{ ok: true; ended: number }>(`/sessions/revoke-others${userQuery(userId)}`),

  // stored preferences
  pref: <Value>(name: string) => get<{ value: Value | null }>(`/prefs/${seg(name)}`),
  savePref: (name: string, value: unknown): Route<unknown> => ({ method: 'PUT', path: `/prefs/${seg(name)}`, body: { value } }),
  deletePref: (name: string): Route<unknown> => ({ method: 'DELETE', path: `/prefs/${seg(name)}` }),

  // permissions
  grantable: () => get<GrantableMatrix>('/power/grantable'),
  assignable: () => get<AssignableLists>('/power/assignable'),
  explain: (fw: string, user?: number) => get<PowerExplanation>(`/power/explain/${seg(fw)}${user === undefined ? '' : `?user=${user}`}`),
};
