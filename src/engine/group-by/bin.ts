/** `bin` (BinGroupBy): below bins[0] is 0, [bins[i], bins[i+1]) is i+1, from the last bin on is n; non-numbers −1. */
import type { PointKind } from '../point-list.js';
import type { GroupByResult, PointGrouper } from './group-by.js';

export class BinGrouper implements PointGrouper {
  constructor(private readonly bins: readonly number[]) {}

  id(_ts: number, kind: PointKind, num: number): number {
    if (kind !== 'long' && kind !== 'double') return -1;
    const bins = this.bins;
    if (num < bins[0]!) return 0;
    for (let i = 0; i < bins.length - 1; i++) if (num >= bins[i]! && num < bins[i + 1]!) return i + 1;
    return bins.length;
  }

  result(id: number): GroupByResult {
    return { name: 'bin', bins: this.bins, group: { bin_number: id } };
  }
}
