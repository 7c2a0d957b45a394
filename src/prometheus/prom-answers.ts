/**
 * How the Prometheus front end answers: a success as `{"status":"success","data":...,"warnings":[...],"infos":[...]}`
 * (warnings and infos only when there are some, as Prometheus leaves them out), written through the request's
 * AnswerWriter (counted against MAX_RESPONSE_BYTES, compressed when the client takes it so); an error in Prometheus's
 * error body. Typed errors keep their message; a request its client left is `canceled`; anything else is logged in
 * full and masked.
 */
import type { ServerResponse } from 'node:http';
import type { RequestScope } from '../app/request-scope.js';
import { AnswerWriter, writeJson } from '../http/answer-writer.js';
import type { AnswerEncoding } from '../http/compression.js';
import { requestError } from '../http/edge.js';
import type { Exchange } from '../http/request-observer.js';
import { send, sendAnswer, type HeaderFields } from '../http/send-answer.js';
import type { Logger } from '../lib/log.js';
import { KairographError } from '../model/errors.js';
import { promErrorAnswer, promErrorBody, UNEXPECTED } from './prom-errors.js';
import type { Reply } from './prom-endpoint.js';

const JSON_HEAD: HeaderFields = { 'content-type': 'application/json' };

export async function sendSuccess(
  res: ServerResponse,
  reply: Reply,
  tail: HeaderFields,
  encoding: AnswerEncoding | undefined,
  ctx: RequestScope,
): Promise<void> {
  const out = new AnswerWriter(ctx.budget, ctx.lane, encoding);
  try {
    out.write('{"status":"success","data":');
    if ('write' in reply.data) await reply.data.write(out);
    else await writeJson(reply.data.value, out);
    if (reply.warnings !== undefined && reply.warnings.length > 0)
      out.write(`,"warnings":${JSON.stringify(reply.warnings)}`);
    if (reply.infos !== undefined && reply.infos.length > 0) out.write(`,"infos":${JSON.stringify(reply.infos)}`);
    out.write('}');
    out.flush();
  } catch (error) {
    out.discard();
    throw error;
  }
  await sendAnswer(res, 200, await out.finish(), JSON_HEAD, tail, ctx.signal);
}

/**
 * Answers `error` in Prometheus's form and records it with the request. A typed error, or the typed reason `signal`
 * was aborted for (a time limit, a budget), keeps its message; anything else is logged and masked as `internal`.
 */
export function sendPromError(
  res: ServerResponse,
  error: unknown,
  tail: HeaderFields,
  exchange: Exchange | undefined,
  log: Logger,
  signal?: AbortSignal,
): void {
  const known =
    signal?.aborted && signal.reason instanceof KairographError && promErrorAnswer(error) === undefined
      ? signal.reason
      : error;
  const answer = promErrorAnswer(known);
  if (answer !== undefined) {
    exchange?.errors.push(
      known instanceof KairographError ? requestError(known) : { code: answer.code, message: answer.message },
    );
    return send(res, answer.status, promErrorBody(answer.type, answer.message), JSON_HEAD, {
      ...tail,
      ...answer.headers,
    });
  }
  // A client that left aborted its own request: nobody reads the answer, and nothing went wrong on this side.
  if (signal?.aborted) {
    exchange?.errors.push({ code: 'CANCELED', message: 'the client closed the connection' });
    return send(
      res,
      499,
      promErrorBody('canceled', 'the query was canceled: the client closed the connection'),
      JSON_HEAD,
      tail,
    );
  }
  log.error({ err: error }, 'unexpected error in a Prometheus API request');
  exchange?.errors.push({
    code: 'INTERNAL_SERVER_ERROR',
    message: error instanceof Error ? error.message : String(error),
  });
  send(res, 500, promErrorBody('internal', UNEXPECTED), JSON_HEAD, tail);
}
