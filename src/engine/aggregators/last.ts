/**
 * `last` (LastAggregator): the last point of a range in stream order, its type kept. It keeps its own timestamp
 * unless align_start_time or align_end_time is set (KairosDB moves it only then).
 */
import type { Slice } from '../../store/store.js';
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import { KeptPoints, runEnd } from './kept-points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';
import type { StageEnv } from './aggregator.js';

export const last = defineRange({
  name: 'last',
  accepts: 'any',
  output: 'same',
  nullSafe: true,
  orderFree: true,
  accumulator: () => (env) => new LastAccumulator(env),
});

class LastAccumulator implements RangeAccumulator {
  private readonly kept: KeptPoints;

  constructor(private readonly env: StageEnv) {
    this.kept = new KeptPoints(env.order);
  }

  reset(slot: number): void {
    this.kept.clear(slot);
  }

  run(slot: number, slice: Slice, from: number, to: number, rank: number): void {
    const i = runEnd(slice, from, to, this.env.order, false);
    if (!this.kept.has(slot) || !this.kept.sliceBefore(slot, slice, i, rank)) this.kept.setFromSlice(slot, slice, i, rank);
  }

  point(slot: number, ts: number, kind: PointKind, num: number, extra: Extra, rank: number): void {
    if (!this.kept.has(slot) || !this.kept.before(slot, ts, kind, num, rank)) this.kept.set(slot, ts, kind, num, extra, rank);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    this.kept.emit(slot, range.aligned ? range.returnTs : this.kept.timestamp(slot), out);
  }
}
