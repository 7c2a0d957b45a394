/**
 * What a front end that is not yoga does around each request once it knows the caller: opens the request's scope,
 * bound to the response (a client that leaves aborts it, the end of the answer releases it), runs the route, answers
 * an error in the front end's own form, drains a body the route did not read so the connection stays usable, and
 * records what the request cost for its log line. One place, so the REST and Prometheus APIs cannot drift apart.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestScope, RequestScopes } from '../app/request-scope.js';
import { requestStatistics } from '../app/statistics.js';
import type { Principal } from '../model/principal.js';
import type { Exchange } from './request-observer.js';
import type { HeaderFields } from './send-answer.js';

export interface ScopedRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly scopes: RequestScopes;
  /** Who the request acts as, and whom per-client quotas count it against (absent for an anonymous caller). */
  readonly caller: { readonly principal: Principal; readonly client?: string | undefined };
  /** The gateway's record of the request, when it keeps one. */
  readonly exchange?: Exchange | undefined;
  /** The source the route reads or writes, counted in the request's statistics. */
  readonly source?: string | undefined;
}

/**
 * Runs `answer` in the request's scope; `fail` answers what it throws. Both get the header every answer carries
 * (`x-request-id`).
 */
export async function serveScoped(
  request: ScopedRequest,
  answer: (ctx: RequestScope, idHeader: HeaderFields) => Promise<void>,
  fail: (error: unknown, ctx: RequestScope, idHeader: HeaderFields) => void,
): Promise<void> {
  const { req, res, exchange } = request;
  const clientGone = new AbortController();
  const header = req.headers['x-request-id'];
  const ctx = request.scopes.open({
    requestId: typeof header === 'string' ? header : null,
    clientSignal: clientGone.signal,
    principal: request.caller.principal,
    ...(request.caller.client !== undefined ? { client: request.caller.client } : {}),
    // The front ends served here (KairosDB's REST API, Prometheus's APIs, the ingest protocols) offer HTTP Basic.
    challenge: 'Basic',
  });
  res.once('close', () => {
    if (!res.writableFinished) clientGone.abort(new Error('the client closed the connection'));
    ctx.dispose();
  });
  if (exchange) {
    exchange.ctx = ctx;
    ctx.trace.span = exchange.span;
  }
  if (request.source !== undefined) ctx.sourcesUsed.add(request.source);
  const started = performance.now();
  const idHeader = { 'x-request-id': ctx.requestId };
  try {
    await answer(ctx, idHeader);
  } catch (error) {
    fail(error, ctx, idHeader);
  } finally {
    if (!req.readableEnded) req.resume();
  }
  // The request's log line (src/http/request-observer.ts) says what it cost, by query and by store table.
  if (exchange) exchange.statistics = requestStatistics(ctx, performance.now() - started);
}
