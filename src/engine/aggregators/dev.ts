/**
 * `dev` (StdAggregator): the sample standard deviation (n − 1) of a range, or the mean ± dev_count deviations.
 * Welford's running mean and sum of squares replace KairosDB's power-sum formula, which cancels catastrophically
 * for large values with a small spread; one point (0/0) gives 0, as KairosDB maps its NaN to 0.
 */
import type { NumberSlice } from '../../model/series.js';
import type { PointSink } from '../points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

type ReturnType = 'value' | 'pos_sd' | 'neg_sd';

export const dev = defineRange({
  name: 'dev',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  params: [
    { name: 'return_type', type: 'enum', options: ['value', 'pos_sd', 'neg_sd'], default: 'value' },
    { name: 'dev_count', type: 'integer', default: 1 },
  ],
  accumulator: (p) => {
    const returnType = p.option<ReturnType>('return_type');
    const devCount = p.integer('dev_count', 0);
    return () => new DevAccumulator(returnType, devCount);
  },
});

class DevAccumulator implements RangeAccumulator {
  private n = new Float64Array(16);
  private mean = new Float64Array(16);
  private m2 = new Float64Array(16);

  constructor(
    private readonly returnType: ReturnType,
    private readonly devCount: number,
  ) {}

  reset(slot: number): void {
    this.n = growFloat64(this.n, slot);
    this.mean = growFloat64(this.mean, slot);
    this.m2 = growFloat64(this.m2, slot);
    this.n[slot] = 0;
    this.mean[slot] = 0;
    this.m2[slot] = 0;
  }

  run(slot: number, slice: NumberSlice, from: number, to: number): void {
    const values = slice.values;
    let n = this.n[slot]!;
    let mean = this.mean[slot]!;
    let m2 = this.m2[slot]!;
    for (let i = from; i < to; i++) {
      const x = values[i]!;
      n++;
      const delta = x - mean;
      mean += delta / n;
      m2 += delta * (x - mean);
    }
    this.n[slot] = n;
    this.mean[slot] = mean;
    this.m2[slot] = m2;
  }

  point(slot: number, _ts: number, _kind: string, x: number): void {
    const n = ++this.n[slot]!;
    const delta = x - this.mean[slot]!;
    this.mean[slot]! += delta / n;
    this.m2[slot]! += delta * (x - this.mean[slot]!);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    let sd = Math.sqrt(this.m2[slot]! / (this.n[slot]! - 1));
    if (Number.isNaN(sd)) sd = 0;
    const mean = this.mean[slot]!;
    const value =
      this.returnType === 'pos_sd'
        ? mean + sd * this.devCount
        : this.returnType === 'neg_sd'
          ? mean - sd * this.devCount
          : sd;
    out.point(range.returnTs, 'double', value, undefined);
  }
}
