/**
 * How points travel through the engine: pushed into sinks as runs of a slice or as single points spread over
 * arguments (timestamp, kind, number, extra), never as one object per point; and the order KairosDB merges them in.
 */
import type { Slice } from '../model/series.js';
import { bigExtra, type PointKind, type PointValue } from './point-list.js';

/**
 * What a point carries besides its number: the exact bigint of a long beyond ±2^53, the text of a string, the
 * imaginary part of a complex; undefined otherwise. The number is the value for longs and doubles, the real part
 * for complex, 0 for strings and NaN for null points.
 */
export type Extra = bigint | string | number | undefined;

export interface PointSink {
  point(ts: number, kind: PointKind, num: number, extra: Extra): void;
  /** No more points; a stage flushes what it holds and ends the next one. */
  end(): void;
}

/** The first stage of a pipeline also takes runs of slices, so its hot loops read typed arrays directly. */
export interface RunSink extends PointSink {
  /**
   * Points [from, to) of a slice, in stream order. `rank` is the canonical position of the series they come
   * from: it breaks ties between equal points of different series the same way on every run.
   */
  run(slice: Slice, from: number, to: number, rank: number): void;
}

/** Query order: a stream is ascending in time unless the metric asked for `desc`. */
export type Order = 'asc' | 'desc';

/** Feeds points [from, to) of a slice to a sink one at a time. */
export function pushPoints(slice: Slice, from: number, to: number, sink: PointSink): void {
  const ts = slice.timestamps;
  switch (slice.kind) {
    case 'string':
      for (let i = from; i < to; i++) sink.point(ts[i]!, 'string', 0, slice.values[i]!);
      break;
    case 'complex':
      for (let i = from; i < to; i++) sink.point(ts[i]!, 'complex', slice.values[i]!, slice.imaginary[i]!);
      break;
    default: {
      const { kind, values, exact } = slice;
      if (exact === undefined) for (let i = from; i < to; i++) sink.point(ts[i]!, kind, values[i]!, undefined);
      else for (let i = from; i < to; i++) sink.point(ts[i]!, kind, values[i]!, bigExtra(exact[i]!));
    }
  }
}

/** The value a point list stores for a point. */
export function pointValue(kind: PointKind, num: number, extra: Extra): PointValue {
  switch (kind) {
    case 'long':
      return typeof extra === 'bigint' ? extra : num;
    case 'double':
      return num;
    case 'string':
      return extra as string;
    case 'complex':
      return { real: num, imaginary: extra as number };
    default:
      return null;
  }
}

/** Java's `Double.compare`: -0.0 before 0.0, NaN after everything and equal to itself. */
export function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const negA = Object.is(a, -0);
    return negA === Object.is(b, -0) ? 0 : negA ? -1 : 1;
  }
  const nanA = Number.isNaN(a);
  return nanA === Number.isNaN(b) ? 0 : nanA ? 1 : -1;
}

/**
 * KairosDB's merge order (SortingDataPointGroup): time, then value (`Double.compare` of the numeric value, which is
 * 0 for strings and complex), then, where KairosDB falls back to identity hashes, the series rank. Descending
 * streams reverse all three. Returns < 0 when a comes first in the stream.
 */
export function compareInStream(
  order: Order,
  tsA: number,
  tieA: number,
  rankA: number,
  tsB: number,
  tieB: number,
  rankB: number,
): number {
  const c = tsA !== tsB ? (tsA < tsB ? -1 : 1) : compareDoubles(tieA, tieB) || rankA - rankB;
  return order === 'asc' ? c : -c;
}

/** The value merges compare on ties. */
export function tieValue(kind: PointKind, num: number): number {
  return kind === 'long' || kind === 'double' ? num : 0;
}

/** The value merges compare on ties, of point i of a slice. */
export function tieAt(slice: Slice, i: number): number {
  return slice.kind === 'long' || slice.kind === 'double' ? slice.values[i]! : 0;
}

/** Java's String.compareTo (UTF-16 code units, as JavaScript's < compares): how KairosDB orders tag strings and text. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Points [start, end) of a slice, sharing its buffers. */
export function sliceRange(slice: Slice, start: number, end: number): Slice {
  const timestamps = slice.timestamps.subarray(start, end);
  switch (slice.kind) {
    case 'string':
      return { key: slice.key, kind: 'string', timestamps, values: slice.values.slice(start, end) };
    case 'complex':
      return {
        key: slice.key,
        kind: 'complex',
        timestamps,
        values: slice.values.subarray(start, end),
        imaginary: slice.imaginary.subarray(start, end),
      };
    default: {
      const sub = { key: slice.key, kind: slice.kind, timestamps, values: slice.values.subarray(start, end) };
      return slice.exact === undefined ? sub : { ...sub, exact: slice.exact.subarray(start, end) };
    }
  }
}
