// Runs every bench/*.bench.ts in its own process, one after the other, so one benchmark's
// garbage and JIT state never colour the next one's figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n# ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=fw-source', join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
if (files.length === 0) console.log('no benchmark matched');
process.exitCode = failed > 0 ? 1 : 0;
