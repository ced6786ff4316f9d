// npm start -w @fw/example-ldap-login. The variables are listed in the README (see settings.ts).
import { FwDefinitionError } from '@fw/core';
import { createLdapApp } from './app.js';
import { ldapOptionsFromEnv } from './settings.js';

let ldap;
try {
  ldap = ldapOptionsFromEnv(process.env);
} catch (error) {
  if (!(error instanceof FwDefinitionError)) throw error;
  console.error(`${error.message} (see examples/ldap-login/README.md)`);
  process.exit(1);
}
const { app } = await createLdapApp({ dbUrl: process.env.FW_DB_URL ?? 'sqlite:./data/ldap-example.db', ldap });
const port = Number(process.env.PORT ?? 3001);
app.listen(port, '127.0.0.1', () => console.log(`LDAP login example on http://127.0.0.1:${port}/ (POST /fw-api/login)`));
