/**
 * What one query of a request leaves behind: its record, which the request's statistics and log line report, and its
 * span, started under the request's current span and ended with the same figures, so a trace shows which alias of a
 * dashboard read what.
 */
import type { QueryOutput, QueryStats } from '../engine/execute.js';
import type { TraceSpan } from '../lib/trace.js';

/** How a query was rewritten before it ran, as its statistics tell it (src/rollups: a roll-up read instead). */
export interface QueryRewrite {
  /** The task and metric read instead of the raw data; absent when the raw data was read. */
  readonly task?: string;
  readonly metric?: string;
  /** Why the raw data was read; absent when a roll-up was used. */
  readonly reason?: string;
}

/** What one query of a request cost: reported to clients (response extensions) and in the request's log line. */
export interface QueryRecord {
  /** Where the query came from: the GraphQL response path, or `metrics[i]` for REST. */
  readonly label: string;
  /** The source it read. */
  readonly source: string;
  readonly metric: string;
  readonly stats: QueryStats;
  readonly ms: number;
  readonly warnings: readonly string[];
  readonly truncated?: QueryOutput['truncated'];
  readonly rewrite?: QueryRewrite;
}

export function startQuerySpan(parent: TraceSpan, label: string, source: string, metric: string): TraceSpan {
  return parent.child('query', { 'kairograph.query': label, 'kairograph.source': source, 'kairograph.metric': metric });
}

export function endQuerySpan(span: TraceSpan, stats: QueryStats, error?: unknown): void {
  if (!span.recording) return;
  span.set({
    'kairograph.series': stats.seriesMatched,
    'kairograph.partitions_read': stats.partitionsRead,
    'kairograph.points_read': stats.pointsRead,
    'kairograph.points_returned': stats.pointsReturned,
    'kairograph.scans': stats.scans,
    'kairograph.cache_hits': stats.cacheHits,
    'kairograph.cache_misses': stats.cacheMisses,
    'kairograph.shared': stats.shared > 0,
  });
  if (error !== undefined) span.fail(error);
  span.end();
}
