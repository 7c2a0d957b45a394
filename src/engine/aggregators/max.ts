/** `max` (MaxAggregator): the largest value of a range, as a double. */
import type { NumberSlice } from '../../store/store.js';
import type { PointSink } from '../points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

export const max = defineRange({
  name: 'max',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => () => new MaxAccumulator(),
});

class MaxAccumulator implements RangeAccumulator {
  private max = new Float64Array(16);

  reset(slot: number): void {
    this.max = growFloat64(this.max, slot);
    // KairosDB starts from -Double.MAX_VALUE.
    this.max[slot] = -Number.MAX_VALUE;
  }

  run(slot: number, slice: NumberSlice, from: number, to: number): void {
    const values = slice.values;
    let m = this.max[slot]!;
    for (let i = from; i < to; i++) m = Math.max(m, values[i]!);
    this.max[slot] = m;
  }

  point(slot: number, _ts: number, _kind: string, num: number): void {
    this.max[slot] = Math.max(this.max[slot]!, num);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    out.point(range.returnTs, 'double', this.max[slot]!, undefined);
  }
}
