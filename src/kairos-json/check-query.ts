/**
 * A KairosDB query body made into checked MetricQueries: parseKairosQuery, then each metric's aggregators, group-bys
 * and zone compiled as the engine will compile them, errors named under the metric's path
 * (`query.metric[1].aggregators[0].name …`). The REST API's queries and roll-up tasks' queries both come through here.
 */
import { compileAggregators } from '../engine/aggregators/registry.js';
import { compileGroupBys } from '../engine/group-by/registry.js';
import { readZone } from '../engine/params.js';
import { InputError } from '../model/errors.js';
import type { MetricQuery } from '../model/query.js';
import type { KeyLimits } from '../model/key-limits.js';
import { parseKairosQuery } from './parse-query.js';
import { renamedInputError } from './renamed-input-error.js';

export function parseCheckedKairosQuery(json: unknown, nowMs: number, limits: KeyLimits): MetricQuery[] {
  const queries = parseKairosQuery(json, nowMs, limits);
  for (const [i, query] of queries.entries()) inMetric(i, () => checkMetricQuery(query, nowMs, limits));
  return queries;
}

/** Compiles a query's aggregators, group-bys and zone as the engine will, throwing what the engine would throw. */
export function checkMetricQuery(query: MetricQuery, nowMs: number, limits: KeyLimits): void {
  const zone = readZone(query.timeZone, 'time_zone');
  const groupBys = compileGroupBys(query.groupBy, query.range.startMs);
  const { metric, range } = query;
  compileAggregators(query.aggregators, {
    metric,
    startMs: range.startMs,
    endMs: range.endMs,
    nowMs,
    zone,
    tagGroupBy: groupBys.tags ?? [],
    limits,
  });
}

/** Runs `fn` with its InputErrors renamed under `query.metric[i]`, whether it throws or rejects. */
export function inMetric<T>(i: number, fn: () => T): T {
  const rename = (error: unknown): never => {
    if (error instanceof InputError) throw renamedInputError(error, `query.metric[${i}].${error.field}`);
    throw error;
  };
  try {
    const result = fn();
    return (result instanceof Promise ? result.catch(rename) : result) as T;
  } catch (error) {
    return rename(error);
  }
}
