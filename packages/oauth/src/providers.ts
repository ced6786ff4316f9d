import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FwDefinitionError } from '@fw/core';

/**
 * One provider registration with the reference framework's keys (Spring's
 * `spring.security.oauth2.client.registration.<id>.*` and `…provider.<id>.*`, merged). camelCase
 * forms are accepted too (`clientId` for `client-id`).
 */
export interface OAuthProviderInput {
  'client-id'?: string;
  'client-secret'?: string;
  /** Space- or comma-separated, or a list. */
  scope?: string | readonly string[];
  /** Only `authorization_code` is supported. @default 'authorization_code' */
  'authorization-grant-type'?: string;
  /**
   * Where the provider sends the browser back. `{baseUrl}` and `{registrationId}` are filled in.
   * @default '{baseUrl}/login/oauth2/code/{registrationId}'
   */
  'redirect-uri'?: string;
  /** Needed unless the provider is one grant knows by name (github, google, gitlab, …). */
  'authorization-uri'?: string;
  'token-uri'?: string;
  'user-info-uri'?: string;
  /** The attribute of the user-info profile that is the Fw account. @default 'sub' */
  'user-name-attribute'?: string;
  /** The provider's signing keys: an id_token is verified against them. */
  'jwk-set-uri'?: string;
  /** Expected `iss` of the id_token. */
  'issuer-uri'?: string;
  /** PKCE (S256). @default true */
  pkce?: boolean;
  /**
   * What the sign-in page's button says (Spring's `client-name`; `name` is accepted too).
   * @default the registration id
   */
  'client-name'?: string;
  [camelCase: string]: unknown;
}

/** A checked provider. */
export interface OAuthProvider {
  name: string;
  clientId: string;
  clientSecret: string;
  scope: string[];
  redirectUri: string;
  authorizeUrl: string | undefined;
  tokenUrl: string | undefined;
  userInfoUrl: string | undefined;
  accountAttribute: string;
  jwksUri: string | undefined;
  issuer: string | undefined;
  pkce: boolean;
  /** The name people see on the sign-in button. */
  displayName: string;
}

const KEYS = [
  'client-id',
  'client-secret',
  'scope',
  'authorization-grant-type',
  'redirect-uri',
  'authorization-uri',
  'token-uri',
  'user-info-uri',
  'user-name-attribute',
  'jwk-set-uri',
  'issuer-uri',
  'pkce',
  'client-name',
] as const;

const camel = (key: string) => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const KEY_BY_ANY_FORM = new Map<string, (typeof KEYS)[number]>([...KEYS.map((k) => [k, k] as const), ...KEYS.map((k) => [camel(k), k] as const), ['name', 'client-name']]);

/** Provider names grant knows (their authorization and token URLs are built in). */
function grantKnows(name: string): { authorize_url?: string; access_url?: string } | undefined {
  const require = createRequire(import.meta.url);
  const known = require('grant/config/oauth.json') as Record<string, { authorize_url?: string; access_url?: string; oauth?: number }>;
  const entry = known[name];
  return entry && entry.oauth === 2 ? entry : undefined;
}

function knownProfileUrl(name: string): string | undefined {
  const require = createRequire(import.meta.url);
  const profiles = require('grant/config/profile.json') as Record<string, { profile_url?: string } | undefined>;
  return profiles[name]?.profile_url;
}

function url(key: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new FwDefinitionError(key, 'must be a URL string');
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw new FwDefinitionError(key, `must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Checks provider registrations and fills in defaults.
 * @param baseUrl the app's public origin, e.g. `https://admin.example.com`.
 * @throws {FwDefinitionError} naming the provider and key: a missing client id or secret, an
 * unknown key, a grant type other than authorization_code, missing URLs for a provider grant
 * does not know, a malformed URL.
 */
export function resolveProviders(input: Record<string, OAuthProviderInput>, baseUrl: string): OAuthProvider[] {
  if (typeof input !== 'object' || input === null || Object.keys(input).length === 0) throw new FwDefinitionError('fwOAuth.providers', 'at least one provider is required');
  return Object.entries(input).map(([name, raw]) => {
    const at = `fwOAuth.providers.${name}`;
    if (!/^[a-z0-9][a-z0-9_-]*$/i.test(name)) throw new FwDefinitionError(at, 'a registration id holds letters, digits, _ and - only');
    if (typeof raw !== 'object' || raw === null) throw new FwDefinitionError(at, 'must be an object');
    const value: Partial<Record<(typeof KEYS)[number], unknown>> = {};
    for (const [key, v] of Object.entries(raw)) {
      const canonical = KEY_BY_ANY_FORM.get(key);
      if (!canonical) throw new FwDefinitionError(`${at}.${key}`, `unknown key (known: ${KEYS.join(', ')})`);
      value[canonical] = v;
    }
    const text = (key: (typeof KEYS)[number]) => {
      const v = value[key];
      if (typeof v !== 'string' || v === '') throw new FwDefinitionError(`${at}.${key}`, 'is required');
      return v;
    };
    const clientId = text('client-id');
    const clientSecret = text('client-secret');
    const grantType = value['authorization-grant-type'] ?? 'authorization_code';
    if (grantType !== 'authorization_code') throw new FwDefinitionError(`${at}.authorization-grant-type`, `only authorization_code is supported, got ${JSON.stringify(grantType)}`);
    const scopeRaw = value.scope ?? [];
    const scope = typeof scopeRaw === 'string' ? scopeRaw.split(/[\s,]+/).filter(Boolean) : Array.isArray(scopeRaw) ? scopeRaw.map(String) : undefined;
    if (!scope) throw new FwDefinitionError(`${at}.scope`, 'must be a string or a list of strings');
    const known = grantKnows(name);
    const authorizeUrl = url(`${at}.authorization-uri`, value['authorization-uri']);
    const tokenUrl = url(`${at}.token-uri`, value['token-uri']);
    if (!known && (!authorizeUrl || !tokenUrl)) {
      throw new FwDefinitionError(`${at}.authorization-uri`, `grant does not know "${name}": give authorization-uri, token-uri and user-info-uri`);
    }
    const userInfoUrl = url(`${at}.user-info-uri`, value['user-info-uri']) ?? knownProfileUrl(name);
    if (!userInfoUrl) throw new FwDefinitionError(`${at}.user-info-uri`, 'is required: the account is read from the user-info profile');
    const pattern = value['redirect-uri'] ?? '{baseUrl}/login/oauth2/code/{registrationId}';
    if (typeof pattern !== 'string') throw new FwDefinitionError(`${at}.redirect-uri`, 'must be a string');
    const redirectUri = url(`${at}.redirect-uri`, pattern.replaceAll('{baseUrl}', baseUrl.replace(/\/$/, '')).replaceAll('{registrationId}', name))!;
    const attribute = value['user-name-attribute'] ?? 'sub';
    if (typeof attribute !== 'string' || attribute === '') throw new FwDefinitionError(`${at}.user-name-attribute`, 'must be a non-empty string');
    if (value.pkce !== undefined && typeof value.pkce !== 'boolean') throw new FwDefinitionError(`${at}.pkce`, 'must be true or false');
    const displayName = value['client-name'] ?? name;
    if (typeof displayName !== 'string' || displayName.trim() === '' || displayName.length > 100 || /\p{Cc}/u.test(displayName)) {
      throw new FwDefinitionError(`${at}.client-name`, 'must be a text of 1 to 100 characters without control characters');
    }
    return {
      name,
      clientId,
      clientSecret,
      scope,
      redirectUri,
      authorizeUrl,
      tokenUrl,
      userInfoUrl,
      accountAttribute: attribute,
      jwksUri: url(`${at}.jwk-set-uri`, value['jwk-set-uri']),
      issuer: typeof value['issuer-uri'] === 'string' ? value['issuer-uri'] : undefined,
      pkce: value.pkce !== false,
      displayName,
    };
  });
}

/**
 * Reads registrations from a JSON file: either `{ "<id>": { …keys } }` or Spring's split form
 * `{ "registration": { "<id>": {…} }, "provider": { "<id>": {…} } }` (merged per id).
 * @throws {FwDefinitionError} for an unreadable file or a wrong shape.
 */
export function readProvidersFile(path: string): Record<string, OAuthProviderInput> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new FwDefinitionError(path, `cannot read the OAuth provider file: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FwDefinitionError(path, 'must hold a JSON object');
  const root = parsed as Record<string, unknown>;
  if ('registration' in root || 'provider' in root) {
    const registration = (root.registration ?? {}) as Record<string, Record<string, unknown>>;
    const provider = (root.provider ?? {}) as Record<string, Record<string, unknown>>;
    const ids = new Set([...Object.keys(registration), ...Object.keys(provider)]);
    return Object.fromEntries([...ids].map((id) => [id, { ...provider[id], ...registration[id] } as OAuthProviderInput]));
  }
  return root as Record<string, OAuthProviderInput>;
}
