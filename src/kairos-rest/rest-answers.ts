/**
 * How KairosDB's REST API answers: its no-cache headers on every answer, its error body `{"errors": [...]}` (the one
 * function that renders it, which the edge and the request deadline use too, through KAIROS_ERROR_FORMAT), and errors
 * as answers: typed errors keep their message, status and headers; anything else is logged in full and masked.
 */
import type { ServerResponse } from 'node:http';
import { textAnswer } from '../http/answer-writer.js';
import type { AnswerEncoding } from '../http/compression.js';
import { requestError, type ErrorFormat } from '../http/edge.js';
import type { Exchange } from '../http/request-observer.js';
import { send, sendAnswer, type HeaderFields } from '../http/send-answer.js';
import type { Logger } from '../lib/log.js';
import { KairographError } from '../model/errors.js';
import type { Reply } from './rest-endpoint.js';

/**
 * Every response carries KairosDB's no-caching headers (`MetricsResource.setHeaders`). KairosDB's
 * `Access-Control-Allow-Origin: *` is not sent: cross-origin access is CORS_ORIGINS's (src/http/browser-policy.ts).
 */
const COMMON_HEADERS = { pragma: 'no-cache', 'cache-control': 'no-cache', expires: '0' } as const;

const JSON_HEAD: HeaderFields = { ...COMMON_HEADERS, 'content-type': 'application/json; charset=UTF-8' };

/** What a client is told of an error it is not meant to see. */
export const UNEXPECTED = 'Unexpected error.';

export function restErrorBody(message: string): string {
  return JSON.stringify({ errors: [message] });
}

/** KairosDB's error body and headers, for the answers the gateway gives on REST's paths without REST. */
export const KAIROS_ERROR_FORMAT: ErrorFormat = {
  body: (error) => restErrorBody(error.message),
  headers: COMMON_HEADERS,
};

/** Writes `reply` (its text compressed when the client takes it so and it is large enough); `tail` goes last. */
export async function sendReply(
  res: ServerResponse,
  reply: Reply,
  tail: HeaderFields,
  encoding: AnswerEncoding | undefined,
  signal: AbortSignal,
): Promise<void> {
  const headers = { ...tail, ...reply.headers };
  if (reply.body === undefined) return send(res, reply.status, undefined, COMMON_HEADERS, headers);
  const answer = typeof reply.body === 'object' ? reply.body : await textAnswer(reply.body, encoding);
  await sendAnswer(res, reply.status, answer, JSON_HEAD, headers, signal);
}

/** Answers without a body: a 204, or the Allow of a plain OPTIONS. */
export function sendEmpty(res: ServerResponse, status: number, tail: HeaderFields): void {
  send(res, status, undefined, COMMON_HEADERS, tail);
}

/**
 * Answers `error` in KairosDB's form and records it with the request. A typed error, or the typed reason `signal` was
 * aborted for (a time limit, a budget), keeps its message, status and headers; anything else is logged and masked.
 */
export function sendError(
  res: ServerResponse,
  error: unknown,
  tail: HeaderFields,
  exchange: Exchange | undefined,
  log: Logger,
  signal?: AbortSignal,
): void {
  const known =
    error instanceof KairographError
      ? error
      : signal?.aborted && signal.reason instanceof KairographError
        ? signal.reason
        : undefined;
  if (known !== undefined) {
    exchange?.errors.push(requestError(known));
    return send(res, known.status, restErrorBody(known.message), JSON_HEAD, { ...tail, ...known.headers });
  }
  // The client sees a masked message; the log keeps the whole error, stack included.
  log.error({ err: error }, 'unexpected error in a KairosDB REST request');
  exchange?.errors.push({
    code: 'INTERNAL_SERVER_ERROR',
    message: error instanceof Error ? error.message : String(error),
  });
  sendUnexpected(res, tail);
}

/** The masked 500 of an error the client is not meant to see. */
export function sendUnexpected(res: ServerResponse, tail: HeaderFields = {}): void {
  send(res, 500, restErrorBody(UNEXPECTED), JSON_HEAD, tail);
}
