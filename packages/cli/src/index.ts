export { USAGE, runCli } from './cli.js';
export type { CliIo } from './cli.js';
export { CliError } from './errors.js';
export { readNewPassword } from './password.js';
export type { PasswordInput, PromptOutput } from './password.js';
