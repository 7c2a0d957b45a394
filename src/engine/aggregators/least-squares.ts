/**
 * `least_squares` (LeastSquaresAggregator): one point returns itself, two return themselves (types kept), three or
 * more return the fitted line at the range's first and last timestamps, as doubles. The fit runs on timestamps
 * shifted to the range's first arrival, so large epoch values cost no precision; when every point shares one
 * timestamp the slope is taken as 0 (KairosDB would answer NaN, which JSON cannot carry).
 */
import type { NumberSlice } from '../../model/series.js';
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import type { StageEnv } from './aggregator.js';
import { KeptPoints } from './kept-points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import { growFloat64 } from './slots.js';

export const leastSquares = defineRange({
  name: 'least_squares',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  orderFree: true,
  accumulator: () => (env) => new LeastSquaresAccumulator(env),
});

class LeastSquaresAccumulator implements RangeAccumulator {
  private readonly a: KeptPoints;
  private readonly b: KeptPoints;
  private n = new Float64Array(16);
  private base = new Float64Array(16);
  private sx = new Float64Array(16);
  private sy = new Float64Array(16);
  private sxx = new Float64Array(16);
  private sxy = new Float64Array(16);

  constructor(env: StageEnv) {
    this.a = new KeptPoints(env.order);
    this.b = new KeptPoints(env.order);
  }

  reset(slot: number): void {
    this.a.clear(slot);
    this.b.clear(slot);
    for (const name of ['n', 'base', 'sx', 'sy', 'sxx', 'sxy'] as const) {
      this[name] = growFloat64(this[name], slot);
      this[name][slot] = 0;
    }
  }

  run(slot: number, slice: NumberSlice, from: number, to: number, rank: number): void {
    const kept = this.n[slot]!;
    for (let i = from; i < to && kept + i - from < 2; i++)
      (kept + i - from === 0 ? this.a : this.b).setFromSlice(slot, slice, i, rank);
    const ts = slice.timestamps;
    const values = slice.values;
    if (this.n[slot] === 0) this.base[slot] = ts[from]!;
    const base = this.base[slot]!;
    let sx = this.sx[slot]!;
    let sy = this.sy[slot]!;
    let sxx = this.sxx[slot]!;
    let sxy = this.sxy[slot]!;
    for (let i = from; i < to; i++) {
      const x = ts[i]! - base;
      const y = values[i]!;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    this.n[slot]! += to - from;
    this.sx[slot] = sx;
    this.sy[slot] = sy;
    this.sxx[slot] = sxx;
    this.sxy[slot] = sxy;
  }

  point(slot: number, ts: number, kind: PointKind, y: number, extra: Extra, rank: number): void {
    if (this.n[slot]! < 2) (this.n[slot] === 0 ? this.a : this.b).set(slot, ts, kind, y, extra, rank);
    if (this.n[slot] === 0) this.base[slot] = ts;
    const x = ts - this.base[slot]!;
    this.n[slot]!++;
    this.sx[slot]! += x;
    this.sy[slot]! += y;
    this.sxx[slot]! += x * x;
    this.sxy[slot]! += x * y;
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    const n = this.n[slot]!;
    if (n <= 2) {
      // Series arrive one after another, so the second point kept may come first in the stream.
      const [one, two] = n === 2 && this.b.precedes(slot, this.a) ? [this.b, this.a] : [this.a, this.b];
      one.emit(slot, one.timestamp(slot), out);
      if (n === 2) two.emit(slot, two.timestamp(slot), out);
      return;
    }
    const sx = this.sx[slot]!;
    const sy = this.sy[slot]!;
    const denominator = n * this.sxx[slot]! - sx * sx;
    const slope = denominator === 0 ? 0 : (n * this.sxy[slot]! - sx * sy) / denominator;
    const intercept = (sy - slope * sx) / n;
    const base = this.base[slot]!;
    out.point(range.firstTs, 'double', intercept + slope * (range.firstTs - base), undefined);
    out.point(range.lastTs, 'double', intercept + slope * (range.lastTs - base), undefined);
  }
}
