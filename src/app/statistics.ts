/**
 * What a request cost, as both front ends report it (GraphQL's `extensions.statistics`, the request's log line): the
 * plan (row times, series matched), the reads (partitions, points, store calls by table, in all and per source) and
 * the time per stage. A pure function of the request scope.
 */
import type { RequestScope } from './request-scope.js';

export interface RequestStatistics {
  readonly requestId: string;
  readonly ms: number;
  /**
   * Index reads the request made (shared by its queries through the loaders) by read, the partition scans, and their
   * total, over every source.
   */
  readonly storeCalls: StoreCalls;
  /** The same for each source the request read from, by name: which source every store call went to. */
  readonly storeCallsBySource: Readonly<Record<string, StoreCalls>>;
  readonly queries: readonly QueryStatistics[];
}

/**
 * Calls by index read (the sources' `indexReads`: `rowTimes`, `rowKeys`, `legacyRowKeys` and `tagIndexedRowKeys` of
 * KairosDB's tables),
 * then scans and their total.
 */
type StoreCalls = Readonly<Record<string, number>> & { readonly scans: number; readonly total: number };

interface QueryStatistics {
  readonly path: string;
  /** The source the query read. */
  readonly source: string;
  readonly metric: string;
  readonly rowTimes: number;
  readonly seriesMatched: number;
  readonly partitionsRead: number;
  /** Points read from the store; ranges taken from the results cache read none. */
  readonly pointsRead: number;
  readonly pointsReturned: number;
  /**
   * The results cache: ranges answered from it, ranges it could keep that were read, and the raw points the cached
   * ranges stand for (in the answer's sample size, not in pointsRead); `shared` when the answer is an identical query
   * of another request that ran at the same time (whose statistics count the reads).
   */
  readonly cache: { readonly hits: number; readonly misses: number; readonly cachedPoints: number };
  readonly shared: boolean;
  readonly ms: { readonly plan: number; readonly fetchAggregate: number; readonly total: number };
  readonly truncated?: { readonly budget: string; readonly limit: number };
  /** With `useRollups`: the roll-up task and metric read instead of the raw data, or why the raw data was read. */
  readonly rollup?: { readonly task?: string; readonly metric?: string; readonly reason?: string };
}

export function requestStatistics(ctx: RequestScope, ms: number): RequestStatistics {
  const bySource: Record<string, StoreCalls> = {};
  const all: Record<string, number> = {};
  // Every source's reads are named in the totals, zero or not, so their keys do not depend on what the request did.
  for (const source of ctx.sources.all) for (const read of source.indexReads) all[read] = 0;
  for (const source of ctx.sources.all) {
    const reads = ctx.loaders.calls.get(source.name);
    const queries = ctx.queries.filter((q) => q.source === source.name);
    if (reads === undefined && queries.length === 0) continue;
    const calls: Record<string, number> = {};
    for (const read of source.indexReads) calls[read] = reads?.[read] ?? 0;
    const scans = queries.reduce((n, q) => n + q.stats.scans, 0);
    bySource[source.name] = { ...calls, scans, total: sum(Object.values(calls)) + scans };
    for (const read of source.indexReads) all[read]! += calls[read]!;
  }
  const scans = ctx.queries.reduce((n, q) => n + q.stats.scans, 0);
  return {
    requestId: ctx.requestId,
    ms: round(ms),
    storeCalls: { ...all, scans, total: sum(Object.values(all)) + scans },
    storeCallsBySource: bySource,
    queries: ctx.queries.map((q) => ({
      path: q.label,
      source: q.source,
      metric: q.metric,
      rowTimes: q.stats.rowTimes,
      seriesMatched: q.stats.seriesMatched,
      partitionsRead: q.stats.partitionsRead,
      pointsRead: q.stats.pointsRead,
      pointsReturned: q.stats.pointsReturned,
      cache: { hits: q.stats.cacheHits, misses: q.stats.cacheMisses, cachedPoints: q.stats.cachedPoints },
      shared: q.stats.shared > 0,
      ms: { plan: round(q.stats.planMs), fetchAggregate: round(q.stats.fetchAggregateMs), total: round(q.ms) },
      ...(q.truncated ? { truncated: q.truncated } : {}),
      ...(q.rewrite ? { rollup: q.rewrite } : {}),
    })),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
