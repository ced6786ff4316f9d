'use strict';
// Loaded by every mocha process (.mocharc.json "require"). In a parallel worker under c8: the
// pool stops an idle worker with SIGTERM when it has not exited 1 s after being asked to, and a
// process ended by a signal writes no coverage (V8 writes NODE_V8_COVERAGE on a normal exit,
// which takes longer than that for a worker that loaded most of the workspace). Exiting on
// SIGTERM instead keeps each worker's coverage in the report.
if (process.env.MOCHA_WORKER_ID !== undefined && process.env.NODE_V8_COVERAGE) {
  process.once('SIGTERM', () => process.exit(0));
}
