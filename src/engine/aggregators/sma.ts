/**
 * `sma` (SmaAggregator): simple moving average over the last `size` points. The first size−1 points only fill the
 * window; each later point gives the mean of the window at its own time. The sum is taken over the window, oldest
 * first, for every point, as KairosDB does, so the numbers match its numbers exactly.
 */
import type { PointKind } from '../point-list.js';
import type { PointSink } from '../points.js';
import { defineStream, PointStage } from './stream.js';

export const sma = defineStream({
  name: 'sma',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [{ name: 'size', type: 'integer', required: true }],
  compile: (p) => {
    const size = p.integer('size', 1, 1_000_000);
    return (_env, next) => new SmaStage(next, size);
  },
});

class SmaStage extends PointStage {
  private readonly window: Float64Array;
  private seen = 0;

  constructor(
    next: PointSink,
    private readonly size: number,
  ) {
    super(next);
    this.window = new Float64Array(size);
  }

  point(ts: number, _kind: PointKind, num: number): void {
    const size = this.size;
    this.window[this.seen % size] = num;
    this.seen++;
    if (this.seen < size) return;
    let sum = 0;
    for (let i = this.seen - size; i < this.seen; i++) sum += this.window[i % size]!;
    this.next.point(ts, 'double', sum / size, undefined);
  }
}
