/**
 * Points that leave the engine for a front end: columnar, keeping each point's type (long, double, string,
 * complex, or null for an empty range marked by `gaps`) so GraphQL and REST can render values exactly.
 */
import type { Slice, SliceKind } from '../sources/series.js';
import { bigExtra } from './points.js';

export interface ComplexValue {
  readonly real: number;
  readonly imaginary: number;
}

/** Longs are numbers when they are safe integers and bigints otherwise. */
export type PointValue = number | bigint | string | ComplexValue | null;

export type PointKind = SliceKind | 'null';

export class PointList {
  readonly timestamps: number[] = [];
  readonly values: PointValue[] = [];
  readonly kinds: PointKind[] = [];

  get length(): number {
    return this.timestamps.length;
  }

  push(timestamp: number, kind: PointKind, value: PointValue): void {
    this.timestamps.push(timestamp);
    this.kinds.push(kind);
    this.values.push(value);
  }

  appendSlice(slice: Slice, start = 0, end = slice.timestamps.length): void {
    for (let i = start; i < end; i++) {
      this.timestamps.push(slice.timestamps[i]!);
      this.kinds.push(slice.kind);
      switch (slice.kind) {
        case 'string':
          this.values.push(slice.values[i]!);
          break;
        case 'complex':
          this.values.push({ real: slice.values[i]!, imaginary: slice.imaginary[i]! });
          break;
        default: {
          const big = slice.exact === undefined ? undefined : bigExtra(slice.exact[i]!);
          this.values.push(big ?? slice.values[i]!);
        }
      }
    }
  }
}
