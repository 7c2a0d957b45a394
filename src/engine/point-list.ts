/**
 * Points that leave the engine for a front end, keeping each point's type (long, double, string, complex, or null for
 * an empty range marked by `gaps`) so GraphQL and REST can render values exactly.
 *
 * A list is a sequence of runs of one kind: the store's slices kept as they are (raw points are never copied point by
 * point), and the points the pipeline makes, pushed into columns of their own. Front ends that write many points
 * (REST's values, GraphQL's columns) read the runs; the per-point arrays (`timestamps`, `kinds`, `values`) are made
 * on first use, for the readers that go point by point.
 */
import type { Slice, SliceKind } from '../model/series.js';

export interface ComplexValue {
  readonly real: number;
  readonly imaginary: number;
}

/** Longs are numbers when they are safe integers and bigints otherwise. */
export type PointValue = number | bigint | string | ComplexValue | null;

export type PointKind = SliceKind | 'null';

/**
 * Columns of points of one kind, as a slice holds them. A long's `exact`, where present, holds its 64-bit value: a
 * slice's for every point, pushed columns' only for the values beyond ±2^53 (undefined elsewhere).
 */
export type RunColumns =
  | {
      readonly kind: 'long' | 'double';
      readonly timestamps: ArrayLike<number>;
      readonly values: ArrayLike<number>;
      readonly exact?: ArrayLike<bigint | undefined> | undefined;
    }
  | { readonly kind: 'string'; readonly timestamps: ArrayLike<number>; readonly values: readonly string[] }
  | {
      readonly kind: 'complex';
      readonly timestamps: ArrayLike<number>;
      readonly values: ArrayLike<number>;
      readonly imaginary: ArrayLike<number>;
    }
  | { readonly kind: 'null'; readonly timestamps: ArrayLike<number> };

/** Points [from, to) of `columns`. */
export interface PointRun {
  readonly columns: RunColumns;
  readonly from: number;
  readonly to: number;
}

/** Columns that `push` appends to, while the kind stays the same. */
interface PushedColumns {
  readonly kind: PointKind;
  readonly timestamps: number[];
  readonly values: (number | string)[];
  imaginary?: number[];
  exact?: (bigint | undefined)[];
}

interface PerPoint {
  readonly timestamps: number[];
  readonly kinds: PointKind[];
  readonly values: PointValue[];
}

/** Runs of a slice shorter than this are copied point by point. */
const SHORTEST_KEPT_RUN = 32;

export class PointList {
  private readonly list: { columns: RunColumns; from: number; to: number }[] = [];
  /** The last run, when `push` made it: the next point of its kind joins it. */
  private pushed: { readonly columns: PushedColumns; readonly from: 0; to: number } | undefined;
  private count = 0;
  /** The per-point arrays, once asked for; any append drops them. */
  private perPoint: PerPoint | undefined;

  get length(): number {
    return this.count;
  }

  /** The points as runs, in list order. */
  get runs(): readonly PointRun[] {
    return this.list;
  }

  get timestamps(): readonly number[] {
    return this.points().timestamps;
  }

  get kinds(): readonly PointKind[] {
    return this.points().kinds;
  }

  get values(): readonly PointValue[] {
    return this.points().values;
  }

  push(timestamp: number, kind: PointKind, value: PointValue): void {
    let run = this.pushed;
    if (run === undefined || run.columns.kind !== kind) {
      const columns: PushedColumns = {
        kind,
        timestamps: [],
        values: [],
        ...(kind === 'complex' ? { imaginary: [] } : {}),
      };
      run = { columns, from: 0, to: 0 };
      this.list.push(run as { columns: RunColumns; from: number; to: number });
      this.pushed = run;
    }
    const columns = run.columns;
    columns.timestamps.push(timestamp);
    switch (kind) {
      case 'long':
        if (typeof value === 'bigint') {
          columns.values.push(Number(value));
          (columns.exact ??= new Array<bigint | undefined>(columns.timestamps.length - 1)).push(value);
        } else {
          columns.values.push(value as number);
          columns.exact?.push(undefined);
        }
        break;
      case 'double':
      case 'string':
        columns.values.push(value as number | string);
        break;
      case 'complex':
        columns.values.push((value as ComplexValue).real);
        columns.imaginary!.push((value as ComplexValue).imaginary);
        break;
    }
    run.to++;
    this.count++;
    this.perPoint = undefined;
  }

  /**
   * Keeps points [start, end) of the slice as a run (a scan never changes a slice it handed out); a short run is
   * copied instead, so that a merge of interleaved series, which hands over runs of a point or two, costs no object
   * per point.
   */
  appendSlice(slice: Slice, start = 0, end = slice.timestamps.length): void {
    if (end - start < SHORTEST_KEPT_RUN) {
      for (let i = start; i < end; i++) this.push(slice.timestamps[i]!, slice.kind, valueAt(slice, i));
      return;
    }
    this.list.push({ columns: slice, from: start, to: end });
    this.pushed = undefined;
    this.count += end - start;
    this.perPoint = undefined;
  }

  /**
   * The same points at the times `map` gives (ascending times to ascending times), for a time-shifted query: the runs'
   * values are shared, their times copied, so a slice the results cache or another query holds is never changed.
   */
  retimed(map: (ms: number) => number): PointList {
    const list = new PointList();
    for (const { columns, from, to } of this.list) {
      const timestamps = new Float64Array(to - from);
      for (let i = from; i < to; i++) timestamps[i - from] = map(columns.timestamps[i]!);
      list.list.push({ columns: { ...cut(columns, from, to), timestamps }, from: 0, to: to - from });
    }
    list.count = this.count;
    return list;
  }

  private points(): PerPoint {
    if (this.perPoint !== undefined) return this.perPoint;
    const timestamps: number[] = [];
    const kinds: PointKind[] = [];
    const values: PointValue[] = [];
    for (const { columns, from, to } of this.list) {
      for (let i = from; i < to; i++) {
        timestamps.push(columns.timestamps[i]!);
        kinds.push(columns.kind);
        values.push(valueAt(columns, i));
      }
    }
    return (this.perPoint = { timestamps, kinds, values });
  }
}

/** Entries [from, to) of each of `columns`' value columns, as views where they are typed arrays. */
function cut(columns: RunColumns, from: number, to: number): RunColumns {
  const part = <T>(column: ArrayLike<T>): ArrayLike<T> =>
    ArrayBuffer.isView(column)
      ? ((column as unknown as Float64Array).subarray(from, to) as unknown as ArrayLike<T>)
      : Array.prototype.slice.call(column, from, to);
  switch (columns.kind) {
    case 'long':
    case 'double':
      return {
        kind: columns.kind,
        timestamps: columns.timestamps,
        values: part(columns.values),
        ...(columns.exact ? { exact: part(columns.exact) } : {}),
      };
    case 'string':
      return { kind: 'string', timestamps: columns.timestamps, values: columns.values.slice(from, to) };
    case 'complex':
      return {
        kind: 'complex',
        timestamps: columns.timestamps,
        values: part(columns.values),
        imaginary: part(columns.imaginary),
      };
    case 'null':
      return columns;
  }
}

/** The value of point `i` of `columns`. */
export function valueAt(columns: RunColumns, i: number): PointValue {
  switch (columns.kind) {
    case 'long':
      return longAt(columns, i);
    case 'double':
      return columns.values[i]!;
    case 'string':
      return columns.values[i]!;
    case 'complex':
      return { real: columns.values[i]!, imaginary: columns.imaginary[i]! };
    case 'null':
      return null;
  }
}

/** A long as a number when it is a safe integer, else as a bigint. */
export function longAt(columns: Extract<RunColumns, { kind: 'long' | 'double' }>, i: number): number | bigint {
  const exact = columns.exact?.[i];
  return (exact === undefined ? undefined : bigExtra(exact)) ?? columns.values[i]!;
}

/** The extra of a long read from an exact column: only values beyond ±2^53 need it. */
export function bigExtra(value: bigint): bigint | undefined {
  return value >= -MAX_SAFE && value <= MAX_SAFE ? undefined : value;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
