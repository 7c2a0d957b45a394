/** `scale` (ScaleAggregator): each value times `factor`, as a double. */
import type { PointKind } from '../point-list.js';
import type { PointSink } from '../points.js';
import { defineStream, PointStage } from './stream.js';

export const scale = defineStream({
  name: 'scale',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [{ name: 'factor', type: 'number', required: true }],
  compile: (p) => {
    const factor = p.number('factor');
    return (_env, next) => new ScaleStage(next, factor);
  },
});

class ScaleStage extends PointStage {
  constructor(
    next: PointSink,
    private readonly factor: number,
  ) {
    super(next);
  }

  point(ts: number, _kind: PointKind, num: number): void {
    this.next.point(ts, 'double', num * this.factor, undefined);
  }
}
