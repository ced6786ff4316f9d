// `POST /open-api/token` as plain data in, plain outcome out (issue 22 §4): an open-API key's app
// id and secret exchanged for a token of the key's user.
import { LOGIN_FAILURE_REASON, toFwUser, type FwUser, type LoginFailureReason } from '@fw/core';
import { failureReasonOf } from '../failed-logins.js';
import type { ResolvedOptions } from '../login-options.js';
import { issueLoginToken } from '../sign-in.js';
import { TOO_MANY, logFailure, type FlowRequest } from './flow-request.js';

/** What {@link exchangeOpenApiKey} needs of `fwLogin`'s resolved options. */
export type OpenApiTokenServices = Pick<ResolvedOptions, 'attempts' | 'failedLogins' | 'proxy' | 'store' | 'tokens' | 'users'>;

/** An open-API key as the client sent it, its shape already checked (`fwLogin` answers 400 otherwise). */
export interface OpenApiTokenInput {
  appId: string;
  secret: string;
}

/**
 * How an exchange ended. `ok: false`: `reason` is the text the client may see (the same for an
 * unknown app id and a wrong secret), `lockedForMs` set while the app id or address is locked out,
 * `failure` the class the login log recorded.
 */
export type OpenApiTokenOutcome = { ok: true; token: string; expire: Date; user: FwUser } | { ok: false; reason: string; lockedForMs?: number; failure: LoginFailureReason };

const UNKNOWN_KEY = 'Unknown app id or wrong secret';

/**
 * Exchanges an open-API key (see `store.openApis`) for a token of the key's user, so a tool such
 * as a desktop AI client needs one secret only. Failed exchanges are counted like failed logins
 * (per app id and address), so the secret cannot be guessed, and written to the login log with
 * `method: 'open-api'`; the token's login-log row says `open-api:<appId>`.
 */
export async function exchangeOpenApiKey(services: OpenApiTokenServices, input: OpenApiTokenInput, request: FlowRequest): Promise<OpenApiTokenOutcome> {
  const { appId, secret } = input;
  const subject = `open-api:${appId}`;
  // The app id is the account as typed; it names no fw_user account, so none is looked up by it.
  const logged = (reason: LoginFailureReason, user: { id: number; account: string } | null = null) =>
    logFailure(services, request, { account: appId, reason, method: 'open-api', user });
  const state = await services.attempts.state(subject, request.ip);
  if (state.lockedForMs !== undefined) {
    await logged(LOGIN_FAILURE_REASON.THROTTLED);
    return { ok: false, reason: TOO_MANY, lockedForMs: state.lockedForMs, failure: LOGIN_FAILURE_REASON.THROTTLED };
  }
  const key = await services.store.openApis.verify(appId, secret);
  const stored = key ? await services.store.users.findById(key.userId) : undefined;
  const refusal = stored ? services.users.refusal(stored, request.ip) : UNKNOWN_KEY;
  if (!key || !stored || refusal) {
    const after = await services.attempts.fail(subject, request.ip);
    const failure = !key ? LOGIN_FAILURE_REASON.BAD_CREDENTIALS : !stored ? LOGIN_FAILURE_REASON.NOT_STORED : failureReasonOf(refusal ?? '');
    await logged(failure, key && stored ? { id: stored.id, account: stored.account } : null);
    if (after.lockedForMs !== undefined) return { ok: false, reason: TOO_MANY, lockedForMs: after.lockedForMs, failure };
    return { ok: false, reason: key && stored && refusal ? refusal : UNKNOWN_KEY, failure };
  }
  const user = toFwUser(stored);
  const issued = await issueLoginToken(services, { ip: request.ip, userAgent: request.userAgent }, user, `open-api:${key.appId}`);
  if (!issued) {
    await logged(LOGIN_FAILURE_REASON.REFUSED_BY_HOOK, { id: stored.id, account: stored.account });
    return { ok: false, reason: 'The sign-in was refused', failure: LOGIN_FAILURE_REASON.REFUSED_BY_HOOK };
  }
  await services.attempts.succeed(subject, request.ip);
  return { ok: true, token: issued.token, expire: issued.expiresAt, user };
}
