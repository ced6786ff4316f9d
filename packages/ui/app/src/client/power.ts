// The permission editor's server state (issue 20 §1): GET /power/grantable (what the signed-in
// person may grant to a role) and GET /power/explain/{fw}?user= (why a user holds each flag),
// through the query cache like every other read (STYLE 15). Shapes as docs/http-api.md gives them.
import { useQuery } from '@tanstack/react-query';
import { call } from './api';
import { routes } from './routes';
import type { PowerObject } from '../types';

/** One menu as a cell of the matrix. */
export interface GrantableMenu {
  id: number;
  code: string | null;
  name: string;
  status: string;
  grantable: boolean;
  revocable: boolean;
  refusal?: { code: string; message: string };
}

/** A row of the matrix: a non-function menu with its function menus by column key. */
export interface GrantableRow {
  menu: GrantableMenu;
  type: string;
  parentId: number | null;
  depth: number;
  model?: string;
  cells: Record<string, GrantableMenu>;
}

/** `GET /power/grantable`. */
export interface GrantableMatrix {
  editor: { id: number; isAdmin: boolean };
  role: { model: string; field: string };
  columns: Array<{ key: string; flag?: string; name?: string }>;
  rows: GrantableRow[];
}

/** One step of a flag's explanation; `value` is the flag after it. */
export interface ExplainStep {
  kind: 'declared' | 'admin' | 'modelMenu' | 'functionMenu' | 'handler' | 'aiGate' | 'cellGate' | 'requires';
  value: boolean;
  code?: string;
  held?: boolean;
  roles?: Array<{ id: number; name: string; menu: { id: number; name: string } }>;
  changed?: boolean;
  requires?: string;
  fields?: string[];
}

/** `GET /power/explain/{fw}`. */
export interface PowerExplanation {
  model: { name: string; title: string };
  user: { id: number; account: string; name: string | null; isAdmin: boolean };
  power: PowerObject;
  flags: Array<{ flag: string; value: boolean; steps: ExplainStep[] }>;
}

/** What the signed-in person may grant (fresh on every form: grants change). */
export function useGrantable(enabled = true) {
  return useQuery({ queryKey: ['power', 'grantable'], queryFn: () => call(routes.grantable()), enabled, staleTime: 0, retry: false });
}

/** Why `user` (the signed-in person when undefined) holds each flag on `fw`. */
export function useExplain(fw: string | undefined, user: number | undefined) {
  return useQuery({
    queryKey: ['power', 'explain', fw, user ?? 'self'],
    enabled: fw !== undefined,
    retry: false,
    staleTime: 0,
    queryFn: () => call(routes.explain(fw ?? '', user)),
  });
}

/** One role or organisation as the user form's picker offers it. */
export interface AssignableEntry {
  id: number;
  name: string;
  code: string | null;
  parentId?: number | null;
  depth?: number;
  status?: string;
  grantable: boolean;
  refusal?: { code: string; message: string };
}

/** `GET /power/assignable`. */
export interface AssignableLists {
  editor: { id: number; isAdmin: boolean };
  user: { model: string; roles?: string; orgs?: string };
  roles: AssignableEntry[];
  orgs: AssignableEntry[];
}

/** The roles and organisations the signed-in person may give a user. */
export function useAssignable(enabled = true) {
  return useQuery({ queryKey: ['power', 'assignable'], queryFn: () => call(routes.assignable()), enabled, staleTime: 0, retry: false });
}
