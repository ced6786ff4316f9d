// Every text file of the build also as `<file>.br` (brotli, best quality) and `<file>.gz` (gzip,
// level 9), written once after the build: fwUi (koa-static) sends the variant the browser accepts,
// so no response is compressed at request time.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Files worth compressing: text. Images other than SVG are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map)$/;
/** Below this a response fits one packet anyway. */
const MIN_SIZE = 1024;

/** Writes `.br` and `.gz` beside every compressible file under `dir` that they make smaller; returns how many. */
export function precompressDir(dir: string): number {
  let written = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = join(dir, entry);
    if (!COMPRESSIBLE.test(entry) || !statSync(file).isFile()) continue;
    const body = readFileSync(file);
    if (body.length < MIN_SIZE) continue;
    const br = brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    });
    const gz = gzipSync(body, { level: 9 });
    if (br.length < body.length) writeFileSync(`${file}.br`, br);
    if (gz.length < body.length) writeFileSync(`${file}.gz`, gz);
    written += 1;
  }
  return written;
}

/** The Vite plugin: precompresses the output folder once the bundle is written. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'fw-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        precompressDir(outDir);
      },
    },
  };
}
