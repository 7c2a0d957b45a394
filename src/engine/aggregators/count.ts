/** `count` (CountAggregator): the number of points in a range, of any type (null points too), as a long. */
import type { PointSink } from '../points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

export const count = defineRange({
  name: 'count',
  accepts: 'any',
  output: 'number',
  nullSafe: true,
  orderFree: true,
  accumulator: () => () => new CountAccumulator(),
});

class CountAccumulator implements RangeAccumulator {
  private count = new Float64Array(16);

  reset(slot: number): void {
    this.count = growFloat64(this.count, slot);
    this.count[slot] = 0;
  }

  run(slot: number, _slice: unknown, from: number, to: number): void {
    this.count[slot]! += to - from;
  }

  point(slot: number): void {
    this.count[slot]!++;
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    out.point(range.returnTs, 'long', this.count[slot]!, undefined);
  }
}
