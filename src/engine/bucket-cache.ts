/**
 * The engine's side of the results cache: which row groups' ranges may be kept, which ranges of a query a cache
 * already holds (looked up by extent), which are read from the store instead, and the tap that joins both in front
 * of the rest of the pipeline and keeps the complete ranges it just read. The cache itself (memory, eviction,
 * invalidation) is src/sharing/results-cache.ts; why each rule holds is in docs/architecture.md#the-results-cache.
 */
import { createHash } from 'node:crypto';
import type { MetricQuery } from '../model/query.js';
import { metricScope } from '../sources/metric-scope.js';
import type { BucketObserver } from './aggregators/aggregator.js';
import type { CompiledAggregator } from './aggregators/registry.js';
import type { Budgets, BudgetTracker, QueryStats } from './budget.js';
import type { GroupRouter, BucketTap, PipelineSpec, RowGroup } from './pipeline.js';
import type { PointKind } from './point-list.js';
import type { Extra, PointSink } from './points.js';
import { RangeGrid } from './range-grid.js';
import { fixedLengthMs } from '../model/time-units.js';

/**
 * The ranges ("buckets") of one row group that a cache holds for one extent: every range [lo, hi) of the grid inside
 * [fromMs, toMs), complete when it was read. Ranges without points have no entry in the columns.
 */
export interface CachedExtent {
  readonly fromMs: number;
  readonly toMs: number;
  /** Wall-clock time (epoch ms) before the oldest of its ranges was read from the store: its age counts from here. */
  readonly readAtMs: number;
  /** Start of each range with points, ascending; its raw points; where its output points begin (one more entry). */
  readonly starts: Float64Array;
  readonly counts: Float64Array;
  readonly firstOutput: Uint32Array;
  /** The range aggregator's output points, range after range, each range's points in the order it emitted them. */
  readonly ts: Float64Array;
  readonly nums: Float64Array;
  readonly kinds: readonly PointKind[];
  readonly extras: readonly Extra[];
  /** Series that had points, by KairosDB tag string: pairs [first, last] of range starts, every range between holding points of it. */
  readonly series: ReadonlyMap<string, Float64Array>;
  /** Its approximate size in memory, for the cache's byte bound. */
  readonly bytes: number;
}

/** What the engine needs of a results cache (src/sharing/results-cache.ts). */
export interface BucketCache {
  /** Ranges that end later than this before the request's clock are never kept. */
  readonly freshnessMs: number;
  /**
   * Wall-clock now (epoch ms): entries age from when they were read, and no range ending within the freshness window
   * of it is kept, whatever the request's clock says (the cache's invalidation rule counts on it).
   */
  now(): number;
  /**
   * The cache generation of a metric of a source (`scope`: sources/source.ts `metricScope`): in every key, so nothing
   * read before a write through this gateway that may have changed it is found after it.
   */
  generation(scope: string): number;
  get(key: string): CachedExtent | undefined;
  /** Keys begin with the scope and U+0000. */
  put(key: string, scope: string, extent: CachedExtent): void;
  /** Ranges answered from the cache and ranges it could keep that were read (for /metrics). */
  counted(hits: number, misses: number): void;
}

const DAY_MS = 86_400_000;
/** Beyond this many extents per row group (27 years of days) a query reads everything: lookups would cost more than they save. */
const MAX_EXTENTS = 10_000;

/**
 * One query's use of the cache. Only pipelines whose buckets are final on their own qualify: no limit (it keeps the
 * first points of the merged stream, so a range's points depend on everything before it), no time/value/bin
 * group-by (the groups, and their order, follow points across the whole range), no save_as (a cached answer would
 * skip its write), and budgets that fail rather than truncate (a truncation falls mid-range at a point no cached
 * range can reproduce). Each row group then qualifies on its own: see `rowGroup`.
 */
export class CachedQuery {
  private readonly hash: string;
  /** The source and metric (`metricScope`): two sources' metrics of one name are different entries. */
  private readonly scope: string;
  private readonly generation: number;
  private readonly readAtMs: number;

  private constructor(
    private readonly cache: BucketCache,
    source: string,
    query: MetricQuery,
    private readonly pipeline: PipelineSpec,
    private readonly startMs: number,
    private readonly endMs: number,
    private readonly nowMs: number,
  ) {
    // Everything that shapes an answer but the time range (alias and exclude_tags only change how it is labelled).
    const canonical = JSON.stringify(
      [pipeline.metric, query.tags, query.aggregators, query.groupBy, query.timeZone, query.order],
      (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v),
    );
    this.hash = createHash('sha256').update(canonical).digest('base64url');
    this.scope = metricScope(source, pipeline.metric);
    this.generation = cache.generation(this.scope);
    this.readAtMs = cache.now();
  }

  static of(
    cache: BucketCache | undefined,
    source: string,
    query: MetricQuery,
    pipeline: PipelineSpec,
    budgets: Budgets,
    startMs: number,
    endMs: number,
    nowMs: number,
  ): CachedQuery | undefined {
    if (cache === undefined || budgets.onExceed !== 'error') return undefined;
    if (pipeline.limit !== 0 || pipeline.groupBys.points.length > 0 || pipeline.groupBys.series) return undefined;
    if (pipeline.aggregators.some((a) => a.definition.name === 'save_as')) return undefined;
    return new CachedQuery(cache, source, query, pipeline, startMs, endMs, nowMs);
  }

  /**
   * The row group's cached and uncached ranges, or undefined when it reads everything as before. It qualifies when
   * the first aggregator that applies to its type is a range aggregator read series after series (every range
   * aggregator but gaps: their ranges are final once all their points are in, whatever the order) whose ranges do
   * not move with the query's start (align_sampling, or a start_time), and the query covers at least one whole range
   * that ended `freshnessMs` before the request's clock.
   */
  rowGroup(rowGroup: RowGroup, first: CompiledAggregator | undefined): RowGroupBuckets | undefined {
    const range = first?.stage.range;
    if (range === undefined || !first!.stage.orderFree || range.anchoredAtQueryStart) return undefined;
    const grid = new RangeGrid(range.anchorMs, range.sampling, range.zone);
    const fixedMs = fixedLengthMs(range.sampling, range.zone);
    const endExclusive = this.endMs + 1;
    const spanFrom = boundaryAtOrAfter(grid, this.startMs);
    const spanTo = boundaryAtOrBefore(
      grid,
      Math.min(endExclusive, Math.min(this.nowMs, this.readAtMs) - this.cache.freshnessMs),
    );
    if (!(Number.isFinite(spanFrom) && Number.isFinite(spanTo) && spanTo > spanFrom)) return undefined;
    const extents = extentsOf(grid, fixedMs, spanFrom, spanTo);
    if (extents === undefined) return undefined;
    // A fixed grid is the same for every anchor of the same phase; a calendar grid only for the same anchor.
    const phase =
      fixedMs === undefined ? `@${range.anchorMs}` : `${fixedMs}+${((range.anchorMs % fixedMs) + fixedMs) % fixedMs}`;
    const gridKey = `${range.sampling.value} ${range.sampling.unit} ${range.zone.name} ${phase}`;
    const group = JSON.stringify([
      rowGroup.type,
      rowGroup.tagGroup === undefined ? null : Object.entries(rowGroup.tagGroup),
    ]);
    const base = [this.scope, this.generation, this.hash, gridKey, group].join('\u0000');

    const hits: Hit[] = [];
    const misses: Miss[] = [];
    for (const extent of extents) {
      const key = `${base}\u0000${extent.id}`;
      const entry = this.cache.get(key);
      const { from, to } = extent;
      if (entry === undefined || entry.fromMs >= to || entry.toMs <= from) {
        // Extents are replaced, never holed: an entry next to what is needed grows, one apart from it is dropped.
        const kept = entry !== undefined && entry.fromMs <= to && entry.toMs >= from ? entry : undefined;
        misses.push({ key, from, to, kept });
        continue;
      }
      hits.push({ entry, from: Math.max(from, entry.fromMs), to: Math.min(to, entry.toMs) });
      if (entry.fromMs > from || entry.toMs < to) misses.push({ key, from, to, kept: entry });
    }
    return new RowGroupBuckets(
      this.cache,
      this.scope,
      grid,
      this.pipeline,
      rowGroup,
      this.startMs,
      endExclusive,
      this.readAtMs,
      hits,
      misses,
    );
  }
}

/** A part of an extent answered from its entry. */
interface Hit {
  readonly entry: CachedExtent;
  readonly from: number;
  readonly to: number;
}

/** An extent whose needed ranges [from, to) are not all in its entry; `kept` is an entry the new one grows from. */
interface Miss {
  readonly key: string;
  readonly from: number;
  readonly to: number;
  readonly kept: CachedExtent | undefined;
}

/** One row group's ranges: those the cache answers, the times read from the store, and what gets kept afterwards. */
export class RowGroupBuckets {
  /** Inclusive [start, end] times to scan: the query's range but the cached parts. */
  readonly live: readonly (readonly [number, number])[];
  private tapped: Tap | undefined;
  private readonly hitRanges: number;
  private readonly missRanges: number;

  constructor(
    private readonly cache: BucketCache,
    private readonly scope: string,
    grid: RangeGrid,
    private readonly pipeline: PipelineSpec,
    private readonly rowGroup: RowGroup,
    startMs: number,
    endExclusive: number,
    private readonly readAtMs: number,
    private readonly hits: readonly Hit[],
    private readonly misses: readonly Miss[],
  ) {
    const live: [number, number][] = [];
    let from = startMs;
    for (const hit of hits) {
      if (hit.from > from) live.push([from, hit.from - 1]);
      from = hit.to;
    }
    if (endExclusive > from) live.push([from, endExclusive - 1]);
    this.live = live;
    this.hitRanges = hits.reduce((n, h) => n + rangesBetween(grid, h.from, h.to), 0);
    // What is missing of each extent: the needed ranges less the part its entry answered.
    this.missRanges = misses.reduce((n, m) => {
      const from = m.kept === undefined ? 0 : Math.max(m.from, m.kept.fromMs);
      const to = m.kept === undefined ? 0 : Math.min(m.to, m.kept.toMs);
      return n + rangesBetween(grid, m.from, m.to) - (to > from ? rangesBetween(grid, from, to) : 0);
    }, 0);
  }

  /** Builds the tap behind the row group's first stage (GroupRouter calls it when the group is made). */
  readonly tap = (rest: PointSink): BucketTap =>
    (this.tapped = new Tap(rest, this.hits, this.pipeline.order === 'asc'));

  /**
   * Before any point is read: the cached ranges' raw points count as read for the budgets and the sample size, make
   * the group exist, and lend their series' tags to it, as reading them would have.
   */
  begin(router: GroupRouter, tracker: BudgetTracker, stats: QueryStats): void {
    let points = 0;
    for (const hit of this.hits) {
      const { starts, counts } = hit.entry;
      for (let b = lowerBound(starts, hit.from); b < starts.length && starts[b]! < hit.to; b++) points += counts[b]!;
    }
    tracker.chargeCached(points);
    if (points > 0) router.addCachedPoints(points);
    for (const series of this.rowGroup.series) {
      if (series.seen) continue;
      series.seen = this.hits.some((hit) => overlapsRuns(hit.entry.series.get(series.tagString), hit.from, hit.to));
    }
    stats.cacheHits += this.hitRanges;
    stats.cacheMisses += this.missRanges;
  }

  /** After the group finished: keeps each missed extent's ranges, the ones it had and the ones just read. */
  finish(): void {
    const tap = this.tapped;
    const seriesOfRank = new Map(this.rowGroup.series.map((s) => [s.rank, s.tagString]));
    for (const miss of this.misses) {
      const kept = miss.kept;
      const from = kept === undefined ? miss.from : Math.min(kept.fromMs, miss.from);
      const to = kept === undefined ? miss.to : Math.max(kept.toMs, miss.to);
      const builder = new ExtentBuilder();
      // The read ranges of this extent lie in [miss.from, miss.to) outside the kept entry; order the two by start.
      const fresh = tap?.rangesIn(miss.from, miss.to) ?? [];
      let f = 0;
      if (kept !== undefined) {
        for (let b = 0; b < kept.starts.length; b++) {
          while (f < fresh.length && tap!.startOf(fresh[f]!) < kept.starts[b]!) builder.addLive(tap!, fresh[f++]!);
          builder.addCached(kept, b);
        }
      }
      while (f < fresh.length) builder.addLive(tap!, fresh[f++]!);
      const series = new Map<string, number[]>();
      if (kept !== undefined) for (const [tagString, runs] of kept.series) series.set(tagString, [...runs]);
      tap?.runsIn(miss.from, miss.to, (rank, first, last) => {
        const tagString = seriesOfRank.get(rank)!;
        const runs = series.get(tagString);
        if (runs === undefined) series.set(tagString, [first, last]);
        else runs.push(first, last);
      });
      this.cache.put(miss.key, this.scope, builder.build(from, to, kept?.readAtMs ?? this.readAtMs, series));
    }
    this.cache.counted(this.hitRanges, this.missRanges);
  }
}

/**
 * What the range stage emits and observes while the live ranges are read; at the end, the cached and the live
 * ranges in the query's order, point for point what the stage would have emitted reading everything.
 */
class Tap implements BucketTap, BucketObserver {
  /** Emitted ranges in emission order: start, and where its points begin in the columns below. */
  private readonly starts: number[] = [];
  private readonly firstOutput: number[] = [];
  private readonly ts: number[] = [];
  private readonly nums: number[] = [];
  private readonly kinds: PointKind[] = [];
  private readonly extras: Extra[] = [];
  /** Raw points per range start. */
  readonly counts = new Map<number, number>();
  /** Per series rank: triples [first start, last start, last end] of runs of adjacent ranges with its points. */
  private readonly runs = new Map<number, number[]>();

  constructor(
    private readonly rest: PointSink,
    private readonly hits: readonly Hit[],
    private readonly asc: boolean,
  ) {}

  segment(startMs: number, endMs: number, rank: number, points: number): void {
    this.counts.set(startMs, (this.counts.get(startMs) ?? 0) + points);
    let runs = this.runs.get(rank);
    if (runs === undefined) this.runs.set(rank, (runs = []));
    const n = runs.length;
    // A series arrives in ascending time, so its ranges come in order, each possibly several times.
    if (n > 0 && runs[n - 2] === startMs) return;
    if (n > 0 && runs[n - 1] === startMs) {
      runs[n - 2] = startMs;
      runs[n - 1] = endMs;
    } else runs.push(startMs, startMs, endMs);
  }

  emitting(startMs: number): void {
    this.starts.push(startMs);
    this.firstOutput.push(this.ts.length);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    this.ts.push(ts);
    this.nums.push(num);
    this.kinds.push(kind);
    this.extras.push(extra);
  }

  end(): void {
    // Live ranges in ascending order (the stage emitted them in the query's order), merged with the cached parts.
    const live = this.starts.length;
    const liveAt = (j: number) => (this.asc ? j : live - 1 - j);
    const sources: number[] = [];
    const indices: number[] = [];
    let j = 0;
    this.hits.forEach((hit, h) => {
      while (j < live && this.starts[liveAt(j)]! < hit.from) {
        sources.push(-1);
        indices.push(liveAt(j++));
      }
      const starts = hit.entry.starts;
      for (let b = lowerBound(starts, hit.from); b < starts.length && starts[b]! < hit.to; b++) {
        sources.push(h);
        indices.push(b);
      }
    });
    for (; j < live; j++) {
      sources.push(-1);
      indices.push(liveAt(j));
    }
    const n = sources.length;
    for (let k = 0; k < n; k++) {
      const at = this.asc ? k : n - 1 - k;
      const source = sources[at]!;
      const i = indices[at]!;
      if (source < 0) {
        const last = i + 1 < live ? this.firstOutput[i + 1]! : this.ts.length;
        for (let p = this.firstOutput[i]!; p < last; p++)
          this.rest.point(this.ts[p]!, this.kinds[p]!, this.nums[p]!, this.extras[p]);
      } else {
        const e = this.hits[source]!.entry;
        for (let p = e.firstOutput[i]!; p < e.firstOutput[i + 1]!; p++)
          this.rest.point(e.ts[p]!, e.kinds[p]!, e.nums[p]!, e.extras[p]);
      }
    }
    this.rest.end();
  }

  /** Emitted ranges starting in [from, to), as emission indices in ascending order of start. */
  rangesIn(from: number, to: number): number[] {
    // The stage emitted them in the query's order: ascending, or descending.
    const n = this.starts.length;
    const at = (j: number) => (this.asc ? j : n - 1 - j);
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[at(mid)]! < from) lo = mid + 1;
      else hi = mid;
    }
    const found: number[] = [];
    for (let j = lo; j < n && this.starts[at(j)]! < to; j++) found.push(at(j));
    return found;
  }

  startOf(i: number): number {
    return this.starts[i]!;
  }

  /** Copies emitted range i into `out`. */
  copy(i: number, out: ExtentBuilder): void {
    const last = i + 1 < this.starts.length ? this.firstOutput[i + 1]! : this.ts.length;
    out.range(this.starts[i]!, this.counts.get(this.starts[i]!)!);
    for (let p = this.firstOutput[i]!; p < last; p++)
      out.point(this.ts[p]!, this.kinds[p]!, this.nums[p]!, this.extras[p]);
  }

  /** Each series' runs clipped to range starts in [from, to). */
  runsIn(from: number, to: number, each: (rank: number, first: number, last: number) => void): void {
    for (const [rank, runs] of this.runs) {
      for (let r = 0; r < runs.length; r += 3) {
        const first = Math.max(runs[r]!, from);
        const last = Math.min(runs[r + 1]!, to - 1);
        if (first <= last) each(rank, first, last);
      }
    }
  }
}

/** Collects an extent's ranges in ascending order and packs them into columns. */
class ExtentBuilder {
  private readonly starts: number[] = [];
  private readonly counts: number[] = [];
  private readonly firstOutput: number[] = [];
  private readonly ts: number[] = [];
  private readonly nums: number[] = [];
  private readonly kinds: PointKind[] = [];
  private readonly extras: Extra[] = [];
  private extraBytes = 0;

  range(start: number, count: number): void {
    this.starts.push(start);
    this.counts.push(count);
    this.firstOutput.push(this.ts.length);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    this.ts.push(ts);
    this.nums.push(num);
    this.kinds.push(kind);
    this.extras.push(extra);
    if (typeof extra === 'string') this.extraBytes += 2 * extra.length;
    else if (typeof extra === 'bigint') this.extraBytes += 16;
  }

  addLive(tap: Tap, i: number): void {
    tap.copy(i, this);
  }

  addCached(extent: CachedExtent, b: number): void {
    this.range(extent.starts[b]!, extent.counts[b]!);
    for (let p = extent.firstOutput[b]!; p < extent.firstOutput[b + 1]!; p++)
      this.point(extent.ts[p]!, extent.kinds[p]!, extent.nums[p]!, extent.extras[p]);
  }

  build(fromMs: number, toMs: number, readAtMs: number, series: Map<string, number[]>): CachedExtent {
    const packed = new Map<string, Float64Array>();
    let seriesBytes = 0;
    for (const [tagString, runs] of series) {
      packed.set(tagString, sortedPairs(runs));
      seriesBytes += 2 * tagString.length + 8 * runs.length + 64;
    }
    const ranges = this.starts.length;
    const points = this.ts.length;
    return {
      fromMs,
      toMs,
      readAtMs,
      starts: Float64Array.from(this.starts),
      counts: Float64Array.from(this.counts),
      firstOutput: Uint32Array.from([...this.firstOutput, points]),
      ts: Float64Array.from(this.ts),
      nums: Float64Array.from(this.nums),
      kinds: this.kinds,
      extras: this.extras,
      series: packed,
      // Typed columns, plus a pointer each in the two arrays, plus the strings and series; 512 for the objects.
      bytes: 512 + ranges * 20 + points * 32 + this.extraBytes + seriesBytes,
    };
  }
}

/** The extents of [from, to): UTC days for ranges shorter than a day, otherwise each range on its own. */
function extentsOf(
  grid: RangeGrid,
  fixedMs: number | undefined,
  from: number,
  to: number,
): { id: number; from: number; to: number }[] | undefined {
  const extents: { id: number; from: number; to: number }[] = [];
  if (fixedMs !== undefined && fixedMs < DAY_MS) {
    const firstDay = Math.floor(from / DAY_MS) * DAY_MS;
    if ((to - firstDay) / DAY_MS > MAX_EXTENTS) return undefined;
    for (let day = firstDay; day < to; day += DAY_MS) {
      // A range belongs to the day it starts in.
      const a = Math.max(from, boundaryAtOrAfter(grid, day));
      const b = Math.min(to, boundaryAtOrAfter(grid, day + DAY_MS));
      if (b > a) extents.push({ id: day, from: a, to: b });
    }
    return extents;
  }
  for (let lo = from; lo < to; ) {
    if (extents.length >= MAX_EXTENTS) return undefined;
    grid.locate(lo);
    const hi = grid.hi;
    if (!Number.isFinite(hi)) return undefined;
    extents.push({ id: lo, from: lo, to: hi });
    lo = hi;
  }
  return extents;
}

function boundaryAtOrAfter(grid: RangeGrid, t: number): number {
  grid.locate(t);
  return grid.lo === t ? t : grid.hi;
}

function boundaryAtOrBefore(grid: RangeGrid, t: number): number {
  grid.locate(t);
  return grid.lo;
}

/** Ranges of the grid in [from, to), both boundaries. */
function rangesBetween(grid: RangeGrid, from: number, to: number): number {
  return grid.locate(to) - grid.locate(from);
}

/** First index whose value is not below `value` (values ascending). */
function lowerBound(values: Float64Array, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether runs [first, last] of range starts reach into [from, to). */
function overlapsRuns(runs: Float64Array | undefined, from: number, to: number): boolean {
  if (runs === undefined) return false;
  for (let r = 0; r < runs.length; r += 2) if (runs[r]! < to && runs[r + 1]! >= from) return true;
  return false;
}

function sortedPairs(flat: number[]): Float64Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  return Float64Array.from(pairs.flat());
}
