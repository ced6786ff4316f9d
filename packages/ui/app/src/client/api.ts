// Every request of the app goes through here: the token header, JSON in and out, the Fw error
// body turned into an ApiError, and a 401 sending the person to the sign-in page. The hooks of this
// folder send the routes of routes.ts with `send`/`call`; components never call this file's
// request functions themselves (packages/ui/src/client-routes.test.ts checks).
import { config } from '../config';
import { clearToken, getToken, rememberReturn } from '../auth';
import { navigate } from '../router';
import type { ErrorDetail } from '../types';
import type { BlobRoute, Route } from './routes';

/** A refused request, with the Fw error body's parts. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** The whole parsed body (a 409 STALE_ROW carries `current` and `version` beside `error`). */
    readonly body: Record<string, unknown> = {},
    /** Seconds from the `Retry-After` header, when there is one. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The full URL of an API path ("/data/table/Book"). */
export function apiUrl(path: string): string {
  return config.apiPrefix + path;
}

/** A download or print URL carrying the token as `_token` (accepted only on export and print). */
export function tokenUrl(path: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(params);
  const token = getToken();
  if (token) query.set('_token', token);
  const qs = query.toString();
  return apiUrl(path) + (qs ? `?${qs}` : '');
}

const passwordChangeListeners = new Set<() => void>();

/**
 * Calls `listener` whenever the server answers 403 `PASSWORD_CHANGE_REQUIRED` (the account's
 * password was set by an administrator and must be changed first); the shell then shows the
 * forced-change screen. Returns the unsubscribe function.
 */
export function onPasswordChangeRequired(listener: () => void): () => void {
  passwordChangeListeners.add(listener);
  return () => passwordChangeListeners.delete(listener);
}

let leaving = false;

/** Sends the person to the sign-in page, remembering where they were. */
export function toSignIn(): void {
  if (leaving) return;
  leaving = true;
  clearToken();
  rememberReturn();
  navigate('/login', { replace: true });
  // Let the next 401 (after signing in again) redirect too.
  setTimeout(() => {
    leaving = false;
  }, 0);
}

/** Options of {@link request}. */
export interface RequestOptions {
  method?: string;
  /** JSON-encoded unless it is a string (sent as it is, with `contentType`) or a FormData (sent as multipart). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** Do not treat a 401 as an ended session (the login route answers 401 for a wrong password). */
  keep401?: boolean;
  /** Let the request outlive the page (a presence post on `pagehide`). */
  keepalive?: boolean;
}

/** The answer of a successful request: its JSON body and its headers. */
export interface ApiResponse<T> {
  data: T;
  headers: Headers;
}

async function parse(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Calls an API path; resolves with the JSON body and headers, rejects with an ApiError. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const token = getToken();
  if (token) headers.token = token;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    if (options.body instanceof FormData) {
      body = options.body; // the browser sets the multipart content type with its boundary
    } else if (typeof options.body === 'string') {
      body = options.body;
      headers['content-type'] = options.contentType ?? 'text/plain';
    } else {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, ...(options.keepalive ? { keepalive: true } : {}) });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', error instanceof Error ? error.message : 'The server cannot be reached');
  }
  const data = await parse(response);
  if (response.ok) return { data: data as T, headers: response.headers };
  const retry = Number(response.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
  const object = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  const error = object.error && typeof object.error === 'object' ? (object.error as { code?: unknown; message?: unknown; details?: unknown }) : undefined;
  const failure = new ApiError(
    response.status,
    typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
    typeof error?.message === 'string' ? error.message : typeof object.reason === 'string' ? object.reason : response.statusText || `HTTP ${response.status}`,
    Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [],
    object,
    retryAfter,
  );
  if (response.status === 401 && !options.keep401) toSignIn();
  if (response.status === 403 && failure.code === 'PASSWORD_CHANGE_REQUIRED') for (const listener of passwordChangeListeners) listener();
  throw failure;
}

/** Shorthand: the JSON body only. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await request<T>(path, options)).data;
}

/** Sends one route of the table in routes.ts; resolves with its typed JSON body and the headers. */
export function send<Answer>(route: Route<Answer>): Promise<ApiResponse<Answer>> {
  return request<Answer>(route.path, { method: route.method, body: route.body, headers: route.headers, keep401: route.keep401, keepalive: route.keepalive });
}

/** {@link send}, the JSON body only. */
export async function call<Answer>(route: Route<Answer>): Promise<Answer> {
  return (await send(route)).data;
}

/**
 * The bytes a route serves only with the token header (a stored file, an import template), as a
 * blob. A refusal is an ApiError with the status; no sign-in redirect (the page stays as it is).
 */
export async function fetchBlob(route: BlobRoute): Promise<Blob> {
  const token = getToken();
  const response = await fetch(apiUrl(route.path), { headers: token ? { token } : {} });
  if (!response.ok) throw new ApiError(response.status, `HTTP_${response.status}`, response.statusText || `HTTP ${response.status}`);
  return response.blob();
}
