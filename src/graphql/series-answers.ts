/**
 * How GraphQL's point fields read: their arguments into the query model, series found through the source with the
 * request's loaders, queries run in the request's scope, answers filled as asked. `series`, `rows`, `rawSeries` and
 * `liveSeries` share it.
 */
import type { GroupOutput } from '../engine/execute.js';
import { fillPoints, type FillMode } from '../engine/fill.js';
import type { PointList } from '../engine/point-list.js';
import type { Order, QueryRawSeriesArgs, QuerySeriesArgs, TagMatch } from '../generated/graphql.js';
import { DEFAULT_TIME_ZONE, within, type FieldNames, type MetricQuery, type TimeRange } from '../model/query.js';
import type { TimeInput } from '../model/time.js';
import { queryThroughRollups } from '../rollups/query-through-rollups.js';
import { validateMetricName } from '../sources/write-validation.js';
import type { Partition } from '../model/series.js';
import type { Source } from '../sources/source.js';
import { aggregatorSpecs, groupBySpecs } from './aggregation-inputs.js';
import { positiveIntArg, rangeArgs, shiftArg, tagFilterArg, wherePredicate, zoneArg } from './arguments.js';
import type { GraphQLContext } from './context.js';
import type { SeriesModel } from './models.js';

export async function rawSeries(ctx: GraphQLContext, args: QueryRawSeriesArgs, label: string): Promise<SeriesModel[]> {
  const query: MetricQuery = {
    ...metricQueryBase(ctx, args),
    aggregators: [],
    groupBy: [{ name: 'series', params: {} }],
    timeZone: DEFAULT_TIME_ZONE,
  };
  const output = await ctx.runQuery(query, label);
  return output.groups.map((group) => seriesModel(group, group.name));
}

/** One key per series (a series spans several row periods), in the order of their ids. */
export function uniqueSeriesKeys(keys: readonly Partition[]): Partition[] {
  const unique = new Map<string, Partition>();
  for (const key of keys) unique.set(seriesKeyId(key), key);
  return [...unique.keys()].sort().map((id) => unique.get(id)!);
}

export function seriesKeyId(key: Partition): string {
  return JSON.stringify([key.dataType, key.tags]);
}

/** The partitions of `metric` in `range` that pass `where`, from `source`, through the request's loaders. */
export async function seriesOf(
  ctx: GraphQLContext,
  source: Source,
  metric: string,
  range: TimeRange,
  where: readonly TagMatch[] | null | undefined,
): Promise<Partition[]> {
  const name = validateMetricName(metric, 'metric', source.limits);
  const predicate = wherePredicate(where);
  const plan = await source.findSeries(ctx.loaders, name, range, predicate, { lane: ctx.lane });
  for (const warning of plan.warnings) ctx.log.warn(warning);
  return [...plan.partitions];
}

/**
 * Arguments every point query shares → the common part of the query model. Times and the limit are read here (the
 * engine sees epoch ms, and GraphQL caps the limit itself); the rest is validated by the engine, whose errors name
 * the arguments by the fields each part of the model carries.
 */
function metricQueryBase(
  ctx: GraphQLContext,
  args: {
    metric: string;
    from: TimeInput;
    to?: TimeInput | null;
    where?: readonly TagMatch[] | null;
    limit?: number | null;
    order?: Order | null;
    source?: string | null;
    timeZone?: string | null;
  },
) {
  const source = ctx.source(args.source).name;
  const range = rangeArgs(ctx, args.from, args.to, undefined, zoneArg(args.timeZone));
  const limit = positiveIntArg(args.limit, 'limit', ctx.settings.maxQueryPoints);
  return {
    source,
    metric: args.metric,
    range,
    tags: tagFilterArg(args.where),
    ...(limit ? { limit } : {}),
    order: args.order === 'DESC' ? ('desc' as const) : ('asc' as const),
    excludeTags: false,
    fields: QUERY_FIELDS,
  };
}

/** The query model's own fields that GraphQL's arguments name differently; the rest (`metric`, `limit`) share a name. */
const QUERY_FIELDS: FieldNames = {
  path: '',
  param: (name, key) => (GRAPHQL_NAMES.get(name) ?? name) + within(key),
};

const GRAPHQL_NAMES = new Map([
  ['time_zone', 'timeZone'],
  ['tags', 'where'],
]);

export async function aggregatedSeries(
  ctx: GraphQLContext,
  args: QuerySeriesArgs,
  label: string,
): Promise<SeriesModel[]> {
  return answerSeries(ctx, args, seriesQuery(ctx, args), label);
}

/** The query model of `series` (and `rows`, `liveSeries`): its arguments read, times resolved on the request's clock. */
export function seriesQuery(ctx: GraphQLContext, args: QuerySeriesArgs): MetricQuery {
  return {
    ...metricQueryBase(ctx, args),
    aggregators: aggregatorSpecs(ctx, args.aggregators),
    groupBy: groupBySpecs(args.groupBy),
    timeZone: args.timeZone ?? DEFAULT_TIME_ZONE,
    ...(args.name != null ? { alias: args.name } : {}),
  };
}

/** Runs a `series` query in the request of `ctx` and fills its answer as `args` ask. */
export async function answerSeries(
  ctx: GraphQLContext,
  args: QuerySeriesArgs,
  query: MetricQuery,
  label: string,
): Promise<SeriesModel[]> {
  // A shifted query is an ordinary query of the moved window (roll-ups, shared work and the results cache see the
  // window read); only its answer's times move back.
  const shifted = shiftArg(args.shift, query.range, zoneArg(args.timeZone));
  const read = shifted ? { ...query, range: shifted.range } : query;
  const output = await (args.useRollups
    ? queryThroughRollups(ctx, ctx.rollups, read, label)
    : ctx.runQuery(read, label));
  const points = output.groups.map((g) => (shifted ? g.points.retimed(shifted.shift.back) : g.points));
  const mode = (args.fill ?? 'NONE').toLowerCase() as FillMode;
  const filled = fillPoints(points, mode, query.order, ctx.budget);
  return output.groups.map((group, i) => seriesModel(group, args.name ?? group.name, filled[i]!));
}

function seriesModel(group: GroupOutput, name: string, points: PointList = group.points): SeriesModel {
  return { name, metric: group.name, tags: group.tags, groupBy: group.groupBy, sampleSize: group.sampleSize, points };
}

/** `cpu` or `dashboard.cpu`: the field's place in the response, which names the query in statistics and logs. */
export function responsePath(path: { prev: unknown; key: string | number } | undefined): string {
  const keys: (string | number)[] = [];
  for (let p = path; p; p = p.prev as typeof path) keys.unshift(p.key);
  return keys.join('.');
}
