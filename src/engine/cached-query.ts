/**
 * A query as the results cache sees it: whether its row groups' ranges may be kept, the extents (UTC days, or each
 * range) they span, and which of those a cache already holds (hits) and which are read from the store (misses).
 */
import { createHash } from 'node:crypto';
import type { MetricQuery } from '../model/query.js';
import { metricScope } from '../sources/metric-scope.js';
import type { CompiledAggregator } from './aggregators/registry.js';
import type { Budgets } from './budget.js';
import type { PipelineSpec, RowGroup } from './pipeline.js';
import { RangeGrid } from './range-grid.js';
import { fixedLengthMs } from '../model/time-units.js';
import { RowGroupBuckets } from './row-group-buckets.js';
import type { BucketCache, Hit, Miss } from './bucket-cache.js';

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
