/**
 * Who may do what: the one check of credentials and scopes that GraphQL, the KairosDB REST API and /metrics use.
 * Principals come from CREDENTIALS_FILE (API tokens and HTTP Basic users, each a scrypt hash, its scopes and
 * optionally its sources) and ANONYMOUS_SCOPES; a credential is verified once and remembered by digest.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { ConfigError, type Config } from '../config.js';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import { SCOPES, isScope, type Scope } from './scopes.js';

export { SCOPES, type Scope };

/** Who a request acts as. Only the name ever reaches logs and metrics, never a secret. */
export interface Principal {
  /** A token's or user's name from CREDENTIALS_FILE; `anonymous` without credentials; `trusted-client` for TRUSTED_CLIENT_TOKENS. */
  readonly name: string;
  /** False for requests without credentials: a missing scope is then 401 (send credentials), not 403. */
  readonly authenticated: boolean;
  readonly scopes: ReadonlySet<Scope>;
  /** The sources it may read, write or delete in; undefined for every source. */
  readonly sources?: ReadonlySet<string>;
}

/** The credentials a request carries: its Authorization header and its x-kairograph-token header. */
export interface PresentedCredentials {
  readonly authorization?: string | null | undefined;
  readonly token?: string | null | undefined;
}

export type Challenge = 'Basic' | 'Bearer';

/** The header Grafana's GraphQL data sources and GraphiQL's Headers pane send a token in (and TRUSTED_CLIENT_TOKENS). */
export const TOKEN_HEADER = 'x-kairograph-token';

/** Everything may be done: what tools and tests get when they make a request context without a gateway. */
export const UNRESTRICTED: Principal = { name: 'internal', authenticated: true, scopes: new Set(SCOPES) };

/** CREDENTIALS_FILE and ANONYMOUS_SCOPES read and checked: what the gateway enforces. */
export interface AuthPolicy {
  readonly anonymous: Principal;
  readonly tokens: readonly StoredCredential[];
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
export function loadAuthPolicy(config: Config, sourceNames?: readonly string[]): AuthPolicy {
  const { tokens, users } = config.credentialsFile === '' ? { tokens: [], users: [] } : readCredentialsFile(config.credentialsFile, sourceNames);
  const hasCredentials = tokens.length > 0 || users.length > 0;
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
    tokens,
    users: new Map(users.map((user) => [user.principal.name, user])),
    trustedTokenDigests: new Set(config.trustedClientTokens.map((token) => digest('token', token))),
    persistedOnly: config.persistedOnly,
  };
}

/**
 * Authenticates requests and checks their scopes. Verified credentials (and refused ones) are remembered by a digest
 * of the credential, so a dashboard's token costs one scrypt per process, and a client repeating a wrong password
 * costs nothing more.
 */
export class Authenticator {
  private readonly verified = new LRUCache<string, Promise<Principal | undefined>>({ max: 10_000 });

  constructor(readonly policy: AuthPolicy) {}

  get anonymous(): Principal {
    return this.policy.anonymous;
  }

  /** Who the request acts as; UnauthenticatedError (with `challenge`) for credentials that are malformed or wrong. */
  async authenticate(presented: PresentedCredentials, challenge: Challenge): Promise<Principal> {
    const authorization = presented.authorization?.trim() ?? '';
    const token = presented.token?.trim() ?? '';
    if (authorization === '' && token === '') return this.policy.anonymous;
    if (authorization !== '' && token !== '') throw new UnauthenticatedError(`send one credential: an Authorization header or ${TOKEN_HEADER}, not both`, challenge);
    if (token !== '') return this.byToken(token, challenge);
    const space = authorization.indexOf(' ');
    const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : authorization.slice(space + 1).trim();
    if (scheme === 'bearer' && value !== '') return this.byToken(value, challenge);
    if (scheme === 'basic' && value !== '') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) return this.byPassword(decoded.slice(0, colon), decoded.slice(colon + 1), challenge);
    }
    throw new UnauthenticatedError('the Authorization header must be "Bearer <token>" or "Basic <base64 of user:password>"', challenge);
  }

  /**
   * Throws unless `principal` has `scope` (and may use `source`, when one is given). `what` names the action in the
   * message: `addPoints`, `POST /api/v1/datapoints`.
   */
  authorize(principal: Principal, scope: Scope, what: string, challenge: Challenge, source?: string): void {
    if (!principal.scopes.has(scope)) {
      if (!principal.authenticated) {
        throw new UnauthenticatedError(
          `${what} needs the ${scope} scope, which requests without credentials do not have: send a token (Authorization: Bearer or ${TOKEN_HEADER}) or a user's password (HTTP Basic)`,
          challenge,
        );
      }
      throw new ForbiddenError(`${what} needs the ${scope} scope, which "${principal.name}" does not have (it has: ${[...principal.scopes].join(', ') || 'none'})`);
    }
    if (source !== undefined && principal.sources !== undefined && !principal.sources.has(source)) {
      throw new ForbiddenError(`"${principal.name}" may not use source ${JSON.stringify(source)} (it may use: ${[...principal.sources].join(', ')})`);
    }
  }

  /**
   * Under PERSISTED_ONLY, whether the principal may send what only a persisted operation may otherwise ask: GraphQL
   * text, and any scoped request of the REST API (whose queries are always free-form).
   */
  mayQueryFreely(principal: Principal): boolean {
    return !this.policy.persistedOnly || principal.authenticated;
  }

  private async byToken(token: string, challenge: Challenge): Promise<Principal> {
    const key = digest('token', token);
    if (this.policy.trustedTokenDigests.has(key)) return { ...this.policy.anonymous, name: 'trusted-client', authenticated: true };
    const found = await this.remembered(key, async () => {
      // Every token's hash is tried, so which one matched (or how many there are) does not show in the time taken.
      const matches = await Promise.all(this.policy.tokens.map((stored) => verifyHash(token, stored.hash)));
      return this.policy.tokens[matches.indexOf(true)]?.principal;
    });
    if (found === undefined) throw new UnauthenticatedError('the token is not valid', challenge);
    return found;
  }

  private async byPassword(user: string, password: string, challenge: Challenge): Promise<Principal> {
    const found = await this.remembered(digest('basic', `${user}\u0000${password}`), async () => {
      const stored = this.policy.users.get(user);
      // An unknown user costs a scrypt too, so user names cannot be told apart by the time an answer takes.
      const ok = await verifyHash(password, stored?.hash ?? DECOY);
      return ok && stored !== undefined ? stored.principal : undefined;
    });
    if (found === undefined) throw new UnauthenticatedError('wrong user name or password', challenge);
    return found;
  }

  private remembered(key: string, verify: () => Promise<Principal | undefined>): Promise<Principal | undefined> {
    let result = this.verified.get(key);
    if (result === undefined) {
      result = verify();
      this.verified.set(key, result);
    }
    return result;
  }
}

/** True for addresses that only this machine can reach (HOST=localhost, 127.x.y.z, ::1). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '::ffff:127.0.0.1';
}

// --- Hashes: PHC strings, `$scrypt$ln=14,r=8,p=1$<salt>$<hash>` (base64 without padding) -----------------------

interface ParsedHash {
  readonly ln: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const HASH_FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

/** scrypt's own recommended cost for interactive logins (2^14, 8, 1): about 50 ms and 16 MiB, on libuv's pool. */
const DEFAULT_LN = 14;

/** A hash of `secret` for CREDENTIALS_FILE. */
export async function hashSecret(secret: string, ln = DEFAULT_LN): Promise<string> {
  const salt = randomBytes(16);
  const params = { ln, r: 8, p: 1 };
  const hash = await derive(secret, { ...params, salt, hash: Buffer.alloc(32) });
  return `$scrypt$ln=${ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(hash)}`;
}

/** A fresh random API token (32 bytes, URL-safe). */
export function newToken(): string {
  return `kg_${randomBytes(32).toString('base64url')}`;
}

export function parseHash(text: string): ParsedHash | undefined {
  const match = HASH_FORMAT.exec(text);
  if (match === null) return undefined;
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (ln < 10 || ln > 17 || r < 1 || p < 1) return undefined;
  return { ln, r, p, salt: Buffer.from(match[4]!, 'base64'), hash: Buffer.from(match[5]!, 'base64') };
}

async function verifyHash(secret: string, stored: ParsedHash): Promise<boolean> {
  const derived = await derive(secret, stored);
  return timingSafeEqual(derived, stored.hash);
}

function derive(secret: string, { ln, r, p, salt, hash }: ParsedHash): Promise<Buffer> {
  const N = 2 ** ln;
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize('NFC'), salt, hash.length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Verified when a user name is unknown: the same cost as a real user's hash. */
const DECOY: ParsedHash = { ln: DEFAULT_LN, r: 8, p: 1, salt: Buffer.alloc(16), hash: Buffer.alloc(32) };

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}

/** The cache's key for a credential: never the credential itself, so a heap dump does not hold secrets by the thousand. */
function digest(kind: string, secret: string): string {
  return createHash('sha256').update(kind).update('\u0000').update(secret).digest('base64');
}

// --- CREDENTIALS_FILE ------------------------------------------------------------------------------------------------

/**
 * `{"tokens": [{"name", "hash", "scopes", "sources"?}], "users": [{"name", "hash", "scopes", "sources"?}]}`, checked
 * whole; errors name the file and the entry's path, and never repeat a hash (it may be a secret pasted by mistake).
 */
function readCredentialsFile(path: string, sourceNames: readonly string[] | undefined): { tokens: StoredCredential[]; users: StoredCredential[] } {
  const where = `CREDENTIALS_FILE ${path}`;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? `is not JSON: ${error.message}` : `cannot be read: ${(error as Error).message}`;
    throw new ConfigError(`${where} ${reason}`);
  }
  if (!isRecord(json)) throw new ConfigError(`${where} must be a JSON object with "tokens" and/or "users"`);
  const unknownKey = Object.keys(json).find((key) => key !== 'tokens' && key !== 'users');
  if (unknownKey !== undefined) throw new ConfigError(`${where} has an unknown key ${JSON.stringify(unknownKey)} (keys: tokens, users)`);
  const names = new Set<string>();
  const entries = (key: 'tokens' | 'users'): StoredCredential[] => {
    const list = json[key] ?? [];
    if (!Array.isArray(list)) throw new ConfigError(`${where}: ${key} must be a list`);
    return list.map((entry, i) => credential(entry, `${key}[${i}]`));
  };
  const credential = (entry: unknown, at: string): StoredCredential => {
    if (!isRecord(entry)) throw new ConfigError(`${where}: ${at} must be an object with name, hash and scopes`);
    const unknown = Object.keys(entry).find((key) => !['name', 'hash', 'scopes', 'sources'].includes(key));
    if (unknown !== undefined) throw new ConfigError(`${where}: ${at} has an unknown key ${JSON.stringify(unknown)} (keys: name, hash, scopes, sources)`);
    const { name, hash, scopes, sources } = entry;
    if (typeof name !== 'string' || !/^[\w.@-]{1,64}$/.test(name)) throw new ConfigError(`${where}: ${at}.name must be 1 to 64 letters, digits, ".", "_", "@" or "-" (got ${JSON.stringify(name)})`);
    if (names.has(name)) throw new ConfigError(`${where}: ${at}.name ${JSON.stringify(name)} is given twice (token and user names share one list)`);
    names.add(name);
    const parsed = typeof hash === 'string' ? parseHash(hash) : undefined;
    if (parsed === undefined) throw new ConfigError(`${where}: ${at}.hash must be a hash made by \`kairograph hash-secret\` ($scrypt$ln=14,r=8,p=1$...); secrets are never accepted in plain text`);
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope)) {
      throw new ConfigError(`${where}: ${at}.scopes must be a non-empty list of ${SCOPES.join(', ')} (got ${JSON.stringify(scopes)})`);
    }
    if (sources !== undefined) {
      if (!Array.isArray(sources) || sources.length === 0 || !sources.every((s) => typeof s === 'string')) {
        throw new ConfigError(`${where}: ${at}.sources must be a non-empty list of source names (got ${JSON.stringify(sources)})`);
      }
      const unknownSource = sourceNames === undefined ? undefined : sources.find((s) => !sourceNames.includes(s));
      if (unknownSource !== undefined) throw new ConfigError(`${where}: ${at}.sources names ${JSON.stringify(unknownSource)}, which is not a configured source (${sourceNames!.join(', ')})`);
    }
    return { principal: { name, authenticated: true, scopes: new Set(scopes), ...(sources ? { sources: new Set(sources as string[]) } : {}) }, hash: parsed };
  };
  return { tokens: entries('tokens'), users: entries('users') };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
