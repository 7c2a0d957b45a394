/**
 * Filling: gives every series of an answer the same timestamps (the union of theirs), so clients that join series
 * into one frame (Grafana) see no ragged fields. Missing points become null, zero, or the series' previous point.
 */
import type { RequestBudget } from './budget.js';
import { PointList } from './point-list.js';

export type FillMode = 'none' | 'null' | 'zero' | 'previous';

/**
 * Returns one list per input, in the same order; `order` is the answer's time order. The points it makes up are
 * points returned like any other: a thousand sparse series filled to each other's timestamps are a million points.
 */
export function fillPoints(
  lists: readonly PointList[],
  mode: FillMode,
  order: 'asc' | 'desc',
  budget?: RequestBudget,
): PointList[] {
  if (mode === 'none' || lists.length === 0) return [...lists];
  const union = [...new Set(lists.flatMap((list) => list.timestamps))].sort((a, b) =>
    order === 'asc' ? a - b : b - a,
  );
  return lists.map((list) => {
    const out = new PointList();
    let i = 0;
    let previous = -1;
    for (const t of union) {
      // A series may hold several points at one time (merged series are not de-duplicated): keep them all.
      let found = false;
      while (i < list.length && list.timestamps[i] === t) {
        out.push(t, list.kinds[i]!, list.values[i]!);
        previous = i++;
        found = true;
      }
      if (found) continue;
      if (mode === 'null' || (mode === 'previous' && previous < 0)) out.push(t, 'null', null);
      else if (mode === 'zero') out.push(t, 'double', 0);
      else out.push(t, list.kinds[previous]!, list.values[previous]!);
    }
    budget?.addReturned(out.length - list.length);
    return out;
  });
}
