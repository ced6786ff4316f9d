// What the CLI tests share: `fw` run in the test's own process (runCli with its own input, output
// and environment), `fw` run as a child process (the installed command's path: bin.ts, exit codes),
// and the host models modules they pass with --models.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EditType, defineModel, type ModelDefinition } from '@fw/core';
import { runCli } from './cli.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface FwOptions {
  /** What is piped on the standard input (a pipe, not a terminal). */
  input?: string;
  /** Added to the environment; the test shell's FW_DB_URL and FW_MODELS never leak in. */
  env?: Record<string, string>;
}

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.FW_DB_URL;
  delete env.FW_MODELS;
  return Object.assign(env, extra);
}

/**
 * Runs one `fw` command line through `runCli`, in this process: what a shell would pipe in, the
 * two outputs and the exit code, without the second or two of CPU a node process with the tsx
 * loader costs (the CLI suites ran some eighty of them).
 */
export async function fw(args: string[], options: FwOptions = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdin: Readable.from([options.input ?? ''], { objectMode: false }),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: environment(options.env),
    cwd: process.cwd(),
  });
  return { code, stdout, stderr };
}

/** The command's entry point, as `npm exec fw` runs it (from source, with the workspace's tsx loader). */
export const BIN = fileURLToPath(new URL('./bin.ts', import.meta.url));

/** Runs `fw` as a person would: a child process of bin.ts, `input` piped on stdin. */
export function fwProcess(args: string[], options: FwOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=fw-source', BIN, ...args], { env: environment(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Which host models a models module exports. */
export interface CliModelsOptions {
  /** 'v2' adds a field (pages), the way a host changes a model between releases. */
  variant?: 'v1' | 'v2';
  /** Adds a model for doctor's index advice (issue 21 §3); 'declared' declares the status index. */
  indexes?: 'plain' | 'declared';
}

/** The host models of the CLI tests. */
export function cliModels(options: CliModelsOptions = {}): ModelDefinition[] {
  return [
    defineModel({
      name: 'CliBook',
      table: 'cli_book',
      fields: {
        title: { edit: { notNull: true } },
        ...(options.variant === 'v2' ? { pages: { edit: { type: EditType.NUMBER, integer: true } } } : {}),
      },
    }),
    ...(options.indexes
      ? [
          defineModel({
            name: 'CliTicket',
            table: 'cli_ticket',
            fields: {
              status: { index: options.indexes === 'declared' },
              score: { edit: { type: EditType.NUMBER }, views: { show: false } },
              note: { edit: { type: EditType.TEXTAREA } },
              secret: { edit: { type: EditType.PASSWORD } },
              internal: { views: { show: false, sortable: false } },
            },
          }),
        ]
      : []),
  ];
}

let modulesDir: string | undefined;

/**
 * The path of a models module for `--models`, exporting `cliModels(options)`: a file of its own
 * per variant, since a module is loaded once per process. Written once into a temporary folder.
 */
export function modelsFile(options: CliModelsOptions = {}): string {
  if (!modulesDir) {
    const dir = mkdtempSync(join(tmpdir(), 'fw-cli-models-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    modulesDir = dir;
  }
  const file = join(modulesDir, `models-${options.variant ?? 'v1'}-${options.indexes ?? 'none'}.ts`);
  const setup = pathToFileURL(fileURLToPath(import.meta.url)).href;
  writeFileSync(file, `import { cliModels } from ${JSON.stringify(setup)};\nexport const models = cliModels(${JSON.stringify(options)});\n`);
  return file;
}
