// The permission editor's server state (issue 20 §1): GET /power/grantable (what the signed-in
// person may grant to a role) and GET /power/explain/{fw}?user= (why a user holds each flag),
// through the query cache like every other read (STYLE 15). Shapes as docs/http-api.md gives them.
import { useQuery } from '@tanstack/react-query';
import { call } from './api';
import { routes } from './routes';
export type { GrantableMenu, GrantableRow, GrantableMatrix, ExplainStep, PowerExplanation, AssignableEntry, AssignableLists } from './answers';

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

/** The roles and organisations the signed-in person may give a user. */
export function useAssignable(enabled = true) {
  return useQuery({ queryKey: ['power', 'assignable'], queryFn: () => call(routes.assignable()), enabled, staleTime: 0, retry: false });
}
