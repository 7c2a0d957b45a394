/**
 * What a gateway's requests share beyond themselves: the results cache, identical queries and partition reads in
 * flight, and the write generations that keep all three from handing out what was read before a write through the
 * gateway. One per gateway, for all its sources, made with it; its numbers go to /metrics.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Sources } from '../sources/sources.js';
import { InvalidatingSource } from './invalidating-source.js';
import { ResultsCache } from './results-cache.js';
import { SharedQueries } from './shared-queries.js';
import { SharedScans } from './shared-scans.js';
import { WriteGenerations } from './write-generations.js';

export interface SharedReads {
  /** The sources requests use: writes and deletes invalidate, identical partition reads are shared. */
  readonly sources: Sources;
  /** Undefined with CACHE_MAX_BYTES=0. */
  readonly cache: ResultsCache | undefined;
  readonly queries: SharedQueries;
  readonly scans: SharedScans;
  readonly generations: WriteGenerations;
}

/** What the gateway's requests share, from its configuration. */
export interface SharedReadOptions {
  /** The results cache's CACHE_MAX_BYTES (0: no cache), CACHE_FRESHNESS_MS and CACHE_TTL_MS (results-cache.ts). */
  readonly cache: { readonly maxBytes: number; readonly freshnessMs: number; readonly ttlMs: number };
}

export function createSharedReads(inner: Sources, options: SharedReadOptions): SharedReads {
  const generations = new WriteGenerations();
  const scans = new SharedScans(generations);
  const cache =
    options.cache.maxBytes > 0
      ? new ResultsCache({
          maxBytes: options.cache.maxBytes,
          freshnessMs: options.cache.freshnessMs,
          ttlMs: options.cache.ttlMs,
          generations,
        })
      : undefined;
  return {
    sources: inner.map((source) => new InvalidatingSource(source, generations, scans)),
    cache,
    queries: new SharedQueries(generations),
    scans,
    generations,
  };
}

/** The cache's and the shared work's counters on the gateway's /metrics. */
export function registerSharedReadMetrics(registry: Registry, shared: SharedReads): void {
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  const cache = shared.cache;
  counter(
    'kairograph_cache_hits_total',
    'Ranges of aggregated queries answered from the results cache',
    () => cache?.hits ?? 0,
  );
  counter(
    'kairograph_cache_misses_total',
    'Ranges the results cache could keep that were read from the store',
    () => cache?.misses ?? 0,
  );
  counter(
    'kairograph_cache_invalidations_total',
    'Results cache entries dropped by writes and deletes through the gateway',
    () => cache?.invalidations ?? 0,
  );
  gauge('kairograph_cache_bytes', 'Memory held by the results cache (its own estimate)', () => cache?.bytes ?? 0);
  gauge('kairograph_cache_entries', 'Entries (row group and extent) in the results cache', () => cache?.entries ?? 0);
  counter(
    'kairograph_shared_queries_total',
    'Queries answered by an identical query of another request running at the same time',
    () => shared.queries.joins,
  );
  counter(
    'kairograph_shared_scans_total',
    'Partition reads served by an identical read under way',
    () => shared.scans.joins,
  );
}
