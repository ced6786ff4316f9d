// What every login flow is told about the request it serves, in plain values: the flows never see
// Koa's `ctx` (issue 22 §4), so a host can run them from any server, a queue or a test.
import type { FailedSignIn } from '../failed-logins.js';
import type { ResolvedOptions } from '../login-options.js';
import { decodeTransferredPassword } from '../password-transfer.js';

/** The request a login flow serves. */
export interface FlowRequest {
  /** The client address: counted against, checked with the IP allowlist, written to the login log. */
  ip: string;
  /** The `User-Agent` header, for the login log; null when absent. */
  userAgent: string | null;
  /**
   * Receives what went wrong without changing the answer: a login hook's unexpected error (never
   * shown to the client), a login-log write that failed. `fwLogin` hands it to `app.on('error')`.
   * @default ignored
   */
  report?: (error: unknown) => void;
}

/** The reason every lockout answers with. */
export const TOO_MANY = 'Too many failed logins; try again later';

/**
 * Writes a failed sign-in of this request to the login log (issue 19 §6). Awaited, so a flood
 * waits on its own writes rather than piling them up; it costs the same for an unknown account and
 * a wrong password, and a write that fails is reported without changing the answer.
 */
export async function logFailure(services: Pick<ResolvedOptions, 'failedLogins'>, request: FlowRequest, attempt: Omit<FailedSignIn, 'ip' | 'userAgent'>): Promise<void> {
  await services.failedLogins.record({ ...attempt, ip: request.ip, userAgent: request.userAgent }, (error) => request.report?.(error));
}

/** The password as the client sent it, decoded when `fw-app.pwdTransferEncrypt` is on. @throws {FwError} 400 `PASSWORD_ENCODING_INVALID` */
export function plainPassword(services: Pick<ResolvedOptions, 'config'>, sent: string): string {
  return services.config['fw-app.pwdTransferEncrypt'] ? decodeTransferredPassword(sent) : sent;
}
