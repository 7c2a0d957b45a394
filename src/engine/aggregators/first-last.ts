/**
 * `first` and `last` (FirstAggregator, LastAggregator): the first or last point of a range in stream order, its
 * type kept. first answers at the range's returned time; last keeps its own timestamp unless align_start_time or
 * align_end_time is set (KairosDB moves it only then).
 */
import type { Slice } from '../../model/series.js';
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import type { StageEnv } from './aggregator.js';
import { KeptPoints, runEnd } from './kept-points.js';
import { defineRange, type RangeAccumulator, type RangeInfo } from './range.js';

export const first = defineRange({
  name: 'first',
  accepts: 'any',
  output: 'same',
  nullSafe: true,
  orderFree: true,
  accumulator: () => (env) => new EdgeAccumulator(env, true),
});

export const last = defineRange({
  name: 'last',
  accepts: 'any',
  output: 'same',
  nullSafe: true,
  orderFree: true,
  accumulator: () => (env) => new EdgeAccumulator(env, false),
});

/** Keeps the point that comes first (or last) in stream order; on a tie first keeps the earlier arrival, last the later. */
class EdgeAccumulator implements RangeAccumulator {
  private readonly kept: KeptPoints;

  constructor(
    private readonly env: StageEnv,
    private readonly first: boolean,
  ) {
    this.kept = new KeptPoints(env.order);
  }

  reset(slot: number): void {
    this.kept.clear(slot);
  }

  run(slot: number, slice: Slice, from: number, to: number, rank: number): void {
    const i = runEnd(slice, from, to, this.env.order, this.first);
    if (!this.kept.has(slot) || this.kept.sliceBefore(slot, slice, i, rank) === this.first)
      this.kept.setFromSlice(slot, slice, i, rank);
  }

  point(slot: number, ts: number, kind: PointKind, num: number, extra: Extra, rank: number): void {
    if (!this.kept.has(slot) || this.kept.before(slot, ts, kind, num, rank) === this.first)
      this.kept.set(slot, ts, kind, num, extra, rank);
  }

  emit(slot: number, range: RangeInfo, out: PointSink): void {
    const ts = this.first || range.aligned ? range.returnTs : this.kept.timestamp(slot);
    this.kept.emit(slot, ts, out);
  }
}
