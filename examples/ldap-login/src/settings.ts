import { FwDefinitionError } from '@fw/core';
import { checkLdapOptions, type LdapLoginOptions } from './ldap-proxy.js';

/**
 * The directory settings of the example from its variables (listed in its README): `LDAP_URL`,
 * `LDAP_SEARCH_BASE` (the base DN), `LDAP_ACCOUNT_ATTRIBUTE` (`uid`; `sAMAccountName` for Active
 * Directory), `LDAP_FILTER`, `LDAP_BIND_DN`, `LDAP_BIND_PASSWORD`, `LDAP_TIMEOUT_MS`.
 * A missing or malformed value throws `FwDefinitionError` naming the variable, so a typo stops
 * the start instead of failing every login later.
 */
export function ldapOptionsFromEnv(env: Record<string, string | undefined> = process.env): LdapLoginOptions {
  const url = env.LDAP_URL?.trim();
  if (!url) throw new FwDefinitionError('LDAP_URL', 'is required: the directory, e.g. ldaps://ldap.example.com');
  const searchBase = env.LDAP_SEARCH_BASE?.trim();
  if (!searchBase) throw new FwDefinitionError('LDAP_SEARCH_BASE', 'is required: the base DN people are searched under, e.g. ou=people,dc=example,dc=com');
  const options: LdapLoginOptions = { url, searchBase, accountAttribute: env.LDAP_ACCOUNT_ATTRIBUTE?.trim() || 'uid' };
  const filter = env.LDAP_FILTER?.trim();
  if (filter) options.filter = filter;
  if (env.LDAP_BIND_DN) {
    options.bindDn = env.LDAP_BIND_DN;
    options.bindPassword = env.LDAP_BIND_PASSWORD ?? '';
  }
  if (env.LDAP_TIMEOUT_MS) {
    const timeoutMs = Number(env.LDAP_TIMEOUT_MS);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new FwDefinitionError('LDAP_TIMEOUT_MS', 'must be a positive whole number of milliseconds');
    options.timeoutMs = timeoutMs;
  }
  checkLdapOptions(options, { accountAttribute: 'LDAP_ACCOUNT_ATTRIBUTE', filter: 'LDAP_FILTER' });
  return options;
}
