import type { FwUser } from '@fw/core';
import type { FwStore } from '@fw/store';
import { hashToken, type FwTokenService } from '@fw/token';
import type { LoginProxy } from './login-proxy.js';

/** What {@link issueLoginToken} needs. */
export interface SignInServices {
  store: FwStore;
  tokens: FwTokenService;
  /** The login hook whose `loginSuccess` is told about the token. */
  proxy: Pick<LoginProxy, 'loginSuccess'>;
}

/** Where the sign-in came from, for the login log. */
export interface SignInRequest {
  ip: string | null;
  userAgent: string | null;
}

/**
 * The end of every successful sign-in, password or single sign-on alike: a new 16-character
 * token registered for the user, `loginSuccess(user, token)`, and a login-log row (`method`, for
 * example `password` or `oauth:github`, and the token's hash, never the token). A throwing
 * `loginSuccess` revokes the token again; the sign-in then fails (undefined).
 * @param options.admin the token makes its user an administrator for its life, whatever the
 * stored flag (a login hook returned `isAdmin: true`); `user.isAdmin` itself is not read.
 */
export async function issueLoginToken(
  services: SignInServices,
  request: SignInRequest,
  user: FwUser,
  method: string,
  options: { admin?: boolean } = {},
): Promise<{ token: string; expiresAt: Date } | undefined> {
  const token = services.tokens.generateToken();
  const issued = await services.tokens.loginToken(user, token, { admin: options.admin === true });
  try {
    await services.proxy.loginSuccess(user, token);
  } catch {
    await services.tokens.revoke(token);
    return undefined;
  }
  await services.store.loginLogs.insert({
    userId: user.id,
    account: user.account,
    ip: request.ip,
    userAgent: request.userAgent?.slice(0, 512) || null,
    method,
    tokenHash: hashToken(token),
    admin: user.isAdmin === true || options.admin === true,
  });
  return issued;
}
