/**
 * PromQL queries: /query (instant) and /query_range, GET or POST form, evaluated by the engine's PromqlEngine over the
 * source the path names (src/app/promql-series.ts: the one read path), with Prometheus's parameter checks and
 * messages, answered in its result shapes.
 */
import { type PromqlLimits, SourceSeriesAccess } from '../app/promql-series.js';
import { PromqlEngine, type QueryResult } from '../engine/promql/promql-engine.js';
import { formParams, type Call, type Reply, type PromRoute } from './prom-endpoint.js';
import { badParam, durationParam, goQuote, MAX_POINTS_PER_SERIES, parseTime, timeParam } from './prom-params.js';
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
  const { access, engine } = engineFor(call, 1);
  const result = await engine.instantQuery(params.get('query') ?? '', timeMs, call.ctx.signal);
  return replyOf(call, result, access);
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
  const { access, engine } = engineFor(call, Math.floor((endMs - startMs) / stepMs) + 1);
  const result = await engine.rangeQuery(params.get('query') ?? '', startMs, endMs, stepMs, call.ctx.signal);
  return replyOf(call, result, access);
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

function engineFor({ ctx, source, deps }: Call, steps: number) {
  const limits: PromqlLimits = { maxSamples: deps.settings.maxSamples };
  const access = new SourceSeriesAccess(ctx, source, steps, limits);
  return { access, engine: new PromqlEngine(access, { lookbackMs: deps.settings.lookbackMs }) };
}

function replyOf({ ctx }: Call, result: QueryResult, access: SourceSeriesAccess): Reply {
  return {
    data: { write: (out) => writeResult(result, out, ctx.budget) },
    warnings: [...result.warnings, ...access.warnings],
    infos: result.infos,
  };
}
