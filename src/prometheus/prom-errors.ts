/**
 * Errors in Prometheus's form, `{"status":"error","errorType":...,"error":...}`, with Prometheus's statuses for its
 * types, and the house's typed errors (src/model/errors.ts) mapped onto them in one table: a client of Prometheus's
 * API reads the type and the message, and retries by status (Grafana's alerting retries 5xx).
 */
import { PromqlError } from '../engine/promql/promql-error.js';
import type { ErrorFormat } from '../http/edge.js';
import { type ErrorCode, KairographError } from '../model/errors.js';

/** Prometheus's error types (web/api/v1/api.go). */
export type PromErrorType =
  | 'bad_data'
  | 'execution'
  | 'timeout'
  | 'canceled'
  | 'internal'
  | 'unavailable'
  | 'not_found';

/** The status Prometheus answers each type with. */
const TYPE_STATUS: Readonly<Record<PromErrorType, number>> = {
  bad_data: 400,
  execution: 422,
  timeout: 503,
  canceled: 499,
  internal: 500,
  unavailable: 503,
  not_found: 404,
};

/** An error the Prometheus front end makes itself, typed as Prometheus types it. */
export class PromApiError extends Error {
  constructor(
    readonly type: PromErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'PromApiError';
  }
}

/**
 * Each house code as a Prometheus type, and the status it keeps. Refusals of the request itself (credentials, scopes,
 * browser rules, methods, sizes) keep the house's status, since Prometheus has no type for them, and are `bad_data`:
 * the request must change. A budget is `execution` 422, as Prometheus answers its own samples limit
 * (`--query.max-samples`): the query is valid but too large to run, and retrying it will not help. The time limit is
 * `timeout` 503, Prometheus's own answer; overload and a store that is down are `unavailable` 503, which clients retry.
 */
const CODE_TYPE: Readonly<Record<ErrorCode, readonly [PromErrorType, number]>> = {
  BAD_USER_INPUT: ['bad_data', 400],
  BUDGET_EXCEEDED: ['execution', 422],
  CSRF_PREVENTED: ['bad_data', 403],
  FORBIDDEN: ['bad_data', 403],
  HOST_NOT_ALLOWED: ['bad_data', 403],
  METHOD_NOT_ALLOWED: ['bad_data', 405],
  NOT_FOUND: ['not_found', 404],
  ORIGIN_NOT_ALLOWED: ['bad_data', 403],
  OVERLOADED: ['unavailable', 503],
  QUERY_TIMEOUT: ['timeout', 503],
  RATE_LIMITED: ['unavailable', 429],
  REQUEST_ENTITY_TOO_LARGE: ['bad_data', 413],
  REQUEST_TIMEOUT: ['timeout', 408],
  STORE_UNAVAILABLE: ['unavailable', 503],
  UNAUTHENTICATED: ['bad_data', 401],
  UNSUPPORTED_MEDIA_TYPE: ['bad_data', 415],
  TOO_MANY_SUBSCRIPTIONS: ['unavailable', 503],
};

/** How an error is answered: status, type, message, and the headers a typed error carries (Retry-After, Allow, ...). */
export interface PromErrorAnswer {
  readonly status: number;
  readonly type: PromErrorType;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The house's code, for the request's record. */
  readonly code: string;
}

/** What a client is told of an error it is not meant to see. */
export const UNEXPECTED = 'unexpected error';

/** The answer to `error`; undefined for an error that is none of the known ones (masked, and logged by the caller). */
export function promErrorAnswer(error: unknown): PromErrorAnswer | undefined {
  if (error instanceof PromApiError || error instanceof PromqlError) {
    return {
      status: TYPE_STATUS[error.type],
      type: error.type,
      message: error.message,
      headers: {},
      code: error.type === 'not_found' ? 'NOT_FOUND' : error.type === 'bad_data' ? 'BAD_USER_INPUT' : error.type,
    };
  }
  if (error instanceof KairographError) {
    const [type, status] = CODE_TYPE[error.code];
    return { status, type, message: error.message, headers: error.headers, code: error.code };
  }
  return undefined;
}

export function promErrorBody(type: PromErrorType, message: string): string {
  return JSON.stringify({ status: 'error', errorType: type, error: message });
}

/** Prometheus's error body, for the answers the gateway gives on /prometheus/ paths before the front end sees them. */
export const PROMETHEUS_ERROR_FORMAT: ErrorFormat = {
  body: (error) => {
    const [type] = CODE_TYPE[error.code];
    return promErrorBody(type, error.message);
  },
  headers: {},
};
