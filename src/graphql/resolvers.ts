/**
 * Resolvers of schema.graphql. They translate arguments into the query model, pick the source a field names, find
 * series through it with the request's loaders, and read through the engine; no resolver reaches a source's tables.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { dict } from '../lib/dict.js';
import { InputError } from '../model/errors.js';
import type { GroupOutput } from '../engine/execute.js';
import { fillPoints, type FillMode } from '../engine/fill.js';
import type { PointList } from '../engine/point-list.js';
import type {
  Order,
  QueryRawSeriesArgs,
  QuerySeriesArgs,
  Resolvers,
  SeriesPointsInput,
  TagMatch,
  ValueType as GraphQLValueType,
} from '../generated/graphql.js';
import { deletePoints } from '../app/delete-points.js';
import { metadataFor } from '../app/metadata.js';
import {
  createRollup,
  deleteRollup,
  getRollup,
  listRollups,
  rollupStatus,
  updateRollup,
} from '../rollups/rollup-api.js';
import type { StoredTask } from '../rollups/task-store.js';
import { runWithRollups } from '../rollups/use-rollups.js';
import { DEFAULT_TIME_ZONE, type MetricQuery, type TimeRange } from '../model/query.js';
import { checkMetricPrefix } from '../sources/key-limits.js';
import { pointPath, validateMetricName, validateWrite, type SeriesInput } from '../sources/write-validation.js';
import type { Partition } from '../model/series.js';
import type { ValueType } from '../model/write-batch.js';
import type { TimeInput } from '../model/time.js';
import { aggregatorSpecs, groupBySpecs } from './aggregation-inputs.js';
import {
  cursorArg,
  DEFAULT_METADATA_WINDOW_MS,
  page,
  pageSizeArg,
  positiveIntArg,
  rangeArgs,
  tagFilterArg,
  timeArg,
  wherePredicate,
  zoneArg,
} from './arguments.js';
import { withGraphQLFields } from './engine-fields.js';
import { liveSeriesResolver } from './live-series.js';
import type { RequestContext } from '../app/request-scope.js';
import type { Source } from '../sources/source.js';
import type { SeriesModel } from './models.js';
import { GRAPHQL_TYPE, pointColumn, pointRows, seriesRows } from './point-answers.js';
import { LongScalar, PointValueScalar, TimeScalar } from './scalars.js';

const MAX_METRIC_NAMES = 100_000;

export const resolvers: Resolvers = {
  Time: TimeScalar,
  Long: LongScalar,
  PointValue: PointValueScalar,

  Query: {
    sources(_, __, ctx) {
      return ctx.sources.all.map((source) => {
        const catalogue = source.capabilities.catalogue?.status();
        return {
          name: source.name,
          layout: source.layout,
          writable: source.writable,
          primary: source === ctx.sources.primary,
          catalogue:
            catalogue === undefined ? null : { ...catalogue, lastPassEndedAt: catalogue.lastPassEndedMs ?? null },
        };
      });
    },
    async metricNames(_, { prefix, limit, source: name }, ctx) {
      const source = ctx.source(name);
      const max = positiveIntArg(limit, 'limit', MAX_METRIC_NAMES);
      checkMetricPrefix(source.limits, prefix ?? '', 'prefix');
      return source.metricNames(prefix ?? '', max === 0 ? undefined : max);
    },
    async metricNamesPage(_, { prefix, first, after, source: name }, ctx) {
      const source = ctx.source(name);
      const size = pageSizeArg(first);
      const start = cursorArg(after);
      checkMetricPrefix(source.limits, prefix ?? '', 'prefix');
      // Sources list names from the start of a prefix only, so a later page reads the names before its cursor too.
      return page(await source.metricNames(prefix ?? ''), (name) => name, start, size);
    },
    async tagNames(_, args, ctx) {
      const keys = await seriesOf(
        ctx,
        ctx.source(args.source),
        args.metric,
        rangeArgs(ctx, args.from, args.to, DEFAULT_METADATA_WINDOW_MS),
        args.where,
      );
      return sortedUnique(keys.flatMap((key) => Object.keys(key.tags)));
    },
    async tagValues(_, args, ctx) {
      if (args.tag.length === 0) throw new InputError('tag', args.tag, 'must not be empty');
      const keys = await seriesOf(
        ctx,
        ctx.source(args.source),
        args.metric,
        rangeArgs(ctx, args.from, args.to, DEFAULT_METADATA_WINDOW_MS),
        args.where,
      );
      return sortedUnique(keys.flatMap((key) => (Object.hasOwn(key.tags, args.tag) ? [key.tags[args.tag]!] : [])));
    },
    async tagValuesPage(_, args, ctx) {
      const size = pageSizeArg(args.first);
      const start = cursorArg(args.after);
      if (args.tag.length === 0) throw new InputError('tag', args.tag, 'must not be empty');
      const keys = await seriesOf(
        ctx,
        ctx.source(args.source),
        args.metric,
        rangeArgs(ctx, args.from, args.to, DEFAULT_METADATA_WINDOW_MS),
        args.where,
      );
      return page(
        sortedUnique(keys.flatMap((key) => (Object.hasOwn(key.tags, args.tag) ? [key.tags[args.tag]!] : []))),
        (value) => value,
        start,
        size,
      );
    },
    async seriesKeys(_, args, ctx) {
      return uniqueSeriesKeys(
        await seriesOf(
          ctx,
          ctx.source(args.source),
          args.metric,
          rangeArgs(ctx, args.from, args.to, DEFAULT_METADATA_WINDOW_MS),
          args.where,
        ),
      );
    },
    async seriesKeysPage(_, args, ctx) {
      const size = pageSizeArg(args.first);
      const start = cursorArg(args.after);
      const keys = await seriesOf(
        ctx,
        ctx.source(args.source),
        args.metric,
        rangeArgs(ctx, args.from, args.to, DEFAULT_METADATA_WINDOW_MS),
        args.where,
      );
      return page(uniqueSeriesKeys(keys), seriesKeyId, start, size);
    },
    rawSeries: (_, args, ctx, info) => rawSeries(ctx, args, responsePath(info.path)),
    points: (_, args, ctx, info) => rawSeries(ctx, args, responsePath(info.path)),
    async series(_, args, ctx, info) {
      return aggregatedSeries(ctx, args, responsePath(info.path));
    },
    metadata(_, { service, source: name }, ctx) {
      const source = ctx.source(name);
      metadataFor(source, { service }, false);
      return { service, source };
    },
    async rows(_, args, ctx, info) {
      const series = await aggregatedSeries(ctx, args, responsePath(info.path));
      // Rendered whole (point-answers.ts); the execution schema types the list as one value.
      return seriesRows(series, info, ctx) as never;
    },
    rollups: (_, __, ctx) => listRollups(ctx),
  },

  Mutation: {
    async addPoints(_, { series, source: name }, ctx) {
      const source = ctx.source(name);
      const batch = withTagEntryFields(series, () =>
        validateWrite(
          series.map(seriesInput),
          'series',
          { maxPoints: ctx.config.maxWritePoints, keys: source.limits },
          (value, seriesPath, index) => timeArg(ctx, value as string | number, `${pointPath(seriesPath, index)}.time`),
        ),
      );
      await source.write(batch);
      ctx.loaders.clear();
      return { series: batch.series.length, points: batch.series.reduce((n, s) => n + s.timestamps.length, 0) };
    },
    async setMetadata(_, { service, serviceKey, key, value, source }, ctx) {
      const index = metadataFor(ctx.source(source), { service, serviceKey, key }, true);
      return { value, writtenMs: await index.set(service, serviceKey, key, value) };
    },
    async deleteMetadata(_, { service, serviceKey, key, source }, ctx) {
      await metadataFor(ctx.source(source), { service, serviceKey, key }, true).delete(service, serviceKey, key);
      return true;
    },
    async createRollup(_, { task }, ctx) {
      return storedRollup(ctx, (await createRollup(ctx, task)).id);
    },
    async updateRollup(_, { id, task }, ctx) {
      const updated = await updateRollup(ctx, id, task);
      return updated === undefined ? null : storedRollup(ctx, updated.id);
    },
    deleteRollup: (_, { id }, ctx) => deleteRollup(ctx, id),
    async deletePoints(_, args, ctx) {
      const source = ctx.source(args.source);
      const range = rangeArgs(ctx, args.from, args.to);
      const metric = validateMetricName(args.metric, 'metric', source.limits);
      const matches = wherePredicate(args.where);
      const { series, partitionsDeleted, rangesDeleted, warnings } = await deletePoints(
        source,
        ctx.loaders,
        metric,
        range,
        matches,
      );
      for (const warning of warnings) ctx.log.warn(warning);
      return { series, partitionsDeleted, rangesDeleted };
    },
  },

  RollupTask: {
    id: (t) => t.id,
    name: (t) => t.task?.name ?? null,
    executionInterval: (t) => t.task?.executionInterval ?? null,
    rollups: (t) => [...(t.task?.rollups ?? [])],
    json: (t) => t.json,
    lastModifiedMs: (t) => t.lastModifiedMs,
    error: (t) => t.error ?? null,
    status: (t, _, ctx) => rollupStatus(ctx, t),
  },
  Rollup: {
    saveAs: (r) => r.saveAs,
    metrics: (r) => r.queries.map((q) => q.metric),
  },
  RollupStatus: {
    completedThrough: (s) => s.completedThroughMs ?? null,
    pendingPeriods: (s) => s.pendingPeriods,
    failures: (s) => s.failures,
    retryAt: (s) => s.retryAtMs ?? null,
    lastRun: (s) => s.lastRun ?? null,
    lastSuccess: (s) => s.lastSuccess ?? null,
    skipped: (s) => s.skipped ?? null,
    heldBy: (s) => s.heldBy?.owner ?? null,
  },
  RollupRun: {
    periodStart: (r) => r.periodStartMs,
    periodEnd: (r) => r.periodEndMs,
    started: (r) => r.startedMs,
    finished: (r) => r.finishedMs,
    durationMs: (r) => r.durationMs,
    pointsWritten: (r) => r.pointsWritten,
    error: (r) => r.error ?? null,
    gateway: (r) => r.owner,
  },
  RollupSkip: {
    from: (s) => s.fromMs,
    to: (s) => s.toMs,
    periods: (s) => s.periods,
  },

  MetadataService: {
    service: (m) => m.service,
    serviceKeys: (m) => metadataFor(m.source, m, false).serviceKeys(m.service),
    keys: (m, { serviceKey, startsWith }) =>
      metadataFor(m.source, { service: m.service, serviceKey }, false).keys(m.service, serviceKey, startsWith ?? ''),
    async value(m, { serviceKey, key }) {
      return (
        (await metadataFor(m.source, { service: m.service, serviceKey, key }, false).value(
          m.service,
          serviceKey,
          key,
        )) ?? null
      );
    },
  },

  Subscription: {
    liveSeries: liveSeriesResolver,
  },

  LiveSeriesUpdate: {
    kind: (update) => update.kind,
    source: (update) => update.source,
    from: (update) => update.startMs,
    to: (update) => update.endMs,
    changes: (update) => [...update.changes],
    removed: (update) => [...update.removed],
  },

  LiveSeriesChange: {
    key: (change) => change.key,
    from: (change) => change.fromMs,
    series: (change) => ({ ...change.series, points: change.points }),
  },

  SeriesKey: {
    metric: (key) => key.metric,
    tags: (key) => Object.entries(key.tags).map(([name, value]) => ({ name, value })),
    tag: (key, { name }) => (Object.hasOwn(key.tags, name) ? key.tags[name]! : null),
    type: (key) => GRAPHQL_TYPE[key.kind],
  },

  Series: {
    name: (series) => series.name,
    metric: (series) => series.metric,
    tags: (series) => Object.entries(series.tags).map(([name, values]) => ({ name, values: [...values] })),
    tag: (series, { name }) => singleValue(series, name),
    varyingTags: (series) => Object.keys(series.tags).filter((name) => series.tags[name]!.length > 1),
    group: (series) => [...series.groupBy],
    sampleSize: (series) => series.sampleSize,
    // Rendered whole (point-answers.ts); the execution schema types the list as one value.
    points: (series, _, __, info) => pointRows(series.points, info) as never,
    columns: (series) => series.points,
  },

  PointColumns: {
    time: column,
    epochMs: column,
    value: column,
    long: column,
    text: column,
    imaginary: column,
    type: column,
  },

  GroupKey: {
    kind: (g) => GROUP_KIND[g.name],
    tags: (g) => (g.name === 'tag' ? Object.entries(g.group).map(([name, value]) => ({ name, value })) : null),
    groupNumber: (g) => (g.name === 'time' || g.name === 'value' ? g.group.group_number : null),
    binNumber: (g) => (g.name === 'bin' ? g.group.bin_number : null),
    valueType: (g) => (g.name === 'type' ? g.type : null),
  },

  // The fields of a row's series, completed once per series (point-answers.ts `seriesRows`); its point's fields are
  // Point's.
  Row: {
    name: (r) => r.series.name,
    metric: (r) => r.series.metric,
    tags: (r) =>
      Object.entries(r.series.tags).flatMap(([name, values]) =>
        values.length === 1 ? [{ name, value: values[0]! }] : [],
      ),
    tag: (r, { name }) => singleValue(r.series, name),
    group: (r) => [...r.series.groupBy],
  },
};

const API_TYPE: Record<GraphQLValueType, ValueType | undefined> = {
  LONG: 'long',
  DOUBLE: 'double',
  STRING: 'string',
  COMPLEX: undefined,
};

async function rawSeries(ctx: RequestContext, args: QueryRawSeriesArgs, label: string): Promise<SeriesModel[]> {
  const query: MetricQuery = {
    ...metricQueryBase(ctx, args),
    aggregators: [],
    groupBy: [{ name: 'series', params: {} }],
    timeZone: DEFAULT_TIME_ZONE,
  };
  const output = await withGraphQLFields({}, () => ctx.runQuery(query, label));
  return output.groups.map((group) => seriesModel(group, group.name));
}

/** One key per series (a series spans several row periods), in the order of their ids. */
function uniqueSeriesKeys(keys: readonly Partition[]): Partition[] {
  const unique = new Map<string, Partition>();
  for (const key of keys) unique.set(seriesKeyId(key), key);
  return [...unique.keys()].sort().map((id) => unique.get(id)!);
}

function seriesKeyId(key: Partition): string {
  return JSON.stringify([key.dataType, key.tags]);
}

/** The partitions of `metric` in `range` that pass `where`, from `source`, through the request's loaders. */
async function seriesOf(
  ctx: RequestContext,
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

function seriesInput(series: SeriesPointsInput, i: number): SeriesInput {
  const path = `series[${i}]`;
  const tags = dict<string>();
  series.tags.forEach((tag, k) => {
    if (Object.hasOwn(tags, tag.name)) throw new InputError(`${path}.tags[${k}].name`, tag.name, 'is given twice');
    tags[tag.name] = tag.value;
  });
  const gqlType = series.type ?? 'DOUBLE';
  const type = API_TYPE[gqlType];
  if (type === undefined)
    throw new InputError(`${path}.type`, gqlType, 'cannot be written: KairosDB ingests LONG, DOUBLE and STRING');
  return {
    metric: series.metric,
    tags,
    type,
    ...(series.ttl != null ? { ttlSeconds: series.ttl } : {}),
    points: series.points.map((p) => ({ timestamp: p.time, value: p.value })),
  };
}

/**
 * validateWrite reads tags as KairosDB's object of names to values: it names a bad value `series[0].tags.host` and
 * shows the tags as an object. GraphQL sent a list, so the error is about the entry of that name
 * (`series[0].tags[1].value`), and shows the list.
 */
function withTagEntryFields<T>(series: readonly SeriesPointsInput[], validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const tags = /^series\[(\d+)\]\.tags(?:\.(.+))?$/s.exec(error.field);
    const list = tags ? series[Number(tags[1])]?.tags : undefined;
    if (tags === null || list === undefined) throw error;
    if (tags[2] === undefined)
      throw typeof error.value === 'object' ? new InputError(error.field, list, error.reason) : error;
    const k = list.findIndex((entry) => entry.name === tags[2]);
    throw k < 0 ? error : new InputError(`series[${tags[1]}].tags[${k}].value`, error.value, error.reason);
  }
}

/**
 * Arguments every point query shares → the common part of the query model. Times and the limit are read here (the
 * engine sees epoch ms, and GraphQL caps the limit itself); the rest is validated by the engine, whose errors
 * `withGraphQLFields` renames.
 */
function metricQueryBase(
  ctx: RequestContext,
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
  const limit = positiveIntArg(args.limit, 'limit', ctx.config.maxQueryPoints);
  return {
    source,
    metric: args.metric,
    range,
    tags: tagFilterArg(args.where),
    ...(limit ? { limit } : {}),
    order: args.order === 'DESC' ? ('desc' as const) : ('asc' as const),
    excludeTags: false,
  };
}

async function aggregatedSeries(ctx: RequestContext, args: QuerySeriesArgs, label: string): Promise<SeriesModel[]> {
  return answerSeries(ctx, args, seriesQuery(ctx, args), label);
}

/** The query model of `series` (and `rows`, `liveSeries`): its arguments read, times resolved on the request's clock. */
export function seriesQuery(ctx: RequestContext, args: QuerySeriesArgs): MetricQuery {
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
  ctx: RequestContext,
  args: QuerySeriesArgs,
  query: MetricQuery,
  label: string,
): Promise<SeriesModel[]> {
  // Only the engine speaks in wire names; the conversion above already names GraphQL's arguments.
  const output = await withGraphQLFields(args, () =>
    args.useRollups ? runWithRollups(ctx, query, label) : ctx.runQuery(query, label),
  );
  const mode = (args.fill ?? 'NONE').toLowerCase() as FillMode;
  const filled = fillPoints(
    output.groups.map((g) => g.points),
    mode,
    query.order,
    ctx.budget,
  );
  return output.groups.map((group, i) => seriesModel(group, args.name ?? group.name, filled[i]!));
}

function seriesModel(group: GroupOutput, name: string, points: PointList = group.points): SeriesModel {
  return { name, metric: group.name, tags: group.tags, groupBy: group.groupBy, sampleSize: group.sampleSize, points };
}

/** `cpu` or `dashboard.cpu`: the field's place in the response, which names the query in statistics and logs. */
function responsePath(path: { prev: unknown; key: string | number } | undefined): string {
  const keys: (string | number)[] = [];
  for (let p = path; p; p = p.prev as typeof path) keys.unshift(p.key);
  return keys.join('.');
}

function singleValue(series: SeriesModel, name: string): string | null {
  const values = Object.hasOwn(series.tags, name) ? series.tags[name]! : [];
  return values.length === 1 ? values[0]! : null;
}

const GROUP_KIND = { tag: 'TAG', time: 'TIME', value: 'VALUE', bin: 'BIN', type: 'TYPE' } as const;

/** The columns of `PointColumns`, rendered whole (point-answers.ts). */
function column(points: PointList, _: unknown, __: RequestContext, info: GraphQLResolveInfo): never {
  // Typed as one value in the execution schema, as `Series.points` is; the generated types, made from the contract,
  // know each column's scalar instead of the serialized values it holds.
  return pointColumn(points, info) as never;
}

function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort();
}

/** A task as stored, just after this request wrote it. */
async function storedRollup(ctx: RequestContext, id: string): Promise<StoredTask> {
  const stored = await getRollup(ctx, id);
  if (stored === undefined) throw new Error(`the roll-up task ${id} was deleted as it was written`);
  return stored;
}
