/**
 * What changed between two answers of a live series: the earliest time they differ and the points a change carries
 * from it. Pure list arithmetic, apart from the subscriptions' bookkeeping (live-queries.ts) so that it is tested on
 * its own.
 */
import type { PointList } from '../engine/point-list.js';

/**
 * The earliest time at which two answers of a series differ, undefined when they are the same. Points are compared
 * oldest first (whatever the query's order): the client keeps the points before that time and takes the rest.
 */
export function firstDifference(before: PointList, after: PointList): number | undefined {
  const a = ascending(before);
  const b = ascending(after);
  const n = Math.max(before.length, after.length);
  for (let k = 0; k < n; k++) {
    const i = a(k);
    const j = b(k);
    if (i === undefined || j === undefined)
      return Math.min(
        i === undefined ? Infinity : before.timestamps[i]!,
        j === undefined ? Infinity : after.timestamps[j]!,
      );
    if (
      before.timestamps[i] !== after.timestamps[j] ||
      before.kinds[i] !== after.kinds[j] ||
      !sameValue(before.values[i], after.values[j])
    ) {
      return Math.min(before.timestamps[i]!, after.timestamps[j]!);
    }
  }
  return undefined;
}

/** The points at or after `fromMs`, in the list's order. */
export function pointsFrom(points: PointList, fromMs: number): PointList {
  const out = new (points.constructor as new () => PointList)();
  for (let i = 0; i < points.length; i++)
    if (points.timestamps[i]! >= fromMs) out.push(points.timestamps[i]!, points.kinds[i]!, points.values[i]!);
  return out;
}

/** Index of the k-th oldest point: lists are ascending or descending by time (the query's order). */
function ascending(points: PointList): (k: number) => number | undefined {
  const n = points.length;
  const descending = n > 1 && points.timestamps[0]! > points.timestamps[n - 1]!;
  return (k) => (k >= n ? undefined : descending ? n - 1 - k : k);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null)
    return JSON.stringify(a) === JSON.stringify(b);
  return false;
}
