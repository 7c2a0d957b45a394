/**
 * Points an accumulator keeps whole (first, last, the first two of least_squares): per slot, the timestamp, kind,
 * number, extra and series rank, with KairosDB's stream order to pick among them.
 */
import type { Slice } from '../../model/series.js';
import type { PointKind } from '../point-list.js';
import { bigExtra } from '../point-list.js';
import { compareInStream, tieValue, type Extra, type Order, type PointSink } from '../points.js';
import { growArray, growFloat64 } from './slots.js';

export class KeptPoints {
  private ts = new Float64Array(16);
  private num = new Float64Array(16);
  private rank = new Float64Array(16);
  private kind: PointKind[] = [];
  private extra: Extra[] = [];
  private present: boolean[] = [];

  constructor(private readonly order: Order) {}

  clear(slot: number): void {
    this.ts = growFloat64(this.ts, slot);
    this.num = growFloat64(this.num, slot);
    this.rank = growFloat64(this.rank, slot);
    growArray(this.kind, slot, 'null');
    growArray(this.extra, slot, undefined);
    growArray(this.present, slot, false);
    this.present[slot] = false;
    this.extra[slot] = undefined;
  }

  has(slot: number): boolean {
    return this.present[slot]!;
  }

  timestamp(slot: number): number {
    return this.ts[slot]!;
  }

  set(slot: number, ts: number, kind: PointKind, num: number, extra: Extra, rank: number): void {
    this.ts[slot] = ts;
    this.kind[slot] = kind;
    this.num[slot] = num;
    this.extra[slot] = extra;
    this.rank[slot] = rank;
    this.present[slot] = true;
  }

  setFromSlice(slot: number, slice: Slice, i: number, rank: number): void {
    const ts = slice.timestamps[i]!;
    switch (slice.kind) {
      case 'string':
        return this.set(slot, ts, 'string', 0, slice.values[i]!, rank);
      case 'complex':
        return this.set(slot, ts, 'complex', slice.values[i]!, slice.imaginary[i]!, rank);
      default:
        return this.set(
          slot,
          ts,
          slice.kind,
          slice.values[i]!,
          slice.exact === undefined ? undefined : bigExtra(slice.exact[i]!),
          rank,
        );
    }
  }

  /** Whether (ts, kind, num, rank) comes before the kept point of `slot` in stream order. */
  before(slot: number, ts: number, kind: PointKind, num: number, rank: number): boolean {
    return (
      compareInStream(
        this.order,
        ts,
        tieValue(kind, num),
        rank,
        this.ts[slot]!,
        tieValue(this.kind[slot]!, this.num[slot]!),
        this.rank[slot]!,
      ) < 0
    );
  }

  /** Same question for point i of a slice. */
  sliceBefore(slot: number, slice: Slice, i: number, rank: number): boolean {
    const num = slice.kind === 'string' ? 0 : slice.values[i]!;
    return this.before(slot, slice.timestamps[i]!, slice.kind, num, rank);
  }

  emit(slot: number, ts: number, out: PointSink): void {
    out.point(ts, this.kind[slot]!, this.num[slot]!, this.extra[slot]);
  }

  /** Whether this store's point of `slot` comes before the other store's point of the same slot. */
  precedes(slot: number, other: KeptPoints): boolean {
    return other.before(slot, this.ts[slot]!, this.kind[slot]!, this.num[slot]!, this.rank[slot]!);
  }
}

/** The index of a run's point that comes first (or last) in stream order: runs are monotone in time. */
export function runEnd(slice: Slice, from: number, to: number, order: Order, first: boolean): number {
  const ts = slice.timestamps;
  const ascending = ts[from]! <= ts[to - 1]!;
  return (ascending === (order === 'asc')) === first ? from : to - 1;
}
