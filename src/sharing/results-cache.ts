/**
 * The results cache: complete ranges ("buckets") of aggregated queries, per row group and extent, in an LRU bounded
 * by bytes (lru-cache) with a time to live. Keys carry the cache generation of the source's metric, which a write or
 * delete through this gateway moves on at once when it touched a point older than the freshness window (the only
 * points a kept range can hold), so that metric's entries become unreachable, and they are dropped from memory too.
 * Writes of fresh points, a live feed's, leave the entries alone. What goes in and how answers are assembled from it
 * is the engine's business (src/engine/bucket-cache.ts).
 */
import { LRUCache } from 'lru-cache';
import type { BucketCache, CachedExtent } from '../engine/bucket-cache.js';
import { WriteGenerations } from './write-generations.js';

export interface ResultsCacheOptions {
  /** CACHE_MAX_BYTES: at least 1 (0 means no cache at all, and no ResultsCache is made). */
  readonly maxBytes: number;
  /** CACHE_FRESHNESS_MS */
  readonly freshnessMs: number;
  /** CACHE_TTL_MS: an entry is read again from the store this long after its oldest range was read. */
  readonly ttlMs: number;
  /** The gateway's write generations: the cache hears of every write and delete through them. */
  readonly generations: WriteGenerations;
  /** Wall clock; tests move it. */
  readonly now?: () => number;
}

export class ResultsCache implements BucketCache {
  readonly freshnessMs: number;
  /** Ranges answered from the cache, and ranges it could keep that were read from the store, since start. */
  hits = 0;
  misses = 0;
  /** Entries made unreachable by writes and deletes through this gateway. */
  invalidations = 0;
  private readonly lru: LRUCache<string, CachedExtent>;
  /** Keys by source and metric (`metricScope`), to drop a metric's entries when it is written. */
  private readonly keysOf = new Map<string, Set<string>>();
  private readonly ttlMs: number;
  private readonly clock: () => number;
  /** Moved on only by writes that may have changed a kept range. */
  private readonly stale = new WriteGenerations();

  constructor(options: ResultsCacheOptions) {
    if (!(options.maxBytes >= 1)) throw new Error(`maxBytes must be at least 1: ${options.maxBytes}`);
    this.freshnessMs = options.freshnessMs;
    this.ttlMs = options.ttlMs;
    this.clock = options.now ?? Date.now;
    this.lru = new LRUCache<string, CachedExtent>({
      maxSize: options.maxBytes,
      // Keys repeat the metric and the query's hash in every entry.
      sizeCalculation: (extent, key) => extent.bytes + 2 * key.length,
      ttl: options.ttlMs,
      // An entry that grows keeps the age of its oldest range: set() is given the time it has left.
      noUpdateTTL: false,
      noDisposeOnSet: true,
      dispose: (_extent, key) => this.unindex(key),
    });
    options.generations.onBump((scope, earliestMs) => this.written(scope, earliestMs));
  }

  now(): number {
    return this.clock();
  }

  generation(scope: string): number {
    return this.stale.ofScope(scope);
  }

  get(key: string): CachedExtent | undefined {
    const extent = this.lru.get(key);
    // lru-cache ages entries on its own clock; this one is the one tests and the entries' readAtMs use.
    if (extent !== undefined && this.clock() - extent.readAtMs >= this.ttlMs) {
      this.lru.delete(key);
      return undefined;
    }
    return extent;
  }

  put(key: string, scope: string, extent: CachedExtent): void {
    const left = this.ttlMs - (this.clock() - extent.readAtMs);
    if (left <= 0) return;
    this.lru.set(key, extent, { ttl: Math.ceil(left) });
    let keys = this.keysOf.get(scope);
    // An entry too large for the whole cache is not stored at all (and the one it was to replace is gone).
    if (!this.lru.has(key)) {
      keys?.delete(key);
      return;
    }
    if (keys === undefined) this.keysOf.set(scope, (keys = new Set()));
    keys.add(key);
  }

  counted(hits: number, misses: number): void {
    this.hits += hits;
    this.misses += misses;
  }

  /** Bytes held (as sizeCalculation counts them) and entries. */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  get entries(): number {
    return this.lru.size;
  }

  /**
   * A write or delete of a source's metric (`scope`) was acknowledged `now`. Every range kept ends before the
   * freshness window of the moment it was read (by the wall clock too: the engine keeps nothing later), and any read
   * that missed this write began before now, so a write whose points are all within the freshness window of now
   * changed no kept range. Any other write makes the metric's entries unreachable, those being read too, and drops
   * them.
   */
  private written(scope: string, earliestMs: number): void {
    if (earliestMs >= this.clock() - this.freshnessMs) return;
    this.stale.bumpScope(scope);
    const keys = this.keysOf.get(scope);
    if (keys === undefined) return;
    this.invalidations += keys.size;
    for (const key of [...keys]) this.lru.delete(key);
    this.keysOf.delete(scope);
  }

  /** Keys begin with the scope and U+0000, which no metric name holds (validateMetricName) and no source name. */
  private unindex(key: string): void {
    const scope = key.slice(0, key.indexOf('\u0000'));
    const keys = this.keysOf.get(scope);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOf.delete(scope);
  }
}
