/**
 * What executeQuery answers: per query, KairosDB's sample size and result groups (name, group_by results, tag
 * union, points with their types), warnings beside them, and the truncation a budget caused, if any.
 */
import type { Slice } from '../model/series.js';
import type { BudgetTracker, Truncation } from './budget.js';
import type { GroupByResult } from './group-by/group-by.js';
import { PointList, type PointKind } from './point-list.js';
import { pointValue, type Extra, type RunSink } from './points.js';

export interface QueryOutput {
  readonly metric: string;
  readonly alias?: string;
  /** Raw points read from the store (KairosDB's sample_size). */
  readonly sampleSize: number;
  /** KairosDB's order: by type, then tag groups by their key string; point-level groups in first-seen order. */
  readonly groups: readonly GroupOutput[];
  readonly warnings: readonly string[];
  readonly truncated?: Truncation;
}

export interface GroupOutput {
  readonly name: string;
  /** KairosDB's `group_by` results: time/value/bin in query order, then tag, then type. */
  readonly groupBy: readonly GroupByResult[];
  /** Union of tag values of the series merged into the group, sorted; empty when the query excludes tags. */
  readonly tags: Readonly<Record<string, readonly string[]>>;
  /** Raw points read into this group (after the query's limit), before its aggregators. */
  readonly sampleSize: number;
  readonly points: PointList;
}

/** The end of every pipeline: appends to a group's points, within the points-returned budget. */
export class OutputSink implements RunSink {
  readonly points = new PointList();

  constructor(private readonly tracker: BudgetTracker) {}

  run(slice: Slice, from: number, to: number): void {
    const n = this.tracker.admitReturned(to - from);
    if (n > 0) this.points.appendSlice(slice, from, from + n);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    if (this.tracker.admitReturned(1) === 1) this.points.push(ts, kind, pointValue(kind, num, extra));
  }

  end(): void {}
}
