'use strict';
// The spec reporter, plus one closing line that any CI can read:
// "tests: N passed, N failed, N skipped".
//
// FW_TEST_STATS=<file.json>: one part of a split run (scripts/test.ts) writes its counts there
// and prints "part: …" instead; the script adds the parts up and prints the one `tests:` line.
//
// FW_TEST_TIMES=<file.json>: also records where the time goes, as { files: { path: ms },
// suites: { "path > title": ms } } (the time of each test and hook, added up per file and per
// top-level suite; the same in serial and parallel runs), and prints the 25 slowest files.
//
// A test that failed and was run again (mocha's --retries; scripts/test.ts gives the browser files
// one more try) is listed at the end with its first error, passed or not the second time, so a
// flaky test stays in sight.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_HOOK_END, EVENT_TEST_RETRY } = Mocha.Runner.constants;

class FwReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const timesFile = process.env.FW_TEST_TIMES;
    const files = new Map();
    const suites = new Map();
    const add = (map, key, ms) => map.set(key, (map.get(key) || 0) + ms);
    const retried = [];
    runner.on(EVENT_TEST_RETRY, (test, error) => {
      const title = typeof test.fullTitle === 'function' ? test.fullTitle() : String(test.title);
      const first = String((error && error.message) || error).split('\n')[0];
      retried.push(`${title}\n      first try: ${first}`);
    });
    if (timesFile) {
      const record = (runnable) => {
        if (!runnable || typeof runnable.duration !== 'number') return;
        const file = runnable.file ? path.relative(process.cwd(), runnable.file) : '?';
        add(files, file, runnable.duration);
        // titlePath() also exists on the copies a parallel worker sends back.
        const titles = typeof runnable.titlePath === 'function' ? runnable.titlePath() : [];
        if (titles.length > 1) add(suites, `${file} > ${titles[0]}`, runnable.duration);
      };
      runner.on(EVENT_TEST_PASS, record);
      runner.on(EVENT_TEST_FAIL, (test) => record(test));
      runner.on(EVENT_HOOK_END, record);
    }
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      if (retried.length > 0) {
        process.stdout.write(`\nfailed once and run again (${retried.length}):\n`);
        for (const line of retried) process.stdout.write(`  - ${line}\n`);
      }
      if (timesFile) {
        const byTime = (m) => Object.fromEntries([...m].sort((a, b) => b[1] - a[1]));
        fs.writeFileSync(timesFile, `${JSON.stringify({ files: byTime(files), suites: byTime(suites) }, null, 2)}\n`);
        process.stdout.write('\nslowest files (tests and hooks, added up):\n');
        for (const [file, ms] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
          process.stdout.write(`${(ms / 1000).toFixed(1).padStart(8)} s  ${file}\n`);
        }
      }
      const statsFile = process.env.FW_TEST_STATS;
      if (statsFile) {
        fs.writeFileSync(statsFile, JSON.stringify({ passes, failures, pending }));
        process.stdout.write(`part: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
      } else {
        process.stdout.write(`tests: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
      }
    });
  }
}

module.exports = FwReporter;
