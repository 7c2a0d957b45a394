/** `min` (MinAggregator): the smallest value of a range, as a double. */
import type { NumberSlice } from '../../store/store.js';
import type { PointSink } from '../points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

export const min = defineRange({
  name: 'min',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => () => new MinAccumulator(),
});

class MinAccumulator implements RangeAccumulator {
  private min = new Float64Array(16);

  reset(slot: number): void {
    this.min = growFloat64(this.min, slot);
    this.min[slot] = Number.MAX_VALUE;
  }

  run(slot: number, slice: NumberSlice, from: number, to: number): void {
    const values = slice.values;
    let m = this.min[slot]!;
    for (let i = from; i < to; i++) m = Math.min(m, values[i]!);
    this.min[slot] = m;
  }

  point(slot: number, _ts: number, _kind: string, num: number): void {
    this.min[slot] = Math.min(this.min[slot]!, num);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    out.point(range.returnTs, 'double', this.min[slot]!, undefined);
  }
}
