/**
 * `percentile` (PercentileAggregator): KairosDB's estimate over sorted values, pos = p·(n+1), the minimum below
 * pos 1, the maximum from pos n, linear interpolation between ranks ⌊pos⌋−1 and ⌊pos⌋ otherwise. KairosDB samples a
 * random reservoir of 1028 values, so large ranges give a different answer on every run. Here a range of up to
 * 1028 values is exact, and a larger one goes into a QuantileSketch: bounded memory, the same answer every time,
 * each rank's value within 0.5%.
 */
import { InputError } from '../../model/errors.js';
import type { NumberSlice } from '../../model/series.js';
import type { PointSink } from '../points.js';
import { QuantileSketch } from './quantile-sketch.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

/** KairosDB's reservoir size: up to this many values a range is exact. */
const EXACT_PERCENTILE_LIMIT = 1028;

export const percentile = defineRange({
  name: 'percentile',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  params: [{ name: 'percentile', type: 'number', required: true }],
  accumulator: (p) => {
    const q = p.number('percentile');
    // KairosDB accepts 1 (each range's maximum); only its UI says < 1.
    if (!(q > 0 && q <= 1))
      throw new InputError(p.field('percentile'), p.value('percentile'), 'must be greater than 0 and at most 1');
    return () => new PercentileAccumulator(q);
  },
});

class PercentileAccumulator implements RangeAccumulator {
  private counts = new Float64Array(16);
  private exact: (Float64Array | undefined)[] = [];
  private sketches: (QuantileSketch | undefined)[] = [];

  constructor(private readonly q: number) {}

  reset(slot: number): void {
    this.counts = growFloat64(this.counts, slot);
    this.counts[slot] = 0;
    this.exact[slot] = undefined;
    this.sketches[slot] = undefined;
  }

  run(slot: number, slice: NumberSlice, from: number, to: number): void {
    const values = slice.values;
    for (let i = from; i < to; i++) this.add(slot, values[i]!);
  }

  point(slot: number, _ts: number, _kind: string, num: number): void {
    this.add(slot, num);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    const n = this.counts[slot]!;
    const sketch = this.sketches[slot];
    let valueAt: (rank: number) => number;
    if (sketch !== undefined) {
      valueAt = (rank) => sketch.valueAt(rank);
    } else {
      const sorted = this.exact[slot]!.subarray(0, n).sort();
      valueAt = (rank) => sorted[rank]!;
    }
    const pos = this.q * (n + 1);
    let value: number;
    if (pos < 1) value = valueAt(0);
    else if (pos >= n) value = valueAt(n - 1);
    else {
      const lower = valueAt(Math.floor(pos) - 1);
      const upper = valueAt(Math.floor(pos));
      value = lower + (pos - Math.floor(pos)) * (upper - lower);
    }
    // The range is done; its values need not outlive it.
    this.exact[slot] = undefined;
    this.sketches[slot] = undefined;
    out.point(range.returnTs, 'double', value, undefined);
  }

  private add(slot: number, value: number): void {
    const n = this.counts[slot]!++;
    const sketch = this.sketches[slot];
    if (sketch !== undefined) {
      sketch.add(value);
      return;
    }
    let buffer = this.exact[slot];
    if (n === EXACT_PERCENTILE_LIMIT) {
      const moved = new QuantileSketch();
      for (let i = 0; i < n; i++) moved.add(buffer![i]!);
      moved.add(value);
      this.sketches[slot] = moved;
      this.exact[slot] = undefined;
      return;
    }
    if (buffer === undefined || n === buffer.length) {
      const grown = new Float64Array(Math.min(EXACT_PERCENTILE_LIMIT, Math.max(8, n * 2)));
      if (buffer !== undefined) grown.set(buffer);
      this.exact[slot] = buffer = grown;
    }
    buffer[n] = value;
  }
}
