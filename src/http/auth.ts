/**
 * Who may do what: the one check of credentials and scopes that GraphQL, the KairosDB REST API and /metrics use.
 * Principals come from CREDENTIALS_FILE (API tokens, each a SHA-256 digest, and HTTP Basic users, each a scrypt hash,
 * with their scopes and optionally their sources) and ANONYMOUS_SCOPES. A token is found by its digest, so an unknown
 * one costs a hash and a map lookup; passwords cost a scrypt, bounded in concurrency and backed off per client.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { ConfigError } from '../model/errors.js';
import { ForbiddenError, OverloadedError, RateLimitedError, UnauthenticatedError } from '../model/errors.js';
import { isLoopback } from './browser-policy.js';
import type { Challenge } from '../model/errors.js';
import { SCOPES, isScope, type Principal, type Scope } from '../model/principal.js';

export { SCOPES, type Challenge, type Principal, type Scope };

/** The credentials a request carries: its Authorization header and its x-kairograph-token header. */
export interface PresentedCredentials {
  readonly authorization?: string | null | undefined;
  readonly token?: string | null | undefined;
}

/** The header Grafana's GraphQL data sources and GraphiQL's Headers pane send a token in (and TRUSTED_CLIENT_TOKENS). */
export const TOKEN_HEADER = 'x-kairograph-token';

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
    trustedTokenDigests: new Set(config.trustedClientTokens.map((token) => digest('token', token))),
    persistedOnly: config.persistedOnly,
  };
}

/**
 * Authenticates requests and checks their scopes. A scrypt verification that succeeded is remembered by a digest of
 * the credential (so a dashboard's password costs one scrypt per process), in a cache that failures never enter, so
 * unknown credentials cannot push valid ones out. A failed one is remembered apart for a while, so a client that
 * repeats a wrong password (a collector with an old one) costs nothing more; a client that tries new ones waits
 * longer after each (FailureBackoff).
 */
export class Authenticator {
  private readonly verified = new LRUCache<string, Principal>({ max: 10_000 });
  private readonly refused = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });
  /** Verifications under way, by credential digest: a dashboard's parallel requests with a new password share one. */
  private readonly verifying = new Map<string, Promise<Principal | undefined>>();
  private readonly scrypt = new ScryptGate(SCRYPT_RUNNING, SCRYPT_QUEUED);
  private readonly backoff = new FailureBackoff();

  constructor(readonly policy: AuthPolicy) {}

  get anonymous(): Principal {
    return this.policy.anonymous;
  }

  /**
   * Who the request acts as; UnauthenticatedError (with `challenge`) for credentials that are malformed or wrong,
   * RateLimitedError while `client` (its address) is backed off after failed passwords.
   */
  async authenticate(presented: PresentedCredentials, challenge: Challenge, client = ''): Promise<Principal> {
    const authorization = presented.authorization?.trim() ?? '';
    const token = presented.token?.trim() ?? '';
    if (authorization === '' && token === '') return this.policy.anonymous;
    if (authorization !== '' && token !== '')
      throw new UnauthenticatedError(
        `send one credential: an Authorization header or ${TOKEN_HEADER}, not both`,
        challenge,
      );
    if (token !== '') return this.byToken(token, challenge, client);
    const space = authorization.indexOf(' ');
    const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : authorization.slice(space + 1).trim();
    if (scheme === 'bearer' && value !== '') return this.byToken(value, challenge, client);
    if (scheme === 'basic' && value !== '') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) return this.byPassword(decoded.slice(0, colon), decoded.slice(colon + 1), challenge, client);
    }
    throw new UnauthenticatedError(
      'the Authorization header must be "Bearer <token>" or "Basic <base64 of user:password>"',
      challenge,
    );
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
      throw new ForbiddenError(
        `${what} needs the ${scope} scope, which "${principal.name}" does not have (it has: ${[...principal.scopes].join(', ') || 'none'})`,
      );
    }
    if (source !== undefined && principal.sources !== undefined && !principal.sources.has(source)) {
      throw new ForbiddenError(
        `"${principal.name}" may not use source ${JSON.stringify(source)} (it may use: ${[...principal.sources].join(', ')})`,
      );
    }
  }

  /**
   * Under PERSISTED_ONLY, whether the principal may send what only a persisted operation may otherwise ask: GraphQL
   * text, and any scoped request of the REST API (whose queries are always free-form).
   */
  mayQueryFreely(principal: Principal): boolean {
    return !this.policy.persistedOnly || principal.authenticated;
  }

  private async byToken(token: string, challenge: Challenge, client: string): Promise<Principal> {
    const key = digest('token', token);
    if (this.policy.trustedTokenDigests.has(key))
      return { ...this.policy.anonymous, name: 'trusted-client', authenticated: true };
    const found = this.policy.tokens.get(tokenDigest(token));
    if (found !== undefined) return found;
    if (this.policy.legacyTokens.length > 0) {
      const legacy = await this.verifiedOnce(key, client, async () => {
        // Every scrypt hash is tried, so which one matched (or how many there are) does not show in the time taken.
        const matches = await Promise.all(
          this.policy.legacyTokens.map((stored) => this.scrypt.run(() => verifyHash(token, stored.hash))),
        );
        return this.policy.legacyTokens[matches.indexOf(true)]?.principal;
      });
      if (legacy !== undefined) return legacy;
    }
    throw new UnauthenticatedError('the token is not valid', challenge);
  }

  private async byPassword(user: string, password: string, challenge: Challenge, client: string): Promise<Principal> {
    const found = await this.verifiedOnce(digest('basic', `${user}\u0000${password}`), client, async () => {
      const stored = this.policy.users.get(user);
      // An unknown user costs a scrypt too, so user names cannot be told apart by the time an answer takes.
      const ok = await this.scrypt.run(() => verifyHash(password, stored?.hash ?? DECOY));
      return ok && stored !== undefined ? stored.principal : undefined;
    });
    if (found === undefined) throw new UnauthenticatedError('wrong user name or password', challenge);
    return found;
  }

  /** A scrypt verification, once per credential while it runs, remembered when it succeeds, backed off when it fails. */
  private async verifiedOnce(
    key: string,
    client: string,
    verify: () => Promise<Principal | undefined>,
  ): Promise<Principal | undefined> {
    const known = this.verified.get(key);
    if (known !== undefined) return known;
    if (this.refused.has(key)) return undefined;
    let running = this.verifying.get(key);
    if (running === undefined) {
      this.backoff.check(client);
      running = verify().finally(() => this.verifying.delete(key));
      this.verifying.set(key, running);
    }
    const principal = await running;
    if (principal === undefined) {
      // Parallel requests with one wrong credential count as one failure, as they cost one scrypt.
      if (!this.refused.has(key)) this.backoff.failed(client);
      this.refused.set(key, true);
    } else {
      this.verified.set(key, principal);
      this.backoff.succeeded(client);
    }
    return principal;
  }
}

/** scrypt verifications at once: libuv's pool has four threads, and the file system and zlib need them too. */
const SCRYPT_RUNNING = 2;
/** Verifications that may wait for one of those; past it a new one is refused at once (OVERLOADED). */
const SCRYPT_QUEUED = 64;

/** A bound on scrypt work in flight, so a burst of passwords queues briefly or is refused instead of taking the pool. */
class ScryptGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.maxRunning) {
      if (this.waiting.length >= this.maxWaiting) throw new OverloadedError('too many password checks are waiting', 1);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}

/** Failed passwords a client may send before it must wait. */
const FREE_FAILURES = 5;
/** The wait after the first failure past those; it doubles with each further one, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/** A client's failures are forgotten this long after its last one. */
const FORGET_AFTER_MS = 15 * 60_000;

/**
 * Per-client backoff for failed password (and scrypt token) checks: a client past FREE_FAILURES waits a doubling
 * time before its next check, answered 429 until then; a success clears its record. Clients are told apart by
 * address, so one guessing passwords slows itself, not the others (behind a proxy they share one address).
 */
class FailureBackoff {
  private readonly clients = new LRUCache<string, { failures: number; untilMs: number }>({
    max: 10_000,
    ttl: FORGET_AFTER_MS,
  });

  check(client: string): void {
    const record = this.clients.get(client);
    const waitMs = record === undefined ? 0 : record.untilMs - Date.now();
    if (waitMs > 0) {
      throw new RateLimitedError(`too many failed sign-ins from this address (${record!.failures})`, {
        policy: 'credentials',
        limit: FREE_FAILURES,
        remaining: 0,
        resetSeconds: Math.ceil(waitMs / 1000),
      });
    }
  }

  failed(client: string): void {
    const failures = (this.clients.get(client)?.failures ?? 0) + 1;
    const over = failures - FREE_FAILURES;
    const untilMs = over > 0 ? Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (over - 1)) : 0;
    this.clients.set(client, { failures, untilMs });
  }

  succeeded(client: string): void {
    this.clients.delete(client);
  }
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

/** The fewest characters a token stored as a digest may have: less could be guessed offline from its digest. */
export const MIN_TOKEN_LENGTH = 32;

/**
 * A token's entry for CREDENTIALS_FILE, `$sha256$<digest>`: a generated token has 256 random bits, so a fast digest
 * is as safe to store as a slow hash, and it lets an unknown token be refused after one lookup.
 */
export function tokenHash(token: string): string {
  return `$sha256$${tokenDigest(token)}`;
}

function tokenDigest(token: string): string {
  return b64(createHash('sha256').update(token, 'utf8').digest());
}

const TOKEN_HASH_FORMAT = /^\$sha256\$([A-Za-z0-9+/]{43})$/;

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
    scrypt(secret.normalize('NFC'), salt, hash.length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
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
