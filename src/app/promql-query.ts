/**
 * A PromQL query of a request, as every front end runs it: the engine over the source's series on the one read path
 * (promql-series.ts), with the request's lookback, samples budget, turns on the thread and abort signal. Prometheus's
 * HTTP API and GraphQL's `promql` field differ only in how they read their parameters and write the answer.
 */
import { TooManySamplesError } from '../engine/promql/eval-meter.js';
import { PromqlEngine, type QueryResult } from '../engine/promql/promql-engine.js';
import { BudgetExceededError } from '../model/errors.js';
import type { Source } from '../sources/source.js';
import { SourceSeriesAccess } from './promql-series.js';
import type { RequestScope } from './request-scope.js';

/** Prometheus's 11,000 points per series of a range query: every front end refuses more steps. */
export const MAX_POINTS_PER_SERIES = 11_000;

/** An instant query at `timeMs`, or a range query from `startMs` to `endMs` (both inclusive) every `stepMs`. */
export type PromqlRequest =
  | { readonly expression: string; readonly timeMs: number }
  | { readonly expression: string; readonly startMs: number; readonly endMs: number; readonly stepMs: number };

/** The engine's result, its warnings joined by the read path's (series skipped, partitions not decoded). */
export interface PromqlAnswer {
  readonly result: QueryResult;
  readonly warnings: readonly string[];
  readonly infos: readonly string[];
}

/** `label`: what names the query in the statistics, before its selectors' `selector[i]`; none for a query alone. */
export async function evaluatePromql(
  ctx: RequestScope,
  source: Source,
  request: PromqlRequest,
  label?: string,
): Promise<PromqlAnswer> {
  const range = 'stepMs' in request;
  const access = new SourceSeriesAccess(ctx, source, label === undefined ? '' : `${label}.`);
  const engine = new PromqlEngine(access, {
    lookbackMs: ctx.settings.promqlLookbackMs,
    maxSamples: ctx.settings.promqlMaxSamples,
    lane: ctx.lane,
  });
  let result: QueryResult;
  try {
    result = range
      ? await engine.rangeQuery(request.expression, request.startMs, request.endMs, request.stepMs, ctx.signal)
      : await engine.instantQuery(request.expression, request.timeMs, ctx.signal);
  } catch (error) {
    if (!(error instanceof TooManySamplesError)) throw error;
    // A budget like the house's others (422, BUDGET_EXCEEDED), in Prometheus's words, naming the setting.
    throw new BudgetExceededError(
      'request',
      'samples',
      error.limit,
      'PROMQL_MAX_SAMPLES',
      `${error.message}: more than PROMQL_MAX_SAMPLES (${error.limit})`,
    );
  }
  return { result, warnings: [...result.warnings, ...access.warnings], infos: result.infos };
}
