/**
 * One row group's ranges under the results cache: those its entries answer, the points read from the store for the
 * rest, the points a query is charged for, and the extents kept once the group's ranges are complete.
 */
import type { BudgetTracker, QueryStats } from './budget.js';
import type { GroupRouter, BucketTap, PipelineSpec, RowGroup } from './pipeline.js';
import type { PointSink } from './points.js';
import type { RangeGrid } from './range-grid.js';
import { Tap, ExtentBuilder, lowerBound, overlapsRuns } from './bucket-tap.js';
import type { BucketCache, Hit, Miss } from './bucket-cache.js';

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

/** Ranges of the grid in [from, to), both boundaries. */
function rangesBetween(grid: RangeGrid, from: number, to: number): number {
  return grid.locate(to) - grid.locate(from);
}
