/**
 * Budgets of one query (series, points read, points returned), counted where the engine reads and emits. Going
 * over one is a BudgetExceededError naming it, or, when the caller asked to truncate, a stop reported beside the
 * result. The per-request statistics the engine fills live here too.
 */
import { BudgetExceededError } from '../errors.js';
import type { Slice } from '../store/store.js';
import { sliceRange } from './points.js';

export interface Budgets {
  readonly maxSeries: number;
  readonly maxPointsRead: number;
  readonly maxPointsReturned: number;
  /** `error`: fail the query; `truncate`: stop there and report it in QueryOutput.truncated. */
  readonly onExceed: 'error' | 'truncate';
}

export type BudgetName = 'series' | 'points read' | 'points returned';

/** Counters of a request; executeQuery adds to them, so several queries of one request can share one object. */
export interface QueryStats {
  /** Row periods the plan looked at (each costs one row_keys read, shared within a request). */
  rowTimes: number;
  seriesMatched: number;
  partitionsRead: number;
  pointsRead: number;
  pointsReturned: number;
  scans: number;
  planMs: number;
  fetchAggregateMs: number;
}

export function newQueryStats(): QueryStats {
  return { rowTimes: 0, seriesMatched: 0, partitionsRead: 0, pointsRead: 0, pointsReturned: 0, scans: 0, planMs: 0, fetchAggregateMs: 0 };
}

export interface Truncation {
  readonly budget: BudgetName;
  readonly limit: number;
}

export class BudgetTracker {
  truncated: Truncation | undefined;
  /** Set when the points read or returned were truncated: reading on cannot make the answer whole. */
  stopped = false;
  pointsRead = 0;
  pointsReturned = 0;
  private generated = 0;

  constructor(
    private readonly budgets: Budgets,
    private readonly stats: QueryStats,
  ) {}

  /** How many of `count` series the query may use. */
  admitSeries(count: number): number {
    // Fewer series still make a whole answer about those series: reading goes on.
    return this.admit('series', this.budgets.maxSeries, 0, count, false);
  }

  /** Counts a slice read from the store; returns what of it may be used, or undefined to stop reading. */
  readonly gate = (slice: Slice): Slice | undefined => {
    if (this.stopped) return undefined;
    const n = slice.timestamps.length;
    const allowed = this.admit('points read', this.budgets.maxPointsRead, this.pointsRead, n);
    this.pointsRead += allowed;
    this.stats.pointsRead += allowed;
    if (allowed === n) return slice;
    return allowed === 0 ? undefined : sliceRange(slice, 0, allowed);
  };

  /** Counts points going into results; returns how many of `count` may. */
  admitReturned(count: number): number {
    const allowed = this.admit('points returned', this.budgets.maxPointsReturned, this.pointsReturned, count);
    this.pointsReturned += allowed;
    this.stats.pointsReturned += allowed;
    return allowed;
  }

  /** Counts a point a stage makes up (gaps): they are bounded by the points-returned budget too. */
  generate(): boolean {
    const allowed = this.admit('points returned', this.budgets.maxPointsReturned, this.generated, 1);
    this.generated += allowed;
    return allowed === 1;
  }

  private admit(budget: BudgetName, limit: number, used: number, wanted: number, stops = true): number {
    if (used + wanted <= limit) return wanted;
    if (this.budgets.onExceed === 'error') throw new BudgetExceededError(budget, limit);
    this.truncated ??= { budget, limit };
    this.stopped ||= stops;
    return Math.max(0, limit - used);
  }
}
