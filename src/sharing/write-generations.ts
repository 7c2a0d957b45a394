/**
 * Per-metric write generations of every source: a write or delete through this gateway bumps its metric's number
 * once the source has acknowledged it, and every key of cached or shared read work names the number it was read
 * under, so work read before a write is never handed to a reader after it, however the two interleave.
 */
import { metricScope } from '../sources/metric-scope.js';

/**
 * Numbers live in a fixed table indexed by a hash of the source and metric name, so memory does not grow with every
 * metric ever written: two metrics sharing a slot only invalidate each other's work more often than needed.
 */
const SLOTS = 4096;

export class WriteGenerations {
  /** Float64: exact counts far past what 2^32 writes to one slot would wrap to. */
  private readonly slots = new Float64Array(SLOTS);
  private readonly listeners: ((scope: string, earliestMs: number) => void)[] = [];

  of(source: string, metric: string): number {
    return this.ofScope(metricScope(source, metric));
  }

  /**
   * Called after a write or delete of `metric` of `source` was acknowledged (or failed part-way: it may have changed
   * data); `earliestMs` is the earliest point time it may have changed (-Infinity when unknown: a whole metric).
   */
  bump(source: string, metric: string, earliestMs = Number.NEGATIVE_INFINITY): void {
    this.bumpScope(metricScope(source, metric), earliestMs);
  }

  /** `of` by the metric's scope (`metricScope`), as the results cache keys it. */
  ofScope(scope: string): number {
    return this.slots[slotOf(scope)]!;
  }

  bumpScope(scope: string, earliestMs = Number.NEGATIVE_INFINITY): void {
    this.slots[slotOf(scope)]!++;
    for (const listener of this.listeners) listener(scope, earliestMs);
  }

  /** `listener` hears of every bump, after the number changed, with the metric's scope (`metricScope`). */
  onBump(listener: (scope: string, earliestMs: number) => void): void {
    this.listeners.push(listener);
  }
}

/** FNV-1a over UTF-16 code units. */
function slotOf(scope: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < scope.length; i++) {
    hash ^= scope.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SLOTS;
}
