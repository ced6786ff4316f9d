import { AndFilter, Client, EqualityFilter, FilterParser, InvalidCredentialsError, type Filter } from 'ldapts';
import { FwDefinitionError, type FwUser } from '@fw/core';
import { BaseLoginProxy, LoginUnavailableError, type LoginProxyClass, type LoginProxyDeps } from '@fw/login';

/** Options of {@link ldapLogin}. */
export interface LdapLoginOptions {
  /** Directory URL, e.g. `ldaps://ldap.example.com` (use ldaps or StartTLS in production). */
  url: string;
  /** Where users live, e.g. `ou=people,dc=example,dc=com`. */
  searchBase: string;
  /** Attribute holding the login account: `uid` (OpenLDAP), `sAMAccountName` or `userPrincipalName` (Active Directory), `mail`, … @default 'uid' */
  accountAttribute?: string;
  /**
   * An LDAP filter the user's entry must match too, ANDed with the account match: e.g.
   * `(objectClass=inetOrgPerson)`, or for Active Directory enabled people only
   * `(&(objectCategory=person)(!(userAccountControl:1.2.840.113556.1.4.803:=2)))`. None by default.
   */
  filter?: string;
  /** Service account that may search for users; anonymous search when absent. */
  bindDn?: string;
  bindPassword?: string;
  /** Connect and operation timeout, in milliseconds. @default 5000 */
  timeoutMs?: number;
}

// An attribute description: a name (letters, digits, hyphens) or a numeric OID. Anything else
// would end up inside the search filter's text.
const ATTRIBUTE = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)$/;

/**
 * Checks {@link LdapLoginOptions} and parses `filter`, throwing `FwDefinitionError` for a bad
 * value; `names` relabels the options in the messages (the example's variable names).
 * @returns the parsed `filter`, if any.
 */
export function checkLdapOptions(options: LdapLoginOptions, names: Partial<Record<keyof LdapLoginOptions, string>> = {}): Filter | undefined {
  const label = (key: keyof LdapLoginOptions) => names[key] ?? `ldapLogin.${key}`;
  if (typeof options?.url !== 'string' || !/^ldaps?:\/\//.test(options.url)) throw new FwDefinitionError(label('url'), 'must be an ldap:// or ldaps:// URL');
  if (typeof options.searchBase !== 'string' || options.searchBase === '') throw new FwDefinitionError(label('searchBase'), 'is required');
  if (options.accountAttribute !== undefined && !ATTRIBUTE.test(options.accountAttribute)) {
    throw new FwDefinitionError(label('accountAttribute'), 'must be an attribute name such as uid or sAMAccountName');
  }
  if (options.filter === undefined) return undefined;
  // FilterParser accepts some text without parentheses; a filter here is always one parenthesised item.
  if (!/^\(.*\)$/s.test(options.filter.trim())) throw new FwDefinitionError(label('filter'), 'must be an LDAP filter in parentheses, e.g. (objectClass=person)');
  try {
    return FilterParser.parseString(options.filter.trim());
  } catch (error) {
    throw new FwDefinitionError(label('filter'), `is not a valid LDAP filter: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Reasons the directory check gives; the wrong-password one is the directory's own. */
export const LDAP_REASONS = {
  EMPTY_PASSWORD: 'A password is required',
  NOT_IN_DIRECTORY: 'Incorrect account or password',
  UNAVAILABLE: 'The directory cannot be reached; try again later',
} as const;

/**
 * A login hook that checks the password against an LDAP directory (search the user's entry with
 * a service account, then bind as that entry with the given password), and then returns the
 * stored `fw_user` of the same account: the directory decides who you are, Fw's own tables still
 * decide what you may do.
 *
 * @example
 * app.use(fwLogin({ store, tokens, ephemeral, proxy: ldapLogin({ url: 'ldaps://ldap.corp', searchBase: 'ou=people,dc=corp' }) }));
 */
export function ldapLogin(options: LdapLoginOptions): LoginProxyClass {
  const extraFilter = checkLdapOptions(options);
  const settings = { accountAttribute: 'uid', timeoutMs: 5000, ...options };

  return class LdapLoginProxy extends BaseLoginProxy {
    constructor(deps: LoginProxyDeps) {
      super(deps);
    }

    override async login(account: string, pwd: string): Promise<FwUser> {
      // An empty password would be an anonymous ("unauthenticated") bind, which many directories accept.
      if (pwd.length === 0) throw new Error(LDAP_REASONS.EMPTY_PASSWORD);
      const client = new Client({ url: settings.url, timeout: settings.timeoutMs, connectTimeout: settings.timeoutMs });
      try {
        const dn = await findDn(client, account);
        if (!dn) throw new Error(LDAP_REASONS.NOT_IN_DIRECTORY);
        try {
          await client.bind(dn, pwd);
        } catch (error) {
          if (error instanceof InvalidCredentialsError) throw new Error(directoryReason(error), { cause: error });
          throw error;
        }
      } catch (error) {
        if (error instanceof Error && (error.message.startsWith('Directory:') || error.message === LDAP_REASONS.NOT_IN_DIRECTORY)) throw error;
        // Not a wrong password: the directory could not answer (down, unreachable, timed out).
        // LoginUnavailableError makes Fw answer 503 and leave the failure counters alone, so an
        // outage does not put every user behind one address on captcha and then lock them out.
        throw new LoginUnavailableError(LDAP_REASONS.UNAVAILABLE, { cause: error });
      } finally {
        await client.unbind().catch(() => undefined);
      }
      return this.users.requireStoredUser(account);
    }
  };

  /** The directory's own words: its diagnostic text when it sent one, and the LDAP result code. */
  function directoryReason(error: InvalidCredentialsError): string {
    const diagnostic = error.message.replace(/\s*Code: 0x[0-9a-f]+\s*$/i, '').trim();
    return `Directory: ${diagnostic || 'invalid credentials'} (LDAP result ${error.code})`;
  }

  function accountFilter(account: string): Filter {
    const match = new EqualityFilter({ attribute: settings.accountAttribute, value: account });
    return extraFilter ? new AndFilter({ filters: [extraFilter, match] }) : match;
  }

  async function findDn(client: Client, account: string): Promise<string | undefined> {
    if (settings.bindDn) await client.bind(settings.bindDn, settings.bindPassword ?? '');
    // EqualityFilter escapes the value, so an account such as `*)(uid=*` matches nothing.
    const { searchEntries } = await client.search(settings.searchBase, {
      scope: 'sub',
      filter: accountFilter(account),
      attributes: ['dn'],
      sizeLimit: 2,
    });
    return searchEntries.length === 1 ? searchEntries[0]!.dn : undefined;
  }
}
