/** `first` (FirstAggregator): the first point of a range in stream order, its type kept, at the returned time. */
import type { Slice } from '../../store/store.js';
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import { KeptPoints, runEnd } from './kept-points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import type { StageEnv } from './aggregator.js';

export const first = defineRange({
  name: 'first',
  accepts: 'any',
  output: 'same',
  nullSafe: true,
  orderFree: true,
  accumulator: () => (env) => new FirstAccumulator(env),
});

class FirstAccumulator implements RangeAccumulator {
  private readonly kept: KeptPoints;

  constructor(private readonly env: StageEnv) {
    this.kept = new KeptPoints(env.order);
  }

  reset(slot: number): void {
    this.kept.clear(slot);
  }

  run(slot: number, slice: Slice, from: number, to: number, rank: number): void {
    const i = runEnd(slice, from, to, this.env.order, true);
    if (!this.kept.has(slot) || this.kept.sliceBefore(slot, slice, i, rank)) this.kept.setFromSlice(slot, slice, i, rank);
  }

  point(slot: number, ts: number, kind: PointKind, num: number, extra: Extra, rank: number): void {
    if (!this.kept.has(slot) || this.kept.before(slot, ts, kind, num, rank)) this.kept.set(slot, ts, kind, num, extra, rank);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    this.kept.emit(slot, range.returnTs, out);
  }
}
