/**
 * PromQL queries: /query (instant) and /query_range, GET or POST form, evaluated over the source the path names as
 * every front end evaluates PromQL (src/app/promql-query.ts: the one read path), with Prometheus's parameter checks
 * and messages, answered in its result shapes.
 */
import { evaluatePromql, MAX_POINTS_PER_SERIES, type PromqlAnswer } from '../app/promql-query.js';
import { formParams, type Call, type Reply, type PromRoute } from './prom-endpoint.js';
import { badParam, durationParam, goQuote, parseTime, timeParam } from './prom-params.js';
import { PromApiError } from './prom-errors.js';
import { writeResult } from './render-result.js';

export const QUERY_ROUTES: readonly PromRoute[] = [
  { path: '/query', methods: { GET: [instantQuery, 'read'], POST: [instantQuery, 'read'] } },
  { path: '/query_range', methods: { GET: [rangeQuery, 'read'], POST: [rangeQuery, 'read'] } },
];

async function instantQuery(call: Call): Promise<Reply> {
  const params = await formParams(call);
  const timeMs = timeParam(params, 'time', call.ctx.nowMs);
  applyTimeout(call, params);
  return replyOf(call, await evaluatePromql(call.ctx, call.source, { expression: params.get('query') ?? '', timeMs }));
}

async function rangeQuery(call: Call): Promise<Reply> {
  const params = await formParams(call);
  const startMs = requiredTime(params, 'start');
  const endMs = requiredTime(params, 'end');
  if (endMs < startMs) throw new PromApiError('bad_data', 'end timestamp must not be before start time');
  const stepMs = durationParam(params, 'step');
  if (stepMs === undefined) throw badParam('step', `cannot parse "" to a valid duration`);
  if (!(stepMs > 0))
    throw new PromApiError(
      'bad_data',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  // Prometheus divides durations in nanoseconds: whole steps only.
  if (Math.floor((endMs - startMs) / stepMs) > MAX_POINTS_PER_SERIES)
    throw new PromApiError(
      'bad_data',
      'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)',
    );
  applyTimeout(call, params);
  const expression = params.get('query') ?? '';
  return replyOf(call, await evaluatePromql(call.ctx, call.source, { expression, startMs, endMs, stepMs }));
}

/** `timeout` shortens the request's time limit (QUERY_TIMEOUT_MS), never lengthens it, as Prometheus's --query.timeout. */
function applyTimeout({ ctx }: Call, params: URLSearchParams): void {
  const timeoutMs = durationParam(params, 'timeout');
  if (timeoutMs !== undefined) ctx.limitTime(Math.max(0, Math.round(timeoutMs)));
}

function requiredTime(params: URLSearchParams, name: string): number {
  const text = params.get(name) ?? '';
  const ms = parseTime(text);
  if (ms === undefined) throw badParam(name, `cannot parse ${goQuote(text)} to a valid timestamp`);
  return timeParam(params, name, ms);
}

function replyOf({ ctx }: Call, { result, warnings, infos }: PromqlAnswer): Reply {
  return { data: { write: (out) => writeResult(result, out, ctx.budget) }, warnings, infos };
}
