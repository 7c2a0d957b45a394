// Partitioning of time into data_points rows (reference §2.2): row times, the width used to clip reads, and
// KairosDB's whole-row test for deletes.
import type { RowSpec } from '../store.js';

/**
 * KairosDB's `RowSpec.calculateRowTime`. For ts < 0 the `abs()` makes rows unaligned (ts=-1 → -2); that is what
 * KairosDB has written since v0.9.5, so it is reproduced rather than fixed. `width` is the raw spec number, also
 * for unit SECONDS (see `rowWidthMs`).
 */
export function rowTimeOf(ts: number, width: number): number {
  return ts - (Math.abs(ts) % width);
}

/**
 * The row width in ms that KairosDB uses to clip range reads and to decide whole-row deletes. With unit SECONDS
 * the spec stores the width in seconds and this multiplies by 1000, yet `rowTimeOf` applies the raw number to ms
 * timestamps, so such rows really hold only `width` ms of data; KairosDB behaves that way and so do we.
 */
export function rowWidthMs(spec: RowSpec): number {
  return spec.unit === 'SECONDS' ? spec.width * 1000 : spec.width;
}

/** True when a delete of [startMs, endMs] removes the whole partition (a partition delete in KairosDB). */
export function partitionCovered(spec: RowSpec, rowTime: number, startMs: number, endMs: number): boolean {
  return startMs <= rowTime && endMs >= rowTime + rowWidthMs(spec) - 1;
}
