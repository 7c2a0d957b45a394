/** `avg` (AvgAggregator): sum / count of a range's values (longs count too), as a double. */
import type { NumberSlice } from '../../model/series.js';
import type { PointSink } from '../points.js';
import { defineRange, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';
import { SumAccumulator } from './sum.js';

export const avg = defineRange({
  name: 'avg',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => () => new AvgAccumulator(),
});

class AvgAccumulator extends SumAccumulator {
  private count = new Float64Array(16);

  override reset(slot: number): void {
    super.reset(slot);
    this.count = growFloat64(this.count, slot);
    this.count[slot] = 0;
  }

  override run(slot: number, slice: NumberSlice, from: number, to: number): void {
    super.run(slot, slice, from, to);
    this.count[slot]! += to - from;
  }

  override point(slot: number, ts: number, kind: string, num: number): void {
    super.point(slot, ts, kind, num);
    this.count[slot]!++;
  }

  override emit(slot: number, range: RangeInfo, out: PointSink): void {
    out.point(range.returnTs, 'double', this.total(slot) / this.count[slot]!, undefined);
  }
}
