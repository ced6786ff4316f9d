// npm start -w @fw/example-oauth. Reads: PORT (3002), BASE_URL, FW_DB_URL, OAUTH_PROVIDERS_FILE
// (./oauth-providers.json), COOKIE_KEY (required).
import { resolve } from 'node:path';
import { createOAuthExample } from './app.js';

const port = Number(process.env.PORT ?? 3002);
const cookieKey = process.env.COOKIE_KEY;
if (!cookieKey) {
  console.error('Set COOKIE_KEY to a long random string: it signs the session cookie.');
  process.exit(1);
}
const { app } = await createOAuthExample({
  dbUrl: process.env.FW_DB_URL ?? 'sqlite:./data/oauth-example.db',
  baseUrl: process.env.BASE_URL ?? `http://127.0.0.1:${port}`,
  providersFile: resolve(process.env.OAUTH_PROVIDERS_FILE ?? 'oauth-providers.json'),
  cookieKeys: [cookieKey],
});
app.listen(port, '127.0.0.1', () => console.log(`OAuth example on http://127.0.0.1:${port}/ (sign in through the provider)`));
