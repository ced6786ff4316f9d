export { sqlBackends, createTestDatabase, describeEachSql, knexConfigFor } from './backends.js';
export type { SqlBackendSpec, SqlDialect, TestDatabase } from './backends.js';
export { createRedisNamespace, describeRedis } from './redis.js';
export type { RedisNamespace } from './redis.js';
export { CHROMIUM_PATH, describeBrowser, launchBrowser } from './browser.js';
export { thrown } from './thrown.js';
