/** `div` (DivideAggregator): each value divided by `divisor`, as a double. A zero divisor is refused up front. */
import { InputError } from '../../model/errors.js';
import type { PointKind } from '../point-list.js';
import type { PointSink } from '../points.js';
import { defineStream, PointStage } from './stream.js';

export const div = defineStream({
  name: 'div',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [{ name: 'divisor', type: 'number', required: true }],
  compile: (p) => {
    const divisor = p.number('divisor');
    if (divisor === 0) throw new InputError(p.field('divisor'), p.value('divisor'), 'must not be zero');
    return (_env, next) => new DivStage(next, divisor);
  },
});

class DivStage extends PointStage {
  constructor(
    next: PointSink,
    private readonly divisor: number,
  ) {
    super(next);
  }

  point(ts: number, _kind: PointKind, num: number): void {
    this.next.point(ts, 'double', num / this.divisor, undefined);
  }
}
