/**
 * The engine's side of the results cache, as the engine asks a cache and finds its answers: what an entry holds (an
 * extent's complete ranges), the lookup, and the hits and misses of one row group. The engine's use of it is
 * cached-query.ts (which ranges), row-group-buckets.ts (each group's) and bucket-tap.ts (joining and keeping); the
 * cache itself (memory, eviction, invalidation) is src/sharing/results-cache.ts; why each rule holds is in
 * docs/architecture.md#the-results-cache.
 */
import type { PointKind } from './point-list.js';
import type { Extra } from './points.js';

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
   * The cache generation of a metric of a source (`scope`: sources/metric-scope.ts): in every key, so nothing
   * read before a write through this gateway that may have changed it is found after it.
   */
  generation(scope: string): number;
  get(key: string): CachedExtent | undefined;
  /** Keys begin with the scope and U+0000. */
  put(key: string, scope: string, extent: CachedExtent): void;
  /** Ranges answered from the cache and ranges it could keep that were read (for /metrics). */
  counted(hits: number, misses: number): void;
}

/** A part of an extent answered from its entry. */
export interface Hit {
  readonly entry: CachedExtent;
  readonly from: number;
  readonly to: number;
}

/** An extent whose needed ranges [from, to) are not all in its entry; `kept` is an entry the new one grows from. */
export interface Miss {
  readonly key: string;
  readonly from: number;
  readonly to: number;
  readonly kept: CachedExtent | undefined;
}
