/**
 * The project's typed errors. Every front end maps them in one place (GraphQL: extensions.code + HTTP status;
 * REST: KairosDB's {"errors": [...]}); anything that is not one of these is unexpected and gets masked.
 */

export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'BUDGET_EXCEEDED'
  | 'CSRF_PREVENTED'
  | 'FORBIDDEN'
  | 'HOST_NOT_ALLOWED'
  | 'METHOD_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'ORIGIN_NOT_ALLOWED'
  | 'OVERLOADED'
  | 'QUERY_TIMEOUT'
  | 'RATE_LIMITED'
  | 'REQUEST_ENTITY_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'STORE_UNAVAILABLE'
  | 'UNAUTHENTICATED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_SUBSCRIPTIONS';

/**
 * The HTTP status of each code, the one table for every front end (docs/graphql.md, "Errors and their statuses"). NOT_FOUND and
 * METHOD_NOT_ALLOWED are the REST router's refusals (src/http/http-errors.ts); yoga answers GraphQL's own.
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  BAD_USER_INPUT: 400,
  BUDGET_EXCEEDED: 422,
  CSRF_PREVENTED: 403,
  FORBIDDEN: 403,
  HOST_NOT_ALLOWED: 403,
  METHOD_NOT_ALLOWED: 405,
  NOT_FOUND: 404,
  ORIGIN_NOT_ALLOWED: 403,
  OVERLOADED: 503,
  QUERY_TIMEOUT: 504,
  RATE_LIMITED: 429,
  REQUEST_ENTITY_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  STORE_UNAVAILABLE: 503,
  UNAUTHENTICATED: 401,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_SUBSCRIPTIONS: 503,
};

export class KairographError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = ERROR_STATUS[code];
  }

  /** HTTP headers the answer carries besides the status (both front ends send them). */
  get headers(): Readonly<Record<string, string>> {
    return {};
  }
}

/** The scheme a 401 offers in WWW-Authenticate: Basic where KairosDB clients and browsers answer it, Bearer for GraphQL. */
export type Challenge = 'Basic' | 'Bearer';

/** Bad input: names the field (a path such as `points[3].value`) and the offending value. */
export class InputError extends KairographError {
  readonly field: string;
  readonly value: unknown;
  /** What is wrong, without the field and value: a front end that names the field its own way keeps this. */
  readonly reason: string;

  constructor(field: string, value: unknown, reason: string) {
    super('BAD_USER_INPUT', `${field} ${reason} (got ${show(value)})`);
    this.field = field;
    this.value = value;
    this.reason = reason;
  }
}

/**
 * A query, or a whole request (every alias, every REST metric), went over one of its budgets. The message names
 * the budget, its limit and the setting that raises it.
 */
export class BudgetExceededError extends KairographError {
  readonly scope: 'query' | 'request';
  readonly budget: string;
  readonly limit: number;
  readonly setting: string;

  /** `message`: where a protocol has its own words for the refusal (Prometheus's samples limit); ours otherwise. */
  constructor(scope: 'query' | 'request', budget: string, limit: number, setting: string, message?: string) {
    super('BUDGET_EXCEEDED', message ?? `${scope} exceeded its ${budget} budget of ${limit} (${setting})`);
    this.scope = scope;
    this.budget = budget;
    this.limit = limit;
    this.setting = setting;
  }
}

export class QueryTimeoutError extends KairographError {
  constructor(readonly timeoutMs: number) {
    super('QUERY_TIMEOUT', `query exceeded its time limit of ${timeoutMs} ms`);
  }
}

/**
 * The client did not finish sending its request (headers and body) within the time limit: a 408, not a 504. The rest
 * of the request is not read, so the connection cannot carry another.
 */
export class RequestTimeoutError extends KairographError {
  constructor(readonly timeoutMs: number) {
    super(
      'REQUEST_TIMEOUT',
      `the request was not received within its time limit of ${timeoutMs} ms (QUERY_TIMEOUT_MS)`,
    );
  }

  override get headers(): Readonly<Record<string, string>> {
    return { connection: 'close' };
  }
}

/**
 * The request was refused before it ran (admission control, src/http/admission.ts): the server already runs all the
 * requests it may and the queue is full, or the request would wait, or did wait, past its time limit. Clients may
 * try again after `retryAfterSeconds`, which the answer's Retry-After header says.
 */
export class OverloadedError extends KairographError {
  constructor(
    reason: string,
    readonly retryAfterSeconds: number,
  ) {
    super('OVERLOADED', `the server is overloaded: ${reason}; retry in ${retryAfterSeconds} s`);
  }

  override get headers(): Readonly<Record<string, string>> {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

/**
 * The request has no valid credentials for what it asks: none where its action needs a scope anonymous requests lack,
 * or credentials that are wrong. `challenge` is the scheme the answer's WWW-Authenticate offers (Basic where KairosDB
 * clients and browsers can answer it, Bearer for GraphQL clients).
 */
export class UnauthenticatedError extends KairographError {
  constructor(
    message: string,
    readonly challenge: Challenge,
  ) {
    super('UNAUTHENTICATED', message);
  }

  override get headers(): Readonly<Record<string, string>> {
    return {
      'www-authenticate':
        this.challenge === 'Basic' ? 'Basic realm="kairograph", charset="UTF-8"' : 'Bearer realm="kairograph"',
    };
  }
}

/** The credentials are valid but lack the scope (or the source) the action needs; the message names which. */
export class ForbiddenError extends KairographError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/**
 * The request's Host header names no address of the gateway: a page whose own name was rebound to this machine's
 * address (DNS rebinding) sends such a header. src/http/browser-policy.ts decides.
 */
export class ForbiddenHostError extends KairographError {
  constructor(readonly host: string) {
    super(
      'HOST_NOT_ALLOWED',
      `the Host header ${show(host)} is not a name of this gateway: add it to ALLOWED_HOSTS if clients reach the gateway by that name`,
    );
  }
}

/** A page of another site sent the request (its Origin header), and CORS_ORIGINS does not list that site. */
export class ForbiddenOriginError extends KairographError {
  constructor(readonly origin: string) {
    super(
      'ORIGIN_NOT_ALLOWED',
      `requests from pages of ${show(origin)} are not allowed: add that origin to CORS_ORIGINS to let its pages use the gateway`,
    );
  }
}

/**
 * A request a browser could send from another site without asking first (a form or text/plain POST): refused unless
 * it carries what only a script allowed by CORS can send, a JSON content type or a header a form cannot set.
 */
export class CsrfError extends KairographError {
  constructor(message: string) {
    super('CSRF_PREVENTED', message);
  }
}

/** Where a principal stands against one quota: the answer's RateLimit and RateLimit-Policy headers say it. */
export interface QuotaState {
  /** The quota's name in the headers: `requests`, `points`, `subscriptions`, `rollups`, `credentials`. */
  readonly policy: string;
  readonly limit: number;
  readonly remaining: number;
  /** The quota's window in seconds; absent for a quota of things held at once. */
  readonly windowSeconds?: number;
  /** Seconds until more is allowed. */
  readonly resetSeconds: number;
}

/**
 * One principal (or one client address) went over its own quota: other principals go on. The answer carries
 * Retry-After and the draft standard's RateLimit headers (draft-ietf-httpapi-ratelimit-headers).
 */
export class RateLimitedError extends KairographError {
  constructor(
    message: string,
    readonly quota: QuotaState,
  ) {
    super('RATE_LIMITED', `${message}; retry in ${Math.max(1, quota.resetSeconds)} s`);
  }

  override get headers(): Readonly<Record<string, string>> {
    const { policy, limit, remaining, windowSeconds, resetSeconds } = this.quota;
    const reset = Math.max(1, Math.ceil(resetSeconds));
    return {
      'retry-after': String(reset),
      'ratelimit-policy': `"${policy}";q=${limit}${windowSeconds !== undefined ? `;w=${windowSeconds}` : ''}`,
      ratelimit: `"${policy}";r=${Math.max(0, remaining)};t=${reset}`,
    };
  }
}

export class StoreUnavailableError extends KairographError {
  /**
   * A client may try again after `retryAfterSeconds` (the answer's Retry-After), by when the store has tried again
   * itself (a reconnection, a schema repair's next attempt).
   */
  constructor(
    store: string,
    cause?: unknown,
    readonly retryAfterSeconds = 1,
  ) {
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    super('STORE_UNAVAILABLE', `the ${store} store is unavailable${why}`, { cause });
  }

  override get headers(): Readonly<Record<string, string>> {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

/** A live subscription over MAX_SUBSCRIPTIONS: refused before it starts, the others go on. */
export class TooManySubscriptionsError extends KairographError {
  constructor(readonly limit: number) {
    super(
      'TOO_MANY_SUBSCRIPTIONS',
      `the gateway already serves ${limit} live subscriptions, its MAX_SUBSCRIPTIONS; close one or raise MAX_SUBSCRIPTIONS`,
    );
  }
}

/**
 * A setting the process cannot run with (an environment variable, SOURCES_FILE, a source's mapping against its table):
 * not a request's error, it stops start-up with a message that names the setting.
 */
export class ConfigError extends Error {}

/** Renders a rejected value for a message: JSON where it is short and printable, truncated otherwise. */
function show(value: unknown): string {
  let text: string;
  if (typeof value === 'bigint') text = `${value}`;
  else if (value === undefined) text = 'undefined';
  else if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
