/**
 * A query's span: started under the request's current span, ended with what the query cost (the figures its
 * statistics report), so a trace shows which alias of a dashboard read what.
 */
import type { QueryStats } from '../engine/execute.js';
import type { TraceSpan } from '../lib/trace.js';

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
