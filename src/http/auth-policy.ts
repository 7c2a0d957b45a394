/**
 * What the gateway enforces, read and checked at start: CREDENTIALS_FILE (tokens as digests, users as scrypt hashes,
 * their scopes and sources) and ANONYMOUS_SCOPES. Errors name the file and the entry's path.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../model/errors.js';
import { SCOPES, isScope, type Principal, type Scope } from '../model/principal.js';
import { isLoopback } from './browser-policy.js';
import { credentialDigest, parseHash, TOKEN_HASH_FORMAT, type ParsedHash } from './hashes.js';

/** The settings authentication is made of (the gateway's Config has them). */
export interface AuthSettings {
  /** HOST: on a loopback address, requests without credentials may do everything unless credentials exist. */
  readonly host: string;
  readonly credentialsFile: string;
  readonly anonymousScopes: 'auto' | readonly Scope[];
  readonly trustedClientTokens: readonly string[];
  readonly persistedOnly: boolean;
}

/** CREDENTIALS_FILE and ANONYMOUS_SCOPES read and checked: what the gateway enforces. */
export interface AuthPolicy {
  readonly anonymous: Principal;
  /** Tokens stored as `$sha256$` digests, by digest: the one entry a token can match is found at once. */
  readonly tokens: ReadonlyMap<string, Principal>;
  /**
   * Tokens stored as scrypt hashes, as files made before digests have them: an unknown token must be tried against
   * each, so they cost a scrypt per entry per unknown token (bounded like passwords); start-up warns of them.
   */
  readonly legacyTokens: readonly StoredCredential[];
  /** By user name. */
  readonly users: ReadonlyMap<string, StoredCredential>;
  /** Digests of TRUSTED_CLIENT_TOKENS: they may send GraphQL text under PERSISTED_ONLY, with the anonymous scopes. */
  readonly trustedTokenDigests: ReadonlySet<string>;
  readonly persistedOnly: boolean;
}

interface StoredCredential {
  readonly principal: Principal;
  readonly hash: ParsedHash;
}

/**
 * Reads CREDENTIALS_FILE and decides what anonymous requests may do. Throws a ConfigError naming the setting when the
 * file is wrong, or when HOST reaches beyond this machine and neither credentials nor ANONYMOUS_SCOPES are set.
 */
export function loadAuthPolicy(config: AuthSettings, sourceNames?: readonly string[]): AuthPolicy {
  const { tokens, legacyTokens, users } =
    config.credentialsFile === ''
      ? { tokens: [], legacyTokens: [], users: [] }
      : readCredentialsFile(config.credentialsFile, sourceNames);
  const hasCredentials = tokens.length > 0 || legacyTokens.length > 0 || users.length > 0;
  let anonymous: readonly Scope[];
  if (config.anonymousScopes !== 'auto') anonymous = config.anonymousScopes;
  else if (hasCredentials) anonymous = [];
  else if (isLoopback(config.host)) anonymous = SCOPES;
  else {
    throw new ConfigError(
      `HOST=${config.host} accepts connections from other machines and no credentials are configured: set CREDENTIALS_FILE (hashes from \`kairograph hash-secret\`), or ANONYMOUS_SCOPES to what anyone who reaches the port may do (none, or e.g. read)`,
    );
  }
  return {
    anonymous: { name: 'anonymous', authenticated: false, scopes: new Set(anonymous) },
    tokens: new Map(tokens),
    legacyTokens,
    users: new Map(users.map((user) => [user.principal.name, user])),
    trustedTokenDigests: new Set(config.trustedClientTokens.map((token) => credentialDigest('token', token))),
    persistedOnly: config.persistedOnly,
  };
}

/**
 * `{"tokens": [{"name", "hash", "scopes", "sources"?}], "users": [{"name", "hash", "scopes", "sources"?}]}`, checked
 * whole; errors name the file and the entry's path, and never repeat a hash (it may be a secret pasted by mistake).
 */
function readCredentialsFile(
  path: string,
  sourceNames: readonly string[] | undefined,
): { tokens: [string, Principal][]; legacyTokens: StoredCredential[]; users: StoredCredential[] } {
  const where = `CREDENTIALS_FILE ${path}`;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason =
      error instanceof SyntaxError ? `is not JSON: ${error.message}` : `cannot be read: ${(error as Error).message}`;
    throw new ConfigError(`${where} ${reason}`);
  }
  if (!isRecord(json)) throw new ConfigError(`${where} must be a JSON object with "tokens" and/or "users"`);
  const unknownKey = Object.keys(json).find((key) => key !== 'tokens' && key !== 'users');
  if (unknownKey !== undefined)
    throw new ConfigError(`${where} has an unknown key ${JSON.stringify(unknownKey)} (keys: tokens, users)`);
  const names = new Set<string>();
  const entries = (key: 'tokens' | 'users') => {
    const list = json[key] ?? [];
    if (!Array.isArray(list)) throw new ConfigError(`${where}: ${key} must be a list`);
    return list.map((entry, i) => credential(entry, `${key}[${i}]`, key === 'tokens'));
  };
  const credential = (entry: unknown, at: string, isToken: boolean) => {
    if (!isRecord(entry)) throw new ConfigError(`${where}: ${at} must be an object with name, hash and scopes`);
    const unknown = Object.keys(entry).find((key) => !['name', 'hash', 'scopes', 'sources'].includes(key));
    if (unknown !== undefined)
      throw new ConfigError(
        `${where}: ${at} has an unknown key ${JSON.stringify(unknown)} (keys: name, hash, scopes, sources)`,
      );
    const { name, hash, scopes, sources } = entry;
    if (typeof name !== 'string' || !/^[\w.@-]{1,64}$/.test(name))
      throw new ConfigError(
        `${where}: ${at}.name must be 1 to 64 letters, digits, ".", "_", "@" or "-" (got ${JSON.stringify(name)})`,
      );
    if (names.has(name))
      throw new ConfigError(
        `${where}: ${at}.name ${JSON.stringify(name)} is given twice (token and user names share one list)`,
      );
    names.add(name);
    const token = isToken && typeof hash === 'string' ? TOKEN_HASH_FORMAT.exec(hash)?.[1] : undefined;
    const parsed = typeof hash === 'string' && token === undefined ? parseHash(hash) : undefined;
    if (!isToken && typeof hash === 'string' && TOKEN_HASH_FORMAT.test(hash)) {
      throw new ConfigError(
        `${where}: ${at}.hash is a token's digest ($sha256$...): a password needs a scrypt hash from \`kairograph hash-secret\``,
      );
    }
    if (token === undefined && parsed === undefined) {
      const forms = isToken
        ? '$sha256$... from `kairograph hash-secret --generate` or `--token`'
        : '$scrypt$ln=14,r=8,p=1$... from `kairograph hash-secret`';
      throw new ConfigError(
        `${where}: ${at}.hash must be a hash made by \`kairograph hash-secret\` (${forms}); secrets are never accepted in plain text`,
      );
    }
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope)) {
      throw new ConfigError(
        `${where}: ${at}.scopes must be a non-empty list of ${SCOPES.join(', ')} (got ${JSON.stringify(scopes)})`,
      );
    }
    if (sources !== undefined) {
      if (!Array.isArray(sources) || sources.length === 0 || !sources.every((s) => typeof s === 'string')) {
        throw new ConfigError(
          `${where}: ${at}.sources must be a non-empty list of source names (got ${JSON.stringify(sources)})`,
        );
      }
      const unknownSource = sourceNames === undefined ? undefined : sources.find((s) => !sourceNames.includes(s));
      if (unknownSource !== undefined)
        throw new ConfigError(
          `${where}: ${at}.sources names ${JSON.stringify(unknownSource)}, which is not a configured source (${sourceNames!.join(', ')})`,
        );
    }
    const principal: Principal = {
      name,
      authenticated: true,
      scopes: new Set(scopes),
      ...(sources ? { sources: new Set(sources as string[]) } : {}),
    };
    return { principal, token, hash: parsed };
  };
  const tokens = entries('tokens');
  return {
    tokens: tokens.flatMap(({ principal, token }) =>
      token !== undefined ? [[token, principal] as [string, Principal]] : [],
    ),
    legacyTokens: tokens.flatMap(({ principal, hash }) => (hash !== undefined ? [{ principal, hash }] : [])),
    users: entries('users').map(({ principal, hash }) => ({ principal, hash: hash! })),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
