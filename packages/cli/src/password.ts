import { CliError } from './errors.js';

/** The standard input as the password reader needs it (a TTY can switch echo off). */
export interface PasswordInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Where prompts go: the standard error, so the standard output stays clean for scripts. */
export interface PromptOutput {
  write(text: string): unknown;
}

/**
 * Everything piped in, read once per stream and kept, so a second read of the same stream (the
 * confirmation) sees the same text. Keyed by the stream: a host that calls `runCli` again with
 * another input reads that input, not the first one's.
 */
const piped = new WeakMap<PasswordInput, Promise<string>>();

function readAll(input: PasswordInput): Promise<string> {
  let read = piped.get(input);
  if (!read) {
    read = new Promise((resolve, reject) => {
      let text = '';
      input.setEncoding('utf8');
      input.on('data', (chunk: string | Buffer) => {
        text += String(chunk);
      });
      input.on('end', () => resolve(text));
      input.on('error', reject);
    });
    piped.set(input, read);
  }
  return read;
}

/** One line typed at a terminal with echo off (raw mode: each key arrives as it is pressed). */
function readHidden(input: PasswordInput & { setRawMode(mode: boolean): unknown }, prompt: string, output: PromptOutput): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: string | Buffer) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          finish();
          reject(new CliError('cancelled', 130));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else value += ch;
      }
    };
    // Echo goes off before the prompt shows, so nothing typed after it can appear on the screen.
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
    output.write(prompt);
  });
}

/**
 * Reads a new password: at a terminal, typed twice without echo; piped, the first line of the
 * standard input (without its line break). Never from an argument: those end up in shell history
 * and in every user's `ps` listing.
 * @throws {CliError} for an empty (or blank) password, or two entries that differ.
 */
export async function readNewPassword(input: PasswordInput, output: PromptOutput, what: string): Promise<string> {
  let password: string;
  if (input.isTTY && typeof input.setRawMode === 'function') {
    const tty = input as PasswordInput & { setRawMode(mode: boolean): unknown };
    password = await readHidden(tty, `Password for ${what}: `, output);
    if (password.trim() !== '' && (await readHidden(tty, 'Again: ', output)) !== password) throw new CliError('the two passwords differ; nothing was changed', 1);
  } else {
    const text = await readAll(input);
    const newline = text.search(/\r?\n/);
    password = newline < 0 ? text : text.slice(0, newline);
  }
  if (password.trim() === '') {
    throw new CliError(`empty password refused for ${what} (type it at the prompt, or pipe it: printf '%s\\n' "$PASSWORD" | fw …)`, 1);
  }
  return password;
}
