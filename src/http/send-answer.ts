/**
 * The one way answers are written to a Node response, for the edge's refusals and the front ends that answer on Node's
 * response themselves (REST): a short body made at once with its length, or a written answer (answer-writer.ts) chunk
 * by chunk with backpressure, cut off when the request's time limit passes while the client is not reading. GraphQL's
 * answers go through yoga's response path and share the answer's own headers (answerHeaders).
 */
import type { ServerResponse } from 'node:http';
import type { Answer } from './answer-writer.js';

export type HeaderFields = Readonly<Record<string, string>>;

/**
 * Writes `status` and `body` (none: an empty body, with a zero length unless the status is 204): the headers of `head`,
 * the body's length, then those of `tail`. Nothing once the response has begun or is gone.
 */
export function send(
  res: ServerResponse,
  status: number,
  body: string | undefined,
  head: HeaderFields,
  tail: HeaderFields = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
  res.writeHead(status, {
    ...head,
    ...(payload !== undefined
      ? { 'content-length': String(payload.length) }
      : status !== 204
        ? { 'content-length': '0' }
        : {}),
    ...tail,
  });
  res.end(payload);
}

/**
 * Writes `status` and `answer` with `head`, the answer's own headers and `tail`, chunk by chunk, waiting for the socket
 * to drain between chunks, so a large answer does not pile up in the socket's buffer; a client that stops reading is
 * cut off when `signal` (the request's time limit) aborts.
 */
export async function sendAnswer(
  res: ServerResponse,
  status: number,
  answer: Answer,
  head: HeaderFields,
  tail: HeaderFields,
  signal: AbortSignal,
): Promise<void> {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...head, ...answerHeaders(answer), ...tail });
  for (const chunk of answer.body) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await drained(res, signal);
  }
  res.end();
}

/** What an answer says of itself: its length as sent, its coding, and Vary when it depends on Accept-Encoding. */
export function answerHeaders(answer: Answer): Record<string, string> {
  return {
    'content-length': String(answer.bodyBytes),
    ...(answer.coding !== undefined ? { 'content-encoding': answer.coding } : {}),
    ...(answer.varies ? { vary: 'Accept-Encoding' } : {}),
  };
}

/** Resolves once `res` drains or closes; destroys it when `signal` aborts first. */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', cut);
      resolve();
    };
    const cut = () => {
      res.destroy();
      done();
    };
    res.once('drain', done);
    res.once('close', done);
    if (signal.aborted) cut();
    else signal.addEventListener('abort', cut, { once: true });
  });
}
