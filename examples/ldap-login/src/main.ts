// npm start -w @fw/example-ldap-login: LDAP_URL, LDAP_SEARCH_BASE, LDAP_BIND_DN, LDAP_BIND_PASSWORD, FW_DB_URL, PORT.
import { createLdapApp } from './app.js';

const url = process.env.LDAP_URL;
const searchBase = process.env.LDAP_SEARCH_BASE;
if (!url || !searchBase) {
  console.error('Set LDAP_URL (ldap://host:port) and LDAP_SEARCH_BASE (ou=people,dc=example,dc=com).');
  process.exit(1);
}
const { app } = await createLdapApp({
  dbUrl: process.env.FW_DB_URL ?? 'sqlite:./data/ldap-example.db',
  ldap: {
    url,
    searchBase,
    ...(process.env.LDAP_BIND_DN ? { bindDn: process.env.LDAP_BIND_DN, bindPassword: process.env.LDAP_BIND_PASSWORD ?? '' } : {}),
  },
});
const port = Number(process.env.PORT ?? 3001);
app.listen(port, '127.0.0.1', () => console.log(`LDAP login example on http://127.0.0.1:${port}/ (POST /fw-api/login)`));
