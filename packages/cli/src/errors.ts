/**
 * A failure `fw` reports as one line on the standard error and an exit code: 2 for a wrong
 * command line, 1 for anything else (unreachable database, unknown account, differences found).
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** `text` with the URL's password (as written and decoded) replaced by `***`, whatever a driver put in its message. */
export function hidePassword(text: string, url: string): string {
  let password: string;
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (password === '') return text;
  let out = text.split(password).join('***');
  try {
    const decoded = decodeURIComponent(password);
    if (decoded !== '') out = out.split(decoded).join('***');
  } catch {
    // A malformed escape: the raw form is hidden already.
  }
  return out;
}
