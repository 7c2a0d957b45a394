/**
 * `filter` (FilterAggregator): drops the points for which `value <filter_op> threshold` holds. A number threshold
 * compares numbers (Java's Double.compareTo; complex points count as 0, as their getDoubleValue is 0); a string
 * threshold compares strings (String.compareTo). A point of the other kind is dropped too: that is what KairosDB's
 * code and its FilterAggregatorTest do (a JSON string such as "10" is a string threshold, as Gson reads it).
 */
import { InputError } from '../../model/errors.js';
import type { PointKind } from '../point-list.js';
import { compareDoubles, compareStrings, type Extra, type PointSink } from '../points.js';
import { defineStream, PointStage } from './stream.js';

type FilterOp = 'lte' | 'lt' | 'gte' | 'gt' | 'equal' | 'ne';

const DROPS: Record<FilterOp, (c: number) => boolean> = {
  lte: (c) => c <= 0,
  lt: (c) => c < 0,
  gte: (c) => c >= 0,
  gt: (c) => c > 0,
  equal: (c) => c === 0,
  ne: (c) => c !== 0,
};

export const filter = defineStream({
  name: 'filter',
  accepts: 'any',
  output: 'same',
  nullSafe: false,
  params: [
    { name: 'filter_op', type: 'enum', options: ['lte', 'lt', 'gte', 'gt', 'equal', 'ne'], required: true },
    { name: 'threshold', type: 'number or string', default: 0 },
  ],
  compile: (p) => {
    const drops = DROPS[p.option<FilterOp>('filter_op')];
    const threshold = p.value('threshold');
    if (!(typeof threshold === 'string' || (typeof threshold === 'number' && Number.isFinite(threshold)))) {
      throw new InputError(p.field('threshold'), threshold, 'must be a finite number or a string');
    }
    return (_env, next) => new FilterStage(next, drops, threshold);
  },
});

class FilterStage extends PointStage {
  constructor(
    next: PointSink,
    private readonly drops: (comparison: number) => boolean,
    private readonly threshold: number | string,
  ) {
    super(next);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    let keep: boolean;
    if (typeof this.threshold === 'string') {
      keep = kind === 'string' && !this.drops(compareStrings(extra as string, this.threshold));
    } else {
      keep = kind !== 'string' && !this.drops(compareDoubles(kind === 'complex' ? 0 : num, this.threshold));
    }
    if (keep) this.next.point(ts, kind, num, extra);
  }
}
