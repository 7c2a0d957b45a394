/**
 * Who may do what: the one check of credentials and scopes that GraphQL, the KairosDB REST API and /metrics use.
 * Principals come from CREDENTIALS_FILE (API tokens, each a SHA-256 digest, and HTTP Basic users, each a scrypt hash,
 * with their scopes and optionally their sources) and ANONYMOUS_SCOPES. A token is found by its digest, so an unknown
 * one costs a hash and a map lookup; passwords cost a scrypt, bounded in concurrency and backed off per client.
 */
import { LRUCache } from 'lru-cache';
import { ForbiddenError, UnauthenticatedError, type Challenge } from '../model/errors.js';
import type { Principal, Scope } from '../model/principal.js';
import type { AuthPolicy } from './auth-policy.js';
import { FailureBackoff, SCRYPT_QUEUED, SCRYPT_RUNNING, ScryptGate } from './credential-limits.js';
import { credentialDigest, DECOY, tokenDigest, verifyHash } from './hashes.js';

export type { Challenge, Principal, Scope };

/** The credentials a request carries: its Authorization header and its x-kairograph-token header. */
export interface PresentedCredentials {
  readonly authorization?: string | null | undefined;
  readonly token?: string | null | undefined;
}

/** The header Grafana's GraphQL data sources and GraphiQL's Headers pane send a token in (and TRUSTED_CLIENT_TOKENS). */
export const TOKEN_HEADER = 'x-kairograph-token';

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
    const key = credentialDigest('token', token);
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
    const found = await this.verifiedOnce(credentialDigest('basic', `${user}\u0000${password}`), client, async () => {
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
