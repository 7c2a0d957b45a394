/**
 * What a live query's subscribers are sent: a snapshot of an answer, or the changes of its series since given times,
 * built from the computation's latest answer (src/sharing/live-queries.ts).
 */
import type { PointList } from '../engine/point-list.js';
import { pointsFrom } from './live-diff.js';

/** A series of an answer: whatever the front end keeps, with its points. */
export interface LiveItem {
  readonly points: PointList;
}

/** One run of a live query: its answer and what it cost. */
export interface LiveAnswer<T extends LiveItem> {
  readonly series: readonly T[];
  readonly startMs: number;
  readonly endMs: number;
  /** The request statistics of the run, handed to subscribers with the update it produced. */
  readonly statistics: unknown;
  /** The window moved forward: every subscriber gets the whole answer again. */
  readonly reanchored?: boolean;
}

/** What a front end hands over to subscribe: identical keys share one computation. */
export interface LiveQuery<T extends LiveItem> {
  /** Everything the answer depends on (the arguments as given, relative times unresolved, and the source). */
  readonly key: string;
  /** The scopes of the metrics it reads (`metricScope`): a write through the gateway to one runs the query at once. */
  readonly scopes: readonly string[];
  /** Runs the query over the fresh edge. */
  run(): Promise<LiveAnswer<T>>;
  /** The identity of a series across runs (its group, not its position). */
  seriesKey(item: T): string;
}

export interface LiveChange<T extends LiveItem> {
  readonly key: string;
  /** Points of the series at or after this time are replaced by `points`; null in a snapshot (the whole series). */
  readonly fromMs: number | null;
  readonly series: T;
  /** The points of `series` that the change carries (all of them in a snapshot). */
  readonly points: PointList;
}

export interface LiveUpdate<T extends LiveItem> {
  readonly kind: 'SNAPSHOT' | 'UPDATE';
  readonly startMs: number;
  readonly endMs: number;
  readonly changes: readonly LiveChange<T>[];
  /** Series of the last update that the answer no longer has. */
  readonly removed: readonly string[];
  readonly statistics: unknown;
}

/** An answer with its series by key. */
export interface AnswerOf<T extends LiveItem> {
  readonly answer: LiveAnswer<T>;
  readonly byKey: ReadonlyMap<string, T>;
}

/** The whole answer, as a subscriber that needs a snapshot is sent it. */
export function snapshotUpdate<T extends LiveItem>({ answer, byKey }: AnswerOf<T>): LiveUpdate<T> {
  return {
    kind: 'SNAPSHOT',
    ...base(answer),
    changes: [...byKey].map(([key, series]) => ({ key, fromMs: null, series, points: series.points })),
    removed: [],
  };
}

function base(answer: LiveAnswer<LiveItem>): Pick<LiveUpdate<LiveItem>, 'startMs' | 'endMs' | 'statistics'> {
  return { startMs: answer.startMs, endMs: answer.endMs, statistics: answer.statistics };
}

/** An update of the series changed since the given times, and of those removed, from an answer. */
export function changesUpdate<T extends LiveItem>(
  { answer, byKey }: AnswerOf<T>,
  changed: ReadonlyMap<string, number>,
  removed: readonly string[],
): LiveUpdate<T> {
  const changes: LiveChange<T>[] = [];
  for (const [key, fromMs] of changed) {
    const series = byKey.get(key);
    if (series !== undefined) changes.push({ key, fromMs, series, points: pointsFrom(series.points, fromMs) });
  }
  return { kind: 'UPDATE', ...base(answer), changes, removed };
}
