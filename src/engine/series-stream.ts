/**
 * A metric's series read one after another, each as a stream of its slices in time order: the read of a series-major
 * row group (run-row-group.ts) with no pipeline after it, for callers that evaluate points themselves (PromQL's
 * selectors). The same calls as executeQuery: the source's findSeries through the request's loaders, seriesOf's
 * canonical series, the query's series budget, each series' partitions merged in time order by mergeRuns behind the
 * budget's gate, on the request's lane, with the statistics' counts, and the same reads ahead on sources whose reads
 * wait. A series' slices are read only when its stream is (or started ahead, within the request's read-ahead budget),
 * and the merge waits for the reader to take each run, so nothing else is held but the run being taken.
 */
import type { TimeRange } from '../model/query.js';
import type { Slice, Tags } from '../model/series.js';
import type { SeriesPredicate } from '../model/tag-filter.js';
import type { GroupType } from './aggregators/aggregator.js';
import type { BudgetTracker } from './budget.js';
import type { EngineContext } from './engine-context.js';
import { mergeRuns, type MergeInput } from './merge.js';
import type { SeriesEntry } from './pipeline.js';
import { sliceRange } from './points.js';
import { seriesOf } from './row-groups.js';
import { counted } from './run-row-group.js';
import { DEFAULT_READ_AHEAD_POINTS, ReadAhead } from './read-ahead.js';
import { ReadAheadBudget } from '../lib/queued-scan.js';
import type { Partition } from '../model/series.js';

export interface StreamedSeries {
  readonly tags: Tags;
  /** `number` for long and double values (both kinds, and KairosDB's legacy rows, are one series), else text or complex. */
  readonly type: GroupType;
  /** The series' slices in [startMs, endMs], in time order; read before the next series is asked for. */
  readonly slices: AsyncIterable<Slice>;
}

/**
 * The series of `metric` whose tags pass `matches`, in the canonical order (type, then KairosDB's tag string), at
 * most the query's series budget of them. `warnings` receives the source's (partitions it could not decode).
 * `readAhead` names the series the reader will read: their partitions are started ahead of the one read, as a
 * series-major row group's are (read-ahead.ts), on a source whose reads wait on the network; none when absent.
 */
export async function* streamSeries(
  metric: string,
  range: TimeRange,
  matches: SeriesPredicate,
  ctx: EngineContext,
  tracker: BudgetTracker,
  warnings: string[],
  readAhead?: (type: GroupType) => boolean,
): AsyncGenerator<StreamedSeries> {
  const planStarted = performance.now();
  const plan = await ctx.source.findSeries(
    ctx.index,
    metric,
    range,
    matches,
    ctx.lane !== undefined ? { lane: ctx.lane } : {},
  );
  ctx.stats.rowTimes += plan.periods;
  ctx.stats.planMs += performance.now() - planStarted;
  warnings.push(...plan.warnings);
  ctx.signal?.throwIfAborted();
  const found = seriesOf(plan.partitions);
  const series = found.slice(0, tracker.admitSeries(found.length));
  ctx.stats.seriesMatched += series.length;
  const yielded = new Set<Partition>();
  const ahead =
    readAhead === undefined
      ? undefined
      : readAheadOf(
          series.filter((e) => readAhead(e.type)),
          range,
          ctx,
        );
  try {
    for (const entry of series) {
      ctx.signal?.throwIfAborted();
      const scan = (key: Partition) => {
        const k = ahead?.position.get(key);
        return k === undefined
          ? ctx.source.read(key, range.startMs, range.endMs, readOptions(ctx))
          : ahead!.reads.open(k);
      };
      yield {
        tags: entry.tags,
        type: entry.type,
        slices: { [Symbol.asyncIterator]: () => mergedSlices(entry, plan.widthMs, ctx, tracker, yielded, scan) },
      };
    }
  } finally {
    await ahead?.reads.close();
  }
}

/** The scans of `series`' partitions in the order they are read, started ahead; undefined where reads never wait. */
function readAheadOf(series: readonly SeriesEntry[], range: TimeRange, ctx: EngineContext) {
  const depth = ctx.readAhead ?? ctx.source.readAhead;
  const order = series.flatMap((entry) => entry.partitions);
  if (depth === 0 || order.length === 0) return undefined;
  const options = readOptions(ctx);
  return {
    reads: new ReadAhead(
      order.map((key) => () => ctx.source.read(key, range.startMs, range.endMs, options)),
      depth,
      ctx.readAheadBudget ?? new ReadAheadBudget(DEFAULT_READ_AHEAD_POINTS),
    ),
    position: new Map(order.map((key, k) => [key, k])),
  };
}

function readOptions(ctx: EngineContext) {
  return {
    order: 'asc' as const,
    ...(ctx.pageSize !== undefined ? { pageSize: ctx.pageSize } : {}),
    ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
  };
}

/**
 * One series' partitions merged in time order (several partitions of one period are its data types), handed out run
 * by run: the merge pushes runs, the reader pulls them, and the merge waits for each to be taken before it goes on.
 * A reader that stops early stops the merge, which closes its scans.
 */
async function* mergedSlices(
  entry: SeriesEntry,
  widthMs: number,
  ctx: EngineContext,
  tracker: BudgetTracker,
  yielded: Set<Partition>,
  scan: (key: Partition) => AsyncIterable<Slice>,
): AsyncGenerator<Slice> {
  const inputs: MergeInput[] = entry.partitions.map((key) => ({
    open: () => counted(scan(key), key, entry, ctx.stats, yielded),
    fromMs: key.rowTime,
    toMs: key.rowTime + widthMs,
    rank: entry.rank,
  }));
  let stopped = false;
  let pending: Slice | undefined;
  let taken: (() => void) | undefined;
  let arrived: (() => void) | undefined;
  let settled = false;
  let failure: unknown;
  const merging = mergeRuns(
    inputs,
    'asc',
    (slice, from, to) => {
      if (stopped) return false;
      pending = from === 0 && to === slice.timestamps.length ? slice : sliceRange(slice, from, to);
      arrived?.();
      return new Promise<void>((resolve) => {
        taken = resolve;
      });
    },
    {
      gate: (slice) => (stopped ? undefined : tracker.gate(slice)),
      concurrency: ctx.concurrency ?? ctx.source.concurrentReads,
      ...(ctx.lane !== undefined ? { lane: ctx.lane } : {}),
    },
  ).then(
    () => {
      settled = true;
      arrived?.();
    },
    (error: unknown) => {
      settled = true;
      failure = error;
      arrived?.();
    },
  );
  try {
    for (;;) {
      if (pending !== undefined) {
        const slice = pending;
        pending = undefined;
        yield slice;
        const resume = taken;
        taken = undefined;
        resume?.();
        continue;
      }
      if (settled) {
        if (failure !== undefined) throw failure;
        return;
      }
      await new Promise<void>((resolve) => {
        arrived = resolve;
      });
      arrived = undefined;
    }
  } finally {
    stopped = true;
    taken?.();
    await merging;
  }
}
