// The login flows bound to one set of options, for hosts that sign people in without Koa (a
// different server, a message queue, a test): the same steps `fwLogin`'s routes take.
import { resolveOptions, type FwLoginOptions } from '../login-options.js';
import { changePassword, type ChangePasswordInput, type ChangePasswordOutcome } from './change-password.js';
import type { FlowRequest } from './flow-request.js';
import { exchangeOpenApiKey, type OpenApiTokenInput, type OpenApiTokenOutcome } from './open-api-token.js';
import { passwordSignIn, type PasswordSignInInput, type PasswordSignInOutcome, type PasswordSignInRequest } from './password-sign-in.js';

/** What {@link loginFlows} returns: each flow with the options already applied. */
export interface LoginFlows {
  /** The password sign-in of `POST /login`. */
  passwordSignIn(input: PasswordSignInInput, request: PasswordSignInRequest): Promise<PasswordSignInOutcome>;
  /** The open-API key exchange of `POST /open-api/token`. */
  exchangeOpenApiKey(input: OpenApiTokenInput, request: FlowRequest): Promise<OpenApiTokenOutcome>;
  /** The password change of `POST /change-pwd` (the forced first change included). */
  changePassword(input: ChangePasswordInput, request: FlowRequest): Promise<ChangePasswordOutcome>;
}

/**
 * The login flows over `fwLogin`'s options, checked and completed the same way (same defaults,
 * same hook rules), each returning its outcome as data: no Koa context in, no HTTP answer out.
 * Share `ephemeral` (and `failedLogins`) with `fwLogin` when both run, so counters and lockouts
 * are one.
 * @throws {FwDefinitionError} for a missing store, token service or ephemeral store, or a bad option.
 * @example
 * const flows = loginFlows({ store, tokens, ephemeral });
 * const outcome = await flows.passwordSignIn({ account: 'alice', pwd }, { ip: '10.0.0.7', userAgent: null });
 * if (outcome.ok) reply(outcome.token);
 * else reply401(outcome.reason, outcome.captcha);
 */
export function loginFlows(options: FwLoginOptions): LoginFlows {
  const o = resolveOptions(options);
  return {
    passwordSignIn: (input, request) => passwordSignIn(o, input, request),
    exchangeOpenApiKey: (input, request) => exchangeOpenApiKey(o, input, request),
    changePassword: (input, request) => changePassword(o, input, request),
  };
}
