/**
 * The one read path: executeQuery validates a metric query (aggregators and group-bys through their registries,
 * zone, limit), asks the query's source for its series through the request's loaders, reads the partitions, groups,
 * aggregates, and answers in KairosDB's shape. GraphQL and the REST facade both call it; neither reads a source
 * itself, and it knows no layout: everything it reads comes through the Source seam (src/sources/source.ts).
 */
import { dictOf } from '../lib/dict.js';
import { isEpochMs } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import type { IndexLoaders } from '../sources/index-loaders.js';
import type { MetricQuery } from '../model/query.js';
import { compileTagFilter, type SeriesPredicate } from '../model/tag-filter.js';
import { ReadAheadBudget } from '../lib/queued-scan.js';
import { encodeTagString } from '../model/tag-string.js';
import { validateMetricName } from '../sources/write-validation.js';
import type { Partition, PartitionKind, Slice } from '../model/series.js';
import type { ReadOptions } from '../model/read-options.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { WriteBatch } from '../model/write-batch.js';
import type { Source } from '../sources/source.js';
import type { GroupType } from './aggregators/aggregator.js';
import { compileAggregators } from './aggregators/registry.js';
import { BudgetTracker, type Budgets, type QueryStats, type RequestBudget } from './budget.js';
import type { GroupBys } from './group-by/group-by.js';
import { compileGroupBys } from './group-by/registry.js';
import { mergeRuns, type MergeInput } from './merge.js';
import { DEFAULT_READ_AHEAD_POINTS, ReadAhead } from './read-ahead.js';
import { compareStrings } from './points.js';
import type { GroupOutput, QueryOutput } from './output.js';
import { readInteger, readZone } from './params.js';
import {
  applicableAggregators,
  GroupRouter,
  isSeriesMajor,
  type PipelineSpec,
  type RowGroup,
  type SeriesEntry,
} from './pipeline.js';
import { CachedQuery } from './cached-query.js';
import type { BucketCache } from './bucket-cache.js';
import type { RowGroupBuckets } from './row-group-buckets.js';
import { yieldIfDue, type Lane } from '../lib/time-slice.js';

export type { Budgets, QueryStats } from './budget.js';
export { newQueryStats, RequestBudget, unlimitedRequest } from './budget.js';
export type { GroupOutput, QueryOutput } from './output.js';
export type { GroupByResult } from './group-by/group-by.js';
export type { BucketCache, CachedExtent } from './bucket-cache.js';

export interface EngineContext {
  /** Where the query's series live (the request resolved the query's `source`); save_as writes there too. */
  readonly source: Source;
  /** The request's index loaders. */
  readonly index: IndexLoaders;
  readonly budgets: Budgets;
  /** What the whole request may still spend; shared by every query of the request. */
  readonly request: RequestBudget;
  /** Filled by the engine: series matched, partitions and points read, points returned, scans, ms per phase. */
  readonly stats: QueryStats;
  /** The request's clock: gaps mark empty ranges up to min(end, now). */
  readonly nowMs: number;
  readonly signal?: AbortSignal;
  /** The request's lane for turns on the thread (lib/time-slice.ts); work outside a request shares one. */
  readonly lane?: Lane;
  /** Points per scanned page (tests use 1 to show answers do not depend on it). */
  readonly pageSize?: number;
  /** First reads a merge keeps in flight when it reaches several partitions at once (default: the source's concurrentReads). */
  readonly concurrency?: number;
  /** Partition scans started ahead of the one read, when series are read one after another (default: the source's). */
  readonly readAhead?: number;
  /**
   * Points the request may hold read ahead of its queries, shared by all of them (read-ahead.ts); a query without one
   * gets one of its own of DEFAULT_READ_AHEAD_POINTS.
   */
  readonly readAheadBudget?: ReadAheadBudget;
  /**
   * The results cache: complete ranges of qualifying pipelines are taken from it and kept in it, and only the rest is
   * read from the store. Answers are the same with it and without it (bucket-cache.ts says which pipelines qualify).
   */
  readonly cache?: BucketCache;
}

export async function executeQuery(query: MetricQuery, ctx: EngineContext): Promise<QueryOutput> {
  // A request of many queries starts them together; each takes its turn, or their set-up alone holds the thread.
  await yieldIfDue(ctx.lane);
  const planStarted = performance.now();
  const compiled = compileQuery(query, ctx.nowMs, ctx.source.limits);
  const plan = await ctx.source.findSeries(
    ctx.index,
    compiled.pipeline.metric,
    query.range,
    compiled.matches,
    ctx.lane !== undefined ? { lane: ctx.lane } : {},
  );
  const widthMs = plan.widthMs;
  ctx.stats.rowTimes += plan.periods;
  ctx.stats.planMs += performance.now() - planStarted;
  await yieldIfDue(ctx.lane);
  ctx.signal?.throwIfAborted();

  const runStarted = performance.now();
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
    ctx.stats.fetchAggregateMs += performance.now() - runStarted;
  }
}

interface CompiledQuery {
  readonly pipeline: PipelineSpec;
  readonly startMs: number;
  readonly endMs: number;
  readonly matches: SeriesPredicate;
}

/** Validates everything about a query that can be known before reading, so a bad query costs no store call. */
function compileQuery(query: MetricQuery, nowMs: number, limits: KeyLimits): CompiledQuery {
  const metric = validateMetricName(query.metric, 'metric', limits);
  const { startMs, endMs } = query.range;
  if (!isEpochMs(startMs) || !isEpochMs(endMs) || endMs < startMs) {
    throw new InputError(
      'range',
      query.range,
      'must have startMs and endMs in whole epoch ms within ±8.64e15, endMs not before startMs',
    );
  }
  // UTC unless the query names a zone: KairosDB would use the JVM's zone (DEFAULT_TIME_ZONE in the query model).
  const zone = readZone(query.timeZone, 'time_zone');
  const limit = query.limit === undefined ? 0 : readInteger(query.limit, 'limit', 0);
  if (query.order !== 'asc' && query.order !== 'desc')
    throw new InputError('order', query.order, 'must be asc or desc');
  const matches = compileTagFilter(query.tags, 'tags');
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

/** The planned partitions as series (type group + tag set), in canonical order: type, then KairosDB tag string. */
function seriesOf(partitions: readonly Partition[]): SeriesEntry[] {
  const byId = new Map<string, { type: GroupType; tagString: string; keys: Partition[] }>();
  for (const key of partitions) {
    const type = groupTypeOf(key.kind);
    const tagString = encodeTagString(key.tags);
    const id = `${type}\u0000${tagString}`;
    const entry = byId.get(id);
    if (entry) entry.keys.push(key);
    else byId.set(id, { type, tagString, keys: [key] });
  }
  return [...byId.values()]
    .sort((a, b) => compareStrings(a.type, b.type) || compareStrings(a.tagString, b.tagString))
    .map((entry, rank) => ({
      rank,
      type: entry.type,
      tags: entry.keys[0]!.tags,
      tagString: entry.tagString,
      partitions: entry.keys.sort((a, b) => a.rowTime - b.rowTime || compareStrings(a.dataType, b.dataType)),
      seen: false,
    }));
}

/**
 * KairosDB groups rows by type first (sorted: complex, number, text), then by the tag group-by, whose groups sort by
 * the concatenated names and values of their tags (`getTagsKey`); a missing tag counts as ''.
 */
function rowGroupsOf(series: readonly SeriesEntry[], groupBys: GroupBys): RowGroup[] {
  if (groupBys.series) return storedSeriesGroups(series);
  const names = groupBys.tags ?? [];
  const groups = new Map<
    string,
    { type: GroupType; tagGroup: Record<string, string>; sortKey: string; series: SeriesEntry[] }
  >();
  for (const s of series) {
    const values = names.map((name) => (Object.hasOwn(s.tags, name) ? s.tags[name]! : ''));
    // The key string has no separators, so distinct groups can share one; the id keeps them apart.
    const id = JSON.stringify([s.type, values]);
    let group = groups.get(id);
    if (group === undefined) {
      const tagGroup = dictOf(names.map((name, i) => [name, values[i]!]));
      const sortKey = names.map((name, i) => name + values[i]!).join('');
      groups.set(id, (group = { type: s.type, tagGroup, sortKey, series: [] }));
    }
    group.series.push(s);
  }
  return [...groups.entries()]
    .sort(
      ([idA, a], [idB, b]) =>
        compareStrings(a.type, b.type) || compareStrings(a.sortKey, b.sortKey) || compareStrings(idA, idB),
    )
    .map(([, g]) => ({
      type: g.type,
      tagGroup: groupBys.tags === undefined ? undefined : g.tagGroup,
      series: g.series,
    }));
}

/**
 * The internal `series` group-by: one group per stored tag set, sorted by KairosDB's tag string, its data types
 * merged as GraphQL's per-series view always showed them. A tag set stored as text and as numbers is a text group
 * (so number-only aggregators pass it through untouched, as KairosDB does for text).
 */
function storedSeriesGroups(series: readonly SeriesEntry[]): RowGroup[] {
  const byTags = new Map<string, SeriesEntry[]>();
  for (const s of series) {
    const same = byTags.get(s.tagString);
    if (same) same.push(s);
    else byTags.set(s.tagString, [s]);
  }
  return [...byTags.keys()].sort(compareStrings).map((tagString) => {
    const members = byTags.get(tagString)!;
    const types = new Set(members.map((s) => s.type));
    const type: GroupType = types.has('text') ? 'text' : types.has('complex') ? 'complex' : 'number';
    return { type, tagGroup: undefined, series: members };
  });
}

interface RowGroupRun {
  readonly compiled: CompiledQuery;
  readonly ctx: EngineContext;
  readonly tracker: BudgetTracker;
  readonly widthMs: number;
  /** The query's use of the results cache, when its pipeline qualifies. */
  readonly cached: CachedQuery | undefined;
  /** Partitions that yielded points: one partition can be scanned once per uncached part of the range. */
  readonly yielded: Set<Partition>;
  /** Parts each read is split into (ScanOptions.split). */
  split: number;
  /** What the query's reads ahead may hold: the request's, or one of the query's own. */
  readonly readAheadBudget: ReadAheadBudget;
}

/** One scan: a partition between two times (inclusive). */
interface Read {
  readonly key: Partition;
  readonly fromMs: number;
  readonly toMs: number;
}

/** A row group with its reads decided before any row group runs, so that reads can start ahead across groups. */
interface PlannedRowGroup {
  readonly rowGroup: RowGroup;
  /** Its use of the results cache, when its pipeline qualifies. */
  readonly buckets: RowGroupBuckets | undefined;
  /** Its series' reads: every partition over the query's range, or over each part the cache does not answer. */
  readonly reads: ReadonlyMap<SeriesEntry, readonly Read[]>;
  /** Series are fed one after another (GroupRouter.seriesMajor), each whole before the next. */
  readonly seriesMajor: boolean;
}

function planRowGroup(rowGroup: RowGroup, run: RowGroupRun): PlannedRowGroup {
  const { compiled, widthMs } = run;
  const { pipeline, startMs, endMs } = compiled;
  const buckets = run.cached?.rowGroup(rowGroup, applicableAggregators(pipeline.aggregators, rowGroup.type)[0]);
  const readsOf = (s: SeriesEntry): Read[] =>
    buckets === undefined
      ? s.partitions.map((key) => ({ key, fromMs: startMs, toMs: endMs }))
      : s.partitions.flatMap((key) =>
          buckets.live
            .filter(([a, b]) => a < key.rowTime + widthMs && b >= key.rowTime)
            .map(([a, b]) => ({ key, fromMs: a, toMs: b })),
        );
  return {
    rowGroup,
    buckets,
    reads: new Map(rowGroup.series.map((s) => [s, readsOf(s)])),
    seriesMajor: isSeriesMajor(pipeline, rowGroup.type),
  };
}

/**
 * A query of fewer reads than the read-ahead depth leaves the depth unused: each read is then split into parts read at
 * once (ScanOptions.split), so that reads × parts stays within the depth, and so within its memory. One series read
 * alone goes from one Cassandra request in flight to several.
 */
function splitOf(planned: readonly PlannedRowGroup[], ctx: EngineContext): number {
  const depth = ctx.readAhead ?? ctx.source.readAhead;
  let reads = 0;
  for (const p of planned) for (const r of p.reads.values()) reads += r.length;
  return reads === 0 ? 1 : Math.max(1, Math.min(MAX_SPLIT, Math.floor(depth / reads)));
}

/** The most parts one read is split into. */
const MAX_SPLIT = 4;

/** The query's series-major reads in the order the engine takes them, row group after row group. */
interface QueryReadAhead {
  readonly reads: ReadAhead;
  readonly position: ReadonlyMap<Read, number>;
}

/**
 * One read-ahead over the whole query: a query grouped by host reads one series per row group, and a read-ahead per
 * row group would start nothing early. Undefined where the store's reads never wait (or the context says 0).
 */
function readAheadOf(planned: readonly PlannedRowGroup[], run: RowGroupRun): QueryReadAhead | undefined {
  const { ctx } = run;
  const depth = ctx.readAhead ?? ctx.source.readAhead;
  if (depth === 0) return undefined;
  const order = planned.filter((p) => p.seriesMajor).flatMap((p) => p.rowGroup.series.flatMap((s) => p.reads.get(s)!));
  if (order.length === 0) return undefined;
  const options = scanOptionsOf('asc', 0, run);
  return {
    reads: new ReadAhead(
      order.map((read) => () => ctx.source.read(read.key, read.fromMs, read.toMs, options)),
      depth,
      run.readAheadBudget,
    ),
    position: new Map(order.map((read, k) => [read, k])),
  };
}

function scanOptionsOf(
  order: 'asc' | 'desc',
  limit: number,
  { ctx, split, readAheadBudget }: RowGroupRun,
): ReadOptions {
  return {
    order,
    ...(limit > 0 ? { limit } : {}),
    ...(split > 1 ? { split, readAhead: readAheadBudget } : {}),
    ...(ctx.pageSize !== undefined ? { pageSize: ctx.pageSize } : {}),
    ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
  };
}

async function runRowGroup(
  planned: PlannedRowGroup,
  run: RowGroupRun,
  ahead: QueryReadAhead | undefined,
): Promise<GroupOutput[]> {
  const { compiled, ctx, tracker, widthMs } = run;
  const { pipeline } = compiled;
  const { rowGroup, buckets, reads } = planned;
  const saves: WriteBatch[] = [];
  const router = new GroupRouter(rowGroup, pipeline, tracker, saves, buckets?.tap);
  buckets?.begin(router, tracker, ctx.stats);
  // KairosDB pushes the limit into every partition read; that is exact only while no group-by splits points (and
  // a limit is never series-major).
  const scanLimit = pipeline.limit > 0 && pipeline.groupBys.points.length === 0 ? pipeline.limit : 0;
  const scanOptions = scanOptionsOf(router.seriesMajor ? 'asc' : pipeline.order, scanLimit, run);
  /** `scan` starts the read of the partition; the default starts it when the merge reaches it. */
  const inputsOf = (
    series: readonly SeriesEntry[],
    scan = (read: Read) => ctx.source.read(read.key, read.fromMs, read.toMs, scanOptions),
  ): MergeInput[] =>
    series.flatMap((s) =>
      reads.get(s)!.map((read) => ({
        open: () => counted(scan(read), read.key, s, ctx.stats, run.yielded),
        fromMs: read.key.rowTime,
        toMs: read.key.rowTime + widthMs,
        rank: s.rank,
      })),
    );
  const onRun = (slice: Slice, from: number, to: number, rank: number) => router.run(slice, from, to, rank);
  const options = {
    gate: tracker.gate,
    concurrency: ctx.concurrency ?? ctx.source.concurrentReads,
    ...(ctx.lane !== undefined ? { lane: ctx.lane } : {}),
  };
  if (router.seriesMajor) {
    // Series one after another: the partitions are read in a known order, so the next ones were started early.
    for (const series of rowGroup.series) {
      ctx.signal?.throwIfAborted();
      const inputs =
        ahead === undefined
          ? inputsOf([series])
          : inputsOf([series], (read) => ahead.reads.open(ahead.position.get(read)!));
      if (!(await mergeRuns(inputs, 'asc', onRun, options))) break;
    }
  } else {
    await mergeRuns(inputsOf(rowGroup.series), pipeline.order, onRun, options);
  }
  let outputs = router.finish();
  // Only a whole answer is kept (a truncated one stops mid-range; truncation never uses the cache anyway).
  if (!tracker.stopped) buckets?.finish();
  if (outputs.length === 0 && pipeline.groupBys.series && pipeline.groupBys.points.length === 0 && !tracker.stopped)
    outputs = [router.emptyGroup()];
  for (const batch of saves) await ctx.source.write(batch);
  return outputs;
}

/** Counts scans and partitions that yielded points, and marks the series as having points. */
async function* counted(
  scan: AsyncIterable<Slice>,
  key: Partition,
  series: SeriesEntry,
  stats: QueryStats,
  yielded: Set<Partition>,
): AsyncGenerator<Slice> {
  stats.scans++;
  let empty = true;
  for await (const slice of scan) {
    if (empty && slice.timestamps.length > 0) {
      empty = false;
      if (!yielded.has(key)) stats.partitionsRead++;
      yielded.add(key);
      series.seen = true;
    }
    yield slice;
  }
}

function groupTypeOf(kind: PartitionKind): GroupType {
  return kind === 'string' ? 'text' : kind === 'complex' ? 'complex' : 'number';
}
