/**
 * `value` (ValueGroupBy): id = value / range_size with Java's integer arithmetic: a long divides then narrows to int,
 * a double narrows to int first (saturating, NaN to 0) then divides. Non-numbers get −1.
 */
import type { PointKind } from '../point-list.js';
import type { Extra } from '../points.js';
import type { GroupByResult, PointGrouper } from './group-by.js';

export class ValueGrouper implements PointGrouper {
  private readonly bigRangeSize: bigint;

  constructor(private readonly rangeSize: number) {
    this.bigRangeSize = BigInt(rangeSize);
  }

  id(_ts: number, kind: PointKind, num: number, extra: Extra): number {
    if (kind === 'long') {
      if (typeof extra === 'bigint') return Number(BigInt.asIntN(32, extra / this.bigRangeSize));
      return Math.trunc(num / this.rangeSize) | 0;
    }
    if (kind === 'double') return Math.trunc(javaIntCast(num) / this.rangeSize) | 0;
    return -1;
  }

  result(id: number): GroupByResult {
    return { name: 'value', range_size: this.rangeSize, group: { group_number: id } };
  }
}

/** Java's (int) cast of a double. */
function javaIntCast(value: number): number {
  if (Number.isNaN(value)) return 0;
  if (value >= 2_147_483_647) return 2_147_483_647;
  if (value <= -2_147_483_648) return -2_147_483_648;
  return Math.trunc(value);
}
