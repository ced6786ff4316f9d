/**
 * Builds, tests and packs every public Fw package (see docs/release.md).
 *
 *   node --import tsx scripts/release.ts build          compile each package to dist/ (and the UI app)
 *   node --import tsx scripts/release.ts build test pack   what `npm run release` does
 *   node --import tsx scripts/release.ts pack [folder]  npm pack each package into folder (default release/)
 *
 * Publishing is not done here: it stays a manual step (`npx changeset publish`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A public workspace package, as the release script sees it. */
export interface ReleasePackage {
  name: string;
  version: string;
  dir: string;
  /** Its `@fw/*` runtime dependencies. */
  fwDependencies: string[];
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * Every non-private package under packages/, ordered so that a package comes after the Fw
 * packages it depends on: each is compiled against the others' emitted declarations, which is
 * also what a host sees.
 */
export function releasePackages(): ReleasePackage[] {
  const all = new Map<string, ReleasePackage>();
  for (const entry of readdirSync(join(ROOT, 'packages')).sort()) {
    const dir = join(ROOT, 'packages', entry);
    const file = join(dir, 'package.json');
    if (!existsSync(file) || !existsSync(join(dir, 'tsconfig.build.json'))) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    if (manifest.private) continue;
    const deps = { ...manifest.dependencies, ...manifest.peerDependencies };
    all.set(manifest.name, { name: manifest.name, version: manifest.version, dir, fwDependencies: Object.keys(deps).filter((d) => d.startsWith('@fw/')) });
  }
  const ordered: ReleasePackage[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    const pkg = all.get(name);
    if (!pkg || state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`dependency cycle: ${[...path, name].join(' → ')}`);
    state.set(name, 'visiting');
    for (const dep of pkg.fwDependencies) visit(dep, [...path, name]);
    state.set(name, 'done');
    ordered.push(pkg);
  };
  for (const name of all.keys()) visit(name, []);
  return ordered;
}

function run(command: string, args: string[], cwd: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false' };
  // Under c8 (npm test) the compilers would write coverage of themselves for nothing.
  delete env.NODE_V8_COVERAGE;
  return execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', env });
}

const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The newest modification time (ms) of the files under `dir`, skipping node_modules and output folders. */
function newestUnder(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (/[\\/](node_modules|dist|dist-server)[\\/]/.test(path)) continue;
    newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * True when every package's compiled output (and the admin app) is newer than its sources and
 * build settings: what {@link buildAll} would write is already there. `.ci/run` builds just before
 * the tests, so the packed-host test need not build again (and then need not run alone: it leaves
 * the output folders the browser suites read as they are).
 */
export function builtFresh(): boolean {
  const uiApp = join(ROOT, 'packages', 'ui', 'dist', 'index.html');
  for (const pkg of releasePackages()) {
    const built = join(pkg.dir, pkg.name === '@fw/ui' ? 'dist-server' : 'dist', 'index.js');
    if (!existsSync(built)) return false;
    const sources = Math.max(newestUnder(join(pkg.dir, 'src')), statSync(join(pkg.dir, 'tsconfig.build.json')).mtimeMs, statSync(join(pkg.dir, 'package.json')).mtimeMs);
    if (sources > statSync(built).mtimeMs) return false;
  }
  if (!existsSync(uiApp)) return false;
  return newestUnder(join(ROOT, 'packages', 'ui', 'app')) <= statSync(uiApp).mtimeMs;
}

/**
 * Compiles every package from a clean output folder (`dist/`, or `dist-server/` for @fw/ui,
 * whose `dist/` is the admin app that vite builds), then the admin app itself.
 */
export function buildAll(log: (line: string) => void = console.log): void {
  for (const pkg of releasePackages()) {
    const outDir = pkg.name === '@fw/ui' ? 'dist-server' : 'dist';
    rmSync(join(pkg.dir, outDir), { recursive: true, force: true });
    log(`build ${pkg.name}`);
    run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], pkg.dir);
  }
  log('build @fw/ui app');
  run(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], join(ROOT, 'packages', 'ui'));
}

/** One packed package. */
export interface PackedPackage {
  name: string;
  /** Absolute path of the tarball. */
  file: string;
  /** Size of the tarball in bytes. */
  size: number;
}

/** `npm pack` of every package into `destination` (created if missing). Build first. */
export function packAll(destination: string = join(ROOT, 'release')): PackedPackage[] {
  mkdirSync(destination, { recursive: true });
  const packed: PackedPackage[] = [];
  for (const pkg of releasePackages()) {
    const out = run('npm', ['pack', '--silent', '--pack-destination', destination], pkg.dir).trim().split('\n').pop()!;
    const file = join(destination, out);
    packed.push({ name: pkg.name, file, size: statSync(file).size });
  }
  return packed;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const steps = process.argv.slice(2);
  if (steps.length === 0) steps.push('build', 'test', 'pack');
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (step === 'build') buildAll();
    else if (step === 'test') execFileSync('npm', ['test'], { cwd: ROOT, stdio: 'inherit' });
    else if (step === 'pack') {
      const next = steps[i + 1];
      const destination = next && !['build', 'test', 'pack'].includes(next) ? resolve(steps[++i]!) : undefined;
      for (const p of packAll(destination)) console.log(`${(p.size / 1024).toFixed(1).padStart(8)} kB  ${p.file}`);
    } else throw new Error(`unknown step ${JSON.stringify(step)} (build, test, pack)`);
  }
}
