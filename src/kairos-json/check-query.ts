/**
 * A KairosDB query body made into checked MetricQueries: parseKairosQuery, then each metric's aggregators, group-bys
 * and zone compiled as the engine will compile them, errors named by the fields the parser gave each part
 * (`query.metric[1].aggregators[0].name …`). The REST API's queries and roll-up tasks' queries both come through here.
 */
import { compileAggregators } from '../engine/aggregators/registry.js';
import { compileGroupBys } from '../engine/group-by/registry.js';
import { readZone } from '../engine/params.js';
import { queryFields, type MetricQuery } from '../model/query.js';
import type { KeyLimits } from '../model/key-limits.js';
import { parseKairosQuery } from './parse-query.js';

export function parseCheckedKairosQuery(json: unknown, nowMs: number, limits: KeyLimits): MetricQuery[] {
  const queries = parseKairosQuery(json, nowMs, limits);
  for (const query of queries) checkMetricQuery(query, nowMs, limits);
  return queries;
}

/** Compiles a query's aggregators, group-bys and zone as the engine will, throwing what the engine would throw. */
export function checkMetricQuery(query: MetricQuery, nowMs: number, limits: KeyLimits): void {
  const zone = readZone(query.timeZone, queryFields(query).param('time_zone'));
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
