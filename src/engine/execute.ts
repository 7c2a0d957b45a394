/**
 * The one read path: executeQuery validates a metric query (aggregators and group-bys through their registries,
 * zone, limit), asks the query's source for its series through the request's loaders, reads the partitions, groups,
 * aggregates, and answers in KairosDB's shape. GraphQL and the REST facade both call it; neither reads a source
 * itself, and it knows no layout: everything it reads comes through the Source seam (src/sources/source.ts).
 */
import { isEpochMs } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import { queryFields, type MetricQuery } from '../model/query.js';
import { compileTagFilter } from '../model/tag-filter.js';
import { ReadAheadBudget } from '../lib/queued-scan.js';
import { validateMetricName } from '../sources/write-validation.js';
import type { KeyLimits } from '../model/key-limits.js';
import { compileAggregators } from './aggregators/registry.js';
import { BudgetTracker } from './budget.js';
import { compileGroupBys } from './group-by/registry.js';
import { DEFAULT_READ_AHEAD_POINTS } from './read-ahead.js';
import type { GroupOutput, QueryOutput } from './output.js';
import { readInteger, readZone } from './params.js';
import { CachedQuery } from './cached-query.js';
import { yieldIfDue } from '../lib/time-slice.js';
import type { EngineContext } from './engine-context.js';
import {
  planRowGroup,
  splitOf,
  readAheadOf,
  runRowGroup,
  type CompiledQuery,
  type RowGroupRun,
} from './run-row-group.js';
import { seriesOf, rowGroupsOf } from './row-groups.js';

export type { Budgets, QueryStats } from './budget.js';
export { newQueryStats, RequestBudget, unlimitedRequest } from './budget.js';
export type { GroupOutput, QueryOutput } from './output.js';
export type { GroupByResult } from './group-by/group-by.js';
export type { EngineContext } from './engine-context.js';

export async function executeQuery(query: MetricQuery, ctx: EngineContext): Promise<QueryOutput> {
  // A request of many queries starts them together; each takes its turn, or their set-up alone holds the thread.
  await yieldIfDue(ctx.lane);
  const planStarted = performance.now();
  const compiled = compileQuery(query, ctx.nowMs, ctx.source.limits);
  const planSpan = ctx.trace?.child('plan');
  let plan: Awaited<ReturnType<typeof ctx.source.findSeries>>;
  try {
    plan = await ctx.source.findSeries(
      ctx.index,
      compiled.pipeline.metric,
      query.range,
      compiled.matches,
      ctx.lane !== undefined ? { lane: ctx.lane } : {},
    );
    planSpan?.set({ 'kairograph.row_periods': plan.periods, 'kairograph.partitions': plan.partitions.length });
  } finally {
    planSpan?.end();
  }
  const widthMs = plan.widthMs;
  ctx.stats.rowTimes += plan.periods;
  ctx.stats.planMs += performance.now() - planStarted;
  await yieldIfDue(ctx.lane);
  ctx.signal?.throwIfAborted();

  const runStarted = performance.now();
  // Reading and aggregating interleave, slice by slice: one stage, not two.
  const runSpan = ctx.trace?.child('read and aggregate');
  try {
    const tracker = new BudgetTracker(ctx.budgets, ctx.stats, ctx.request);
    const found = seriesOf(plan.partitions);
    const series = found.slice(0, tracker.admitSeries(found.length));
    ctx.stats.seriesMatched += series.length;
    const cached = CachedQuery.of(
      ctx.cache,
      ctx.source.name,
      query,
      compiled.pipeline,
      ctx.budgets,
      compiled.startMs,
      compiled.endMs,
      ctx.nowMs,
    );
    const readAheadBudget = ctx.readAheadBudget ?? new ReadAheadBudget(DEFAULT_READ_AHEAD_POINTS);
    const run: RowGroupRun = { compiled, ctx, tracker, widthMs, cached, yielded: new Set(), split: 1, readAheadBudget };
    const planned = rowGroupsOf(series, compiled.pipeline.groupBys).map((rowGroup) => planRowGroup(rowGroup, run));
    run.split = splitOf(planned, ctx);
    const ahead = readAheadOf(planned, run);
    const groups: GroupOutput[] = [];
    try {
      for (const rowGroup of planned) {
        if (tracker.stopped) break;
        ctx.signal?.throwIfAborted();
        groups.push(...(await runRowGroup(rowGroup, run, ahead)));
      }
    } finally {
      await ahead?.reads.close();
    }
    const warnings = [...plan.warnings];
    if (tracker.truncated)
      warnings.push(
        `the answer is incomplete: the query reached its ${tracker.truncated.budget} budget of ${tracker.truncated.limit}`,
      );
    return {
      metric: compiled.pipeline.metric,
      ...(query.alias !== undefined ? { alias: query.alias } : {}),
      sampleSize: tracker.pointsRead,
      groups,
      warnings,
      ...(tracker.truncated ? { truncated: tracker.truncated } : {}),
    };
  } finally {
    runSpan?.end();
    ctx.stats.fetchAggregateMs += performance.now() - runStarted;
  }
}

/** Validates everything about a query that can be known before reading, so a bad query costs no store call. */
function compileQuery(query: MetricQuery, nowMs: number, limits: KeyLimits): CompiledQuery {
  const fields = queryFields(query);
  const metric = validateMetricName(query.metric, fields.param('metric'), limits);
  const { startMs, endMs } = query.range;
  if (!isEpochMs(startMs) || !isEpochMs(endMs) || endMs < startMs) {
    throw new InputError(
      fields.param('range'),
      query.range,
      'must have startMs and endMs in whole epoch ms within ±8.64e15, endMs not before startMs',
    );
  }
  // UTC unless the query names a zone: KairosDB would use the JVM's zone (DEFAULT_TIME_ZONE in the query model).
  const zone = readZone(query.timeZone, fields.param('time_zone'));
  const limit = query.limit === undefined ? 0 : readInteger(query.limit, fields.param('limit'), 0);
  if (query.order !== 'asc' && query.order !== 'desc')
    throw new InputError(fields.param('order'), query.order, 'must be asc or desc');
  const matches = compileTagFilter(query.tags, fields.param('tags'));
  const groupBys = compileGroupBys(query.groupBy, startMs);
  const aggregators = compileAggregators(query.aggregators, {
    metric,
    startMs,
    endMs,
    nowMs,
    zone,
    tagGroupBy: groupBys.tags ?? [],
    limits,
  });
  return {
    pipeline: { metric, order: query.order, limit, excludeTags: query.excludeTags, aggregators, groupBys },
    startMs,
    endMs,
    matches,
  };
}
