/**
 * `npm test`: every test file of the workspace in parallel mocha workers (the browser files in a
 * mocha of their own beside the rest, fewer at a time), then the few files that must run alone;
 * prints one closing line `tests: N passed, N failed, N skipped` for the whole run (the parts'
 * counts added up) and exits non-zero when any part failed.
 *
 *   node --import tsx scripts/test.ts                 the whole suite (`npm test`; `npm run test:coverage` under c8)
 *   FW_TEST_JOBS=1 node --import tsx scripts/test.ts  the same files one after another, in one process
 *   node --import tsx scripts/test.ts <file>…         only these files, the same way
 *
 * Files are independent: each makes its own databases (random names, see @fw/test-utils), Redis
 * key prefixes, temporary folders and loopback ports. A committed `.only` fails the run (mocha's
 * workers forbid it, and the serial part runs with `--forbid-only`), so no test is dropped quietly.
 * See CONTRIBUTING.md, "Test suite time".
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { ROOT, builtFresh } from './release.js';

/** Where the test files are: `<root>/*\/src/**\/*.test.ts` for packages and examples, `test/**`. */
const ROOTS: Array<{ dir: string; perPackage: boolean }> = [
  { dir: 'packages', perPackage: true },
  { dir: 'examples', perPackage: true },
  { dir: 'test', perPackage: false },
];

/**
 * Files that must not run beside others when the build is out of date: packed-host then rebuilds
 * every package's dist/ and the UI's dist/ (the release build empties it first), which the browser
 * and hosting suites serve.
 */
const ALONE = ['test/packed-host.test.ts'];

/**
 * The slowest files measured (CONTRIBUTING.md, "Test suite time"), then the slowest folders:
 * started first, in this order, so that no worker is left with a long file at the end while
 * the others are idle. An entry ending in `/` is a folder.
 */
const SLOW_FIRST: string[] = [
  'test/packed-host.test.ts',
  'test/docs-snippets.test.ts',
  'packages/data/src/http/transfer-routes.test.ts',
  'test/outage-db.test.ts',
  'examples/demo/src/openapi.test.ts',
  'test/bad-input.property.test.ts',
  'packages/login/src/failed-logins.test.ts',
  'test/overload.test.ts',
  'examples/demo/src/app.test.ts',
  'test/ui/paging.test.ts',
  'test/ui/undo.test.ts',
  'test/ui/table-prefs.test.ts',
  'test/ui/live-table.test.ts',
  'test/',
  'examples/',
];

function testFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
      const file = relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (!file.split('/').includes('node_modules')) out.push(file);
    }
  };
  for (const root of ROOTS) {
    if (!root.perPackage) walk(root.dir);
    else for (const pkg of readdirSync(join(ROOT, root.dir))) walk(`${root.dir}/${pkg}/src`);
  }
  return out.sort();
}

/** Whether `file` drives a browser (it declares a `describeBrowser` suite). */
function usesBrowser(file: string): boolean {
  return readFileSync(join(ROOT, file), 'utf8').includes('describeBrowser(');
}

interface Times {
  files: Record<string, number>;
  suites: Record<string, number>;
}

interface Counts {
  passes: number;
  failures: number;
  pending: number;
}

/** Runs mocha on `files`; resolves with its counts (undefined when it ended without any). */
function mocha(files: string[], args: string[], statsFile: string, timesFile?: string): Promise<{ code: number; counts?: Counts }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), ...args, ...files], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, FW_TEST_STATS: statsFile, ...(timesFile ? { FW_TEST_TIMES: timesFile } : {}) },
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const counts = existsSync(statsFile) ? (JSON.parse(readFileSync(statsFile, 'utf8')) as Counts) : undefined;
      resolve({ code: code ?? (signal ? 1 : 0), counts });
    });
  });
}

async function main(): Promise<number> {
  const picked = process.argv.slice(2);
  const all = picked.length > 0 ? picked : testFiles();
  // The packed-host test builds (emptying the output folders the browser suites serve) only when
  // the build is out of date; after `.ci/run`'s build it does not, and runs beside the others.
  // The packed-host test is told so (FW_TEST_BUILT_FRESH), and never builds beside the others.
  const fresh = builtFresh();
  if (fresh) process.env.FW_TEST_BUILT_FRESH = '1';
  const mustBeAlone = fresh ? [] : ALONE;
  const alone = all.filter((f) => mustBeAlone.includes(f));
  const rest = all.filter((f) => !mustBeAlone.includes(f));
  const rank = (f: string) => {
    const i = SLOW_FIRST.findIndex((entry) => (entry.endsWith('/') ? f.startsWith(entry) : f === entry));
    return i === -1 ? SLOW_FIRST.length : i;
  };
  rest.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));

  // Most of a server test's time is spent waiting (databases, child processes, timers), so the
  // rest runs in one worker per core and one more, at least 3. The browser files (each drives one to three Chromium pages against its own demo app) run in a
  // mocha of their own beside the rest, FW_TEST_BROWSER_JOBS at a time (default: one per core):
  // four of them at once on two cores made pages miss their time limits.
  const serial = process.env.FW_TEST_JOBS === '1';
  const jobs = Number(process.env.FW_TEST_JOBS ?? Math.max(3, availableParallelism() + 1));
  const browserJobs = Number(process.env.FW_TEST_BROWSER_JOBS ?? Math.max(1, availableParallelism()));
  const flags = (n: number) => (n > 1 ? ['--parallel', '--jobs', String(n)] : ['--forbid-only']);
  // A browser test that fails once gets one more try (FW_TEST_BROWSER_RETRIES, 0 for none): on two
  // busy cores a page step now and then misses its limit. The reporter lists every test that
  // needed it, with its first error, so a flaky test is seen, not hidden.
  const browserRetries = ['--retries', String(Number(process.env.FW_TEST_BROWSER_RETRIES ?? 1))];
  const browser = serial ? [] : rest.filter(usesBrowser);
  const server = rest.filter((f) => !browser.includes(f));
  const dir = mkdtempSync(join(tmpdir(), 'fw-test-stats-'));
  const total: Counts = { passes: 0, failures: 0, pending: 0 };
  let failed = false;
  // FW_TEST_TIMES (see test/support/reporter.cjs): each part records its own, merged here.
  const timesWanted = process.env.FW_TEST_TIMES;
  const times: Times = { files: {}, suites: {} };
  const part = async (i: number, files: string[], args: string[]) => {
    if (files.length === 0) return;
    const { code, counts } = await mocha(files, args, join(dir, `part-${i}.json`), timesWanted ? join(dir, `times-${i}.json`) : undefined);
    if (code !== 0 || !counts) failed = true;
    if (!counts) console.error(`mocha ended (exit code ${code}) without counting its tests: ${files.length} file(s) not counted`);
    else for (const key of ['passes', 'failures', 'pending'] as const) total[key] += counts[key];
    const partTimes = join(dir, `times-${i}.json`);
    if (timesWanted && existsSync(partTimes)) {
      const found = JSON.parse(readFileSync(partTimes, 'utf8')) as Times;
      Object.assign(times.files, found.files);
      Object.assign(times.suites, found.suites);
    }
  };
  try {
    await Promise.all([part(0, server, flags(jobs)), part(1, browser, [...flags(browserJobs), ...browserRetries])]);
    await part(2, alone, ['--forbid-only']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (timesWanted) {
    const sorted = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).sort((a, b) => b[1] - a[1]));
    writeFileSync(timesWanted, `${JSON.stringify({ files: sorted(times.files), suites: sorted(times.suites) }, null, 2)}\n`);
  }
  process.stdout.write(`tests: ${total.passes} passed, ${total.failures} failed, ${total.pending} skipped\n`);
  return failed || total.failures > 0 ? 1 : 0;
}

process.exitCode = await main();
