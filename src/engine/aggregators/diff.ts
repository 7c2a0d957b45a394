/** `diff` (DiffAggregator): v1 − v0 at t1 for consecutive points in stream order; equal times are fine. */
import type { PointKind } from '../point-list.js';
import { defineStream, PointStage } from './stream.js';

export const diff = defineStream({
  name: 'diff',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [],
  compile: () => (_env, next) => new DiffStage(next),
});

class DiffStage extends PointStage {
  private started = false;
  private previous = 0;

  point(ts: number, _kind: PointKind, num: number): void {
    if (this.started) this.next.point(ts, 'double', num - this.previous, undefined);
    this.started = true;
    this.previous = num;
  }
}
