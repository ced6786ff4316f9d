// Live sessions (issue 19 §6): the caller's own, any user's for an administrator, and the users
// online. Data hooks only; the screens are shell/Sessions.tsx and shell/OnlineUsers.tsx.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './api';
import { routes } from './routes';
export type { SessionEntry, OnlineUserEntry, OnlineUsersPage } from './answers';

/** Query keys of the session screens. */
export const sessionKeys = {
  all: ['sessions'] as const,
  of: (userId: number | undefined) => ['sessions', 'user', userId ?? 'me'] as const,
  online: (page: number, size: number) => ['sessions', 'online', page, size] as const,
};

/** The live sessions of the caller, or of `userId` (administrators). */
export function useSessions(userId?: number) {
  return useQuery({
    queryKey: sessionKeys.of(userId),
    queryFn: async () => (await call(routes.sessions(userId))).sessions,
    staleTime: 5_000,
  });
}

/** One page of the users holding live sessions (administrators). */
export function useOnlineUsers(page: number, size: number) {
  return useQuery({
    queryKey: sessionKeys.online(page, size),
    queryFn: () => call(routes.onlineUsers(page, size)),
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

/** Ends one session of the caller (or of `userId`); every session list is read again after. */
export function useEndSession(userId?: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(routes.endSession(id, userId)),
    onSettled: () => client.invalidateQueries({ queryKey: sessionKeys.all }),
  });
}

/**
 * Ends every session of the caller but the current one; with `userId` (administrators), every
 * session of that user.
 */
export function useEndOtherSessions(userId?: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (target?: number) => call(routes.endOtherSessions(target ?? userId)),
    onSettled: () => client.invalidateQueries({ queryKey: sessionKeys.all }),
  });
}
