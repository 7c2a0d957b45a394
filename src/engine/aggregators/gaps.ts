/**
 * `gaps` (DataGapsMarkingAggregator), KairosDB's one exhaustive range aggregator: every point passes through, and
 * each empty range gets a null point at its start. Ranges are walked from the query start (or, with trim, from the
 * first point) to min(query end, now) (or, with trim, to the last point).
 */
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import { RangeGrid } from '../range-grid.js';
import type { StageEnv, RangeOptions } from './aggregator.js';
import { RANGE_PARAMS, readRangeOptions } from './range.js';
import { defineStream, PointStage } from './stream.js';

/** Built as a stream stage, not on RangeStage: every point passes on in stream order, null points between them. */
export const gaps = defineStream({
  name: 'gaps',
  accepts: 'any',
  output: 'same',
  nullSafe: true,
  params: RANGE_PARAMS,
  compile: (p, ctx) => {
    const options = readRangeOptions(p, ctx);
    return (env, next) => new GapsStage(options, env, next);
  },
});

class GapsStage extends PointStage {
  private readonly grid: RangeGrid;
  private readonly asc: boolean;
  /** The next range that has not been accounted for, in stream order; undefined until trim sees a point. */
  private expected: number | undefined;

  constructor(
    private readonly options: RangeOptions,
    private readonly env: StageEnv,
    next: PointSink,
  ) {
    super(next);
    this.grid = new RangeGrid(options.anchorMs, options.sampling, options.zone);
    this.asc = env.order === 'asc';
    if (!options.trim) this.expected = this.grid.locate(this.asc ? options.walkStartMs : options.walkEndMs);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    const k = this.grid.locate(ts);
    this.markUntil(k);
    this.next.point(ts, kind, num, extra);
    if (this.asc ? k >= this.expected! : k <= this.expected!) this.expected = this.asc ? k + 1 : k - 1;
  }

  override end(): void {
    if (!this.options.trim && this.expected !== undefined) {
      const last = this.grid.locate(this.asc ? this.options.walkEndMs : this.options.walkStartMs);
      this.markUntil(this.asc ? last + 1 : last - 1);
    }
    this.next.end();
  }

  /** Marks every expected range before range k (in stream order) as empty. */
  private markUntil(k: number): void {
    if (this.expected === undefined) {
      this.expected = k;
      return;
    }
    const step = this.asc ? 1 : -1;
    for (let e = this.expected; this.asc ? e < k : e > k; e += step) {
      if (!this.env.generate()) return;
      this.next.point(this.grid.pointTimeOf(e, this.env.fields.param('sampling')), 'null', Number.NaN, undefined);
      this.expected = e + step;
    }
  }
}
