/**
 * How the ingest protocols answer an error, each in the form its senders read: remote write as Prometheus's receiver
 * does (plain text; the status alone decides a retry: 5xx and 429 are retried, other 4xx dropped), InfluxDB 2's
 * `{"code","message"}` on /api/v2/write and 1.x's `{"error"}` on /write. The house's typed errors keep their status and
 * message; a request its client left is 499; anything else is logged in full and masked.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorFormat } from '../http/edge.js';
import type { Exchange } from '../http/request-observer.js';
import { send, type HeaderFields } from '../http/send-answer.js';
import type { Logger } from '../lib/log.js';
import { type ErrorCode, KairographError } from '../model/errors.js';

/** The wire form of an error answer. */
export type IngestErrorForm = 'text' | 'influx-v1' | 'influx-v2';

/** InfluxDB 2's error codes (its `influxdb.E*` constants) for the house's codes. */
const INFLUX_CODE: Readonly<Record<ErrorCode, string>> = {
  BAD_USER_INPUT: 'invalid',
  BUDGET_EXCEEDED: 'unprocessable entity',
  CSRF_PREVENTED: 'forbidden',
  FORBIDDEN: 'forbidden',
  HOST_NOT_ALLOWED: 'forbidden',
  METHOD_NOT_ALLOWED: 'method not allowed',
  NOT_FOUND: 'not found',
  ORIGIN_NOT_ALLOWED: 'forbidden',
  OVERLOADED: 'unavailable',
  QUERY_TIMEOUT: 'unavailable',
  RATE_LIMITED: 'too many requests',
  REQUEST_ENTITY_TOO_LARGE: 'request too large',
  REQUEST_TIMEOUT: 'unavailable',
  STORE_UNAVAILABLE: 'unavailable',
  UNAUTHENTICATED: 'unauthorized',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported media type',
  TOO_MANY_SUBSCRIPTIONS: 'unavailable',
};

const JSON_HEAD: HeaderFields = { 'content-type': 'application/json; charset=utf-8' };
const TEXT_HEAD: HeaderFields = { 'content-type': 'text/plain; charset=utf-8' };

/** The body of an error in `form`; `code` is InfluxDB's. */
function ingestErrorBody(form: IngestErrorForm, code: string, message: string): string {
  if (form === 'text') return `${message}\n`;
  return form === 'influx-v1' ? JSON.stringify({ error: message }) : JSON.stringify({ code, message });
}

/** Sends an answer of `status` whose body is `message` in `form` (a partial write's 400 among them). */
export function sendIngestMessage(
  res: ServerResponse,
  form: IngestErrorForm,
  status: number,
  code: string,
  message: string,
  tail: HeaderFields,
): void {
  send(res, status, ingestErrorBody(form, code, message), form === 'text' ? TEXT_HEAD : JSON_HEAD, tail);
}

/**
 * Answers `error` in `form` and records it with the request. A typed error, or the typed reason `signal` was aborted
 * for (the time limit), keeps its status and message.
 */
export function sendIngestError(
  res: ServerResponse,
  form: IngestErrorForm,
  error: unknown,
  tail: HeaderFields,
  exchange: Exchange | undefined,
  log: Logger,
  signal?: AbortSignal,
): void {
  const known =
    signal?.aborted && signal.reason instanceof KairographError && !(error instanceof KairographError)
      ? signal.reason
      : error;
  if (known instanceof KairographError) {
    exchange?.errors.push({ code: known.code, message: known.message });
    return sendIngestMessage(res, form, known.status, INFLUX_CODE[known.code], known.message, {
      ...tail,
      ...known.headers,
    });
  }
  if (signal?.aborted) {
    exchange?.errors.push({ code: 'CANCELED', message: 'the client closed the connection' });
    return sendIngestMessage(res, form, 499, 'canceled', 'the client closed the connection', tail);
  }
  log.error({ err: error }, 'unexpected error in an ingest request');
  exchange?.errors.push({
    code: 'INTERNAL_SERVER_ERROR',
    message: error instanceof Error ? error.message : String(error),
  });
  sendIngestMessage(res, form, 500, 'internal error', 'unexpected error', tail);
}

/** The edge's refusals on ingest paths (a Host or an Origin it does not serve): InfluxDB 2's form, which senders log. */
export const INGEST_ERROR_FORMAT: ErrorFormat = {
  body: (error) => ingestErrorBody('influx-v2', INFLUX_CODE[error.code], error.message),
  headers: {},
};
