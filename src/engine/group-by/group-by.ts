/**
 * Group-bys as the engine runs them: `tag` (and the internal `series`) split a query's series into groups before any
 * point is read; `time`, `value` and `bin` give every point a group id (KairosDB's Grouper). The results they
 * attach to each group are KairosDB's `group_by` JSON, exactly as the REST response needs them.
 */
import type { PointKind } from '../point-list.js';
import type { Extra } from '../points.js';
import type { GroupType } from '../aggregators/aggregator.js';

export type GroupByResult =
  | { readonly name: 'tag'; readonly tags: readonly string[]; readonly group: Readonly<Record<string, string>> }
  | {
      readonly name: 'time';
      readonly range_size: { readonly value: number; readonly unit: string };
      readonly group_count: number;
      readonly group: { readonly group_number: number };
    }
  | { readonly name: 'value'; readonly range_size: number; readonly group: { readonly group_number: number } }
  | { readonly name: 'bin'; readonly bins: readonly number[]; readonly group: { readonly bin_number: number } }
  | { readonly name: 'type'; readonly type: GroupType };

/** A group-by that places each point (time, value, bin). */
export interface PointGrouper {
  /** KairosDB's getGroupId; −1 for a point it cannot place (value and bin on non-numbers). */
  id(ts: number, kind: PointKind, num: number, extra: Extra): number;
  result(id: number): GroupByResult;
}

/** What a query's group-bys compile to. */
export interface GroupBys {
  /** Tag names of the `tag` group-by, in query order; undefined without one. */
  readonly tags: readonly string[] | undefined;
  /** The internal `series` group-by: one group per stored series (tag set). */
  readonly series: boolean;
  /** `time`, `value` and `bin`, in query order. */
  readonly points: readonly PointGrouper[];
}
