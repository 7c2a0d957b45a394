/** `max` and `min` (MaxAggregator, MinAggregator): the largest or smallest value of a range, as a double. */
import type { NumberSlice } from '../../model/series.js';
import type { PointSink } from '../points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

export const max = defineRange({
  name: 'max',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => () => new ExtremeAccumulator(true),
});

export const min = defineRange({
  name: 'min',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => () => new ExtremeAccumulator(false),
});

class ExtremeAccumulator implements RangeAccumulator {
  private best = new Float64Array(16);

  constructor(private readonly max: boolean) {}

  reset(slot: number): void {
    this.best = growFloat64(this.best, slot);
    // KairosDB starts from -Double.MAX_VALUE and Double.MAX_VALUE.
    this.best[slot] = this.max ? -Number.MAX_VALUE : Number.MAX_VALUE;
  }

  run(slot: number, slice: NumberSlice, from: number, to: number): void {
    const values = slice.values;
    let m = this.best[slot]!;
    if (this.max) for (let i = from; i < to; i++) m = Math.max(m, values[i]!);
    else for (let i = from; i < to; i++) m = Math.min(m, values[i]!);
    this.best[slot] = m;
  }

  point(slot: number, _ts: number, _kind: string, num: number): void {
    this.best[slot] = this.max ? Math.max(this.best[slot]!, num) : Math.min(this.best[slot]!, num);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    out.point(range.returnTs, 'double', this.best[slot]!, undefined);
  }
}
