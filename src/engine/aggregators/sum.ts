/**
 * `sum` (SumAggregator): the sum of a range's values as a double. Sums are compensated (Neumaier), so adding many
 * values loses no more than the last bit; KairosDB adds plainly.
 */
import type { NumberSlice } from '../../model/series.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import type { PointSink } from '../points.js';
import { growFloat64 } from './slots.js';

export const sum = defineRange({
  name: 'sum',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => () => new SumAccumulator(),
});

/** A compensated running sum per slot; avg builds on it. */
export class SumAccumulator implements RangeAccumulator {
  protected sum = new Float64Array(16);
  protected compensation = new Float64Array(16);

  reset(slot: number): void {
    this.sum = growFloat64(this.sum, slot);
    this.compensation = growFloat64(this.compensation, slot);
    this.sum[slot] = 0;
    this.compensation[slot] = 0;
  }

  run(slot: number, slice: NumberSlice, from: number, to: number): void {
    const values = slice.values;
    let s = this.sum[slot]!;
    let c = this.compensation[slot]!;
    for (let i = from; i < to; i++) {
      const x = values[i]!;
      const t = s + x;
      c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
      s = t;
    }
    this.sum[slot] = s;
    this.compensation[slot] = c;
  }

  point(slot: number, _ts: number, _kind: string, num: number): void {
    const s = this.sum[slot]!;
    const t = s + num;
    this.compensation[slot]! += Math.abs(s) >= Math.abs(num) ? s - t + num : num - t + s;
    this.sum[slot] = t;
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    out.point(range.returnTs, 'double', this.total(slot), undefined);
  }

  protected total(slot: number): number {
    return this.sum[slot]! + this.compensation[slot]!;
  }
}
