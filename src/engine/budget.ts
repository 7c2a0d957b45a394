/**
 * Budgets of one query (series, points read, points returned) and of one whole request (points read, points
 * returned and answer bytes of all its queries together), counted where the engine reads and emits and where
 * answers are written. Going over a query budget is a BudgetExceededError naming it, or, when the caller asked to
 * truncate, a stop reported beside the result; going over a request budget always fails the request. The
 * per-request statistics the engine fills live here too.
 */
import { BudgetExceededError } from '../model/errors.js';
import type { Slice } from '../model/series.js';
import { sliceRange } from './points.js';

export interface Budgets {
  readonly maxSeries: number;
  readonly maxPointsRead: number;
  readonly maxPointsReturned: number;
  /** `error`: fail the query; `truncate`: stop there and report it in QueryOutput.truncated. */
  readonly onExceed: 'error' | 'truncate';
}

export type BudgetName = 'series' | 'points read' | 'points returned';

/** The settings that raise each budget (gateway/config.ts), named in every BudgetExceededError. */
const QUERY_SETTINGS: Readonly<Record<BudgetName, string>> = {
  series: 'MAX_QUERY_SERIES',
  'points read': 'MAX_POINTS_READ',
  'points returned': 'MAX_QUERY_POINTS',
};

export interface RequestLimits {
  readonly maxPointsRead: number;
  readonly maxPointsReturned: number;
  readonly maxAnswerBytes: number;
}

type RequestBudgetName = 'points read' | 'points returned' | 'answer bytes';

const REQUEST_SETTINGS: Readonly<Record<RequestBudgetName, string>> = {
  'points read': 'MAX_REQUEST_POINTS_READ',
  'points returned': 'MAX_REQUEST_POINTS',
  'answer bytes': 'MAX_RESPONSE_BYTES',
};

/**
 * What every query of one request spends together. Several queries of a request run at once (GraphQL resolves
 * aliases concurrently, REST runs a body's metrics together), so one query's own budgets do not bound the request:
 * 120 aliases each within budget once took the whole process down. The first query over a request budget calls
 * `onExceeded`, which aborts the request, so the others stop at their next slice and their points are let go.
 */
export class RequestBudget {
  pointsRead = 0;
  pointsReturned = 0;
  answerBytes = 0;

  constructor(
    readonly limits: RequestLimits,
    private readonly onExceeded: (error: BudgetExceededError) => void = () => {},
  ) {}

  addRead(count: number): void {
    this.pointsRead += count;
    if (this.pointsRead > this.limits.maxPointsRead) this.fail('points read', this.limits.maxPointsRead);
  }

  addReturned(count: number): void {
    this.pointsReturned += count;
    if (this.pointsReturned > this.limits.maxPointsReturned)
      this.fail('points returned', this.limits.maxPointsReturned);
  }

  addAnswerBytes(count: number): void {
    this.answerBytes += count;
    if (this.answerBytes > this.limits.maxAnswerBytes) this.fail('answer bytes', this.limits.maxAnswerBytes);
  }

  private fail(budget: RequestBudgetName, limit: number): never {
    const error = new BudgetExceededError('request', budget, limit, REQUEST_SETTINGS[budget]);
    this.onExceeded(error);
    throw error;
  }
}

/** A request without limits of its own: engine callers outside a request (benchmarks, the golden runner). */
export function unlimitedRequest(): RequestBudget {
  return new RequestBudget({ maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: Infinity });
}

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
  /** Ranges of the results cache answered from it, and ranges it could keep that were read from the store. */
  cacheHits: number;
  cacheMisses: number;
  /** Raw points the cached ranges stand for: in the answer's sample size, never in `pointsRead`. */
  cachedPoints: number;
  /** 1 when the answer is another request's run of the identical query, which this one waited for. */
  shared: number;
}

export function newQueryStats(): QueryStats {
  return {
    rowTimes: 0,
    seriesMatched: 0,
    partitionsRead: 0,
    pointsRead: 0,
    pointsReturned: 0,
    scans: 0,
    planMs: 0,
    fetchAggregateMs: 0,
    cacheHits: 0,
    cacheMisses: 0,
    cachedPoints: 0,
    shared: 0,
  };
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
    private readonly request: RequestBudget,
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
    this.request.addRead(allowed);
    if (allowed === n) return slice;
    return allowed === 0 ? undefined : sliceRange(slice, 0, allowed);
  };

  /**
   * Counts the raw points of ranges answered from the results cache. They are not read, but the answer covers
   * them (its sample size counts them), so they count against the points-read budgets as if read: a query passes or
   * fails its budgets the same way whether the cache is warm or cold.
   */
  chargeCached(count: number): void {
    const allowed = this.admit('points read', this.budgets.maxPointsRead, this.pointsRead, count);
    this.pointsRead += allowed;
    this.stats.cachedPoints += allowed;
    this.request.addRead(allowed);
  }

  /** Counts points going into results; returns how many of `count` may. */
  admitReturned(count: number): number {
    const allowed = this.admit('points returned', this.budgets.maxPointsReturned, this.pointsReturned, count);
    this.pointsReturned += allowed;
    this.stats.pointsReturned += allowed;
    this.request.addReturned(allowed);
    return allowed;
  }

  /** Counts a point a stage makes up (gaps): they are bounded by the points-returned budget too. */
  generate(): boolean {
    const allowed = this.admit('points returned', this.budgets.maxPointsReturned, this.generated, 1);
    // The request counts them where they leave the pipeline (admitReturned), like every other point.
    this.generated += allowed;
    return allowed === 1;
  }

  private admit(budget: BudgetName, limit: number, used: number, wanted: number, stops = true): number {
    if (used + wanted <= limit) return wanted;
    if (this.budgets.onExceed === 'error')
      throw new BudgetExceededError('query', budget, limit, QUERY_SETTINGS[budget]);
    this.truncated ??= { budget, limit };
    this.stopped ||= stops;
    return Math.max(0, limit - used);
  }
}
