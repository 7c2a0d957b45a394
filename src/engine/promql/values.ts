/**
 * The values the evaluator passes around: samples of one step, series over the query's steps, series of raw points
 * (range vectors), and the staleness marker that ends a series.
 */
import type { Labels } from './labels.js';
import type { SampleChunk } from './series-access.js';

/** Prometheus's staleness marker: a NaN with its own bit pattern, distinct from an ordinary NaN value. */
const STALE_BITS = 0x7ff0000000000002n;
const staleView = new DataView(new ArrayBuffer(8));
staleView.setBigUint64(0, STALE_BITS);
export const STALE_NAN = staleView.getFloat64(0);

const QUIET_BIT = 0x0008000000000000n;

/**
 * True for the staleness marker only. Float64Arrays keep NaN payloads, but V8 sets the quiet bit when a NaN passes
 * through a plain array, so the payload is compared with that bit ignored.
 */
export function isStale(value: number): boolean {
  if (!Number.isNaN(value)) return false;
  staleView.setFloat64(0, value);
  return (staleView.getBigUint64(0) & ~QUIET_BIT) === STALE_BITS;
}

/** One sample of an instant vector at one step. `dropName` is Prometheus's delayed removal of `__name__`. */
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
  readonly dropName: boolean;
}

export type Vector = Sample[];

/** A series over the evaluator's steps: `has[i]` tells whether step i has a value. */
export interface StepSeries {
  labels: Labels;
  dropName: boolean;
  readonly values: Float64Array;
  readonly has: Uint8Array;
}

/** A series of raw points, sorted by time: a range vector as an answer. */
export interface PointSeries {
  readonly labels: Labels;
  readonly dropName: boolean;
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
}

/** A series of raw points read in chunks: the input of range functions (from a selector or a subquery). */
export interface ChunkedSeries {
  readonly labels: Labels;
  readonly dropName: boolean;
  readonly chunks: AsyncIterable<SampleChunk> | Iterable<SampleChunk>;
}

export type EvalValue =
  | { readonly type: 'vector'; readonly series: StepSeries[] }
  | { readonly type: 'scalar'; readonly values: Float64Array }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'matrix'; readonly series: PointSeries[] };

export function newStepSeries(labels: Labels, dropName: boolean, steps: number): StepSeries {
  return { labels, dropName, values: new Float64Array(steps), has: new Uint8Array(steps) };
}
