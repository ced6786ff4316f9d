// A person's stored preferences (GET/PUT/DELETE /prefs/{name}), e.g. `table:<model>` for a table's
// layout (model/columns/tablePrefs.ts). Writes of one name share a mutation scope, so they reach
// the server in the order they were made.
import { useMutation, useQuery } from '@tanstack/react-query';
import { call } from './api';
import { routes } from './routes';

/** The cache key of a stored preference. */
export const prefKey = (name: string) => ['prefs', name] as const;

/** A stored preference's value; a copy of `empty` when none is stored. */
export function useStoredPref<Value extends object>(name: string, empty: Value) {
  return useQuery({
    queryKey: prefKey(name),
    queryFn: async () => (await call(routes.pref<Value>(name))).value ?? { ...empty },
    staleTime: 60_000,
  });
}

/** Stores a preference's new value. */
export function useSavePref<Value>(name: string, onError: (error: Error) => void) {
  return useMutation({ scope: { id: `prefs:${name}` }, mutationFn: (value: Value) => call(routes.savePref(name, value)), onError });
}

/** Forgets a stored preference. */
export function useDeletePref(name: string, onError: (error: Error) => void) {
  return useMutation({ scope: { id: `prefs:${name}` }, mutationFn: () => call(routes.deletePref(name)), onError });
}
