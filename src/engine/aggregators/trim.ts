/** `trim` (TrimAggregator): drops the first, the last, or both the first and last points of the stream. */
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import { defineStream, PointStage } from './stream.js';

type Trim = 'first' | 'last' | 'both';

export const trim = defineStream({
  name: 'trim',
  accepts: 'any',
  output: 'same',
  nullSafe: true,
  params: [{ name: 'trim', type: 'enum', options: ['first', 'last', 'both'], required: true }],
  compile: (p) => {
    const which = p.option<Trim>('trim');
    return (_env, next) => new TrimStage(next, which !== 'last', which !== 'first');
  },
});

/** Holds one point back so the last one can be dropped at the end. */
class TrimStage extends PointStage {
  private skipFirst: boolean;
  private held = false;
  private ts = 0;
  private kind: PointKind = 'null';
  private num = 0;
  private extra: Extra;

  constructor(
    next: PointSink,
    dropFirst: boolean,
    private readonly dropLast: boolean,
  ) {
    super(next);
    this.skipFirst = dropFirst;
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    if (this.skipFirst) {
      this.skipFirst = false;
      return;
    }
    if (!this.dropLast) {
      this.next.point(ts, kind, num, extra);
      return;
    }
    if (this.held) this.next.point(this.ts, this.kind, this.num, this.extra);
    this.held = true;
    this.ts = ts;
    this.kind = kind;
    this.num = num;
    this.extra = extra;
  }
}
