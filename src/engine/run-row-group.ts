/**
 * Reading and aggregating a query's row groups: which partitions each reads over which times (all of the range, or
 * what the results cache does not answer), whether reads are split or started ahead, and the run of one row group
 * through its merge, pipeline and save_as writes.
 */
import type { SeriesPredicate } from '../model/tag-filter.js';
import type { ReadAheadBudget } from '../lib/queued-scan.js';
import type { Partition, Slice } from '../model/series.js';
import type { ReadOptions } from '../model/read-options.js';
import type { WriteBatch } from '../model/write-batch.js';
import type { BudgetTracker, QueryStats } from './budget.js';
import { mergeRuns, type MergeInput } from './merge.js';
import { ReadAhead } from './read-ahead.js';
import type { GroupOutput } from './output.js';
import {
  applicableAggregators,
  GroupRouter,
  isSeriesMajor,
  type PipelineSpec,
  type RowGroup,
  type SeriesEntry,
} from './pipeline.js';
import type { CachedQuery } from './cached-query.js';
import type { RowGroupBuckets } from './row-group-buckets.js';
import type { EngineContext } from './engine-context.js';

/** A query validated before any read (execute.ts compileQuery): its pipeline, its range and its series filter. */
export interface CompiledQuery {
  readonly pipeline: PipelineSpec;
  readonly startMs: number;
  readonly endMs: number;
  readonly matches: SeriesPredicate;
}

export interface RowGroupRun {
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

export function planRowGroup(rowGroup: RowGroup, run: RowGroupRun): PlannedRowGroup {
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
export function splitOf(planned: readonly PlannedRowGroup[], ctx: EngineContext): number {
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
export function readAheadOf(planned: readonly PlannedRowGroup[], run: RowGroupRun): QueryReadAhead | undefined {
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

export async function runRowGroup(
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
export async function* counted(
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
