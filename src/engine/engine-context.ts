/**
 * What one query runs with: the source it reads, the request's loaders, budgets and statistics, its clock, signal and
 * lane, its reads ahead, and the results cache.
 */
import type { IndexLoaders } from '../sources/index-loaders.js';
import type { ReadAheadBudget } from '../lib/queued-scan.js';
import type { Source } from '../sources/source.js';
import type { Budgets, QueryStats, RequestBudget } from './budget.js';
import type { BucketCache } from './bucket-cache.js';
import type { Lane } from '../lib/time-slice.js';
import type { TraceSpan } from '../lib/trace.js';

export interface EngineContext {
  /** Where the query's series live (the request resolved the query's `source`); save_as writes there too. */
  readonly source: Source;
  /** The request's index loaders. */
  readonly index: IndexLoaders;
  readonly budgets: Budgets;
  /** What the whole request may still spend; shared by every query of the request. */
  readonly request: RequestBudget;
  /** Filled by the engine: series matched, partitions and points read, points returned, scans, ms per phase. */
  readonly stats: QueryStats;
  /** The request's clock: gaps mark empty ranges up to min(end, now). */
  readonly nowMs: number;
  readonly signal?: AbortSignal;
  /** The request's lane for turns on the thread (lib/time-slice.ts); work outside a request shares one. */
  readonly lane?: Lane;
  /** The query's span: its stages (plan, read and aggregate) are its children. */
  readonly trace?: TraceSpan;
  /** Points per scanned page (tests use 1 to show answers do not depend on it). */
  readonly pageSize?: number;
  /** First reads a merge keeps in flight when it reaches several partitions at once (default: the source's concurrentReads). */
  readonly concurrency?: number;
  /** Partition scans started ahead of the one read, when series are read one after another (default: the source's). */
  readonly readAhead?: number;
  /**
   * Points the request may hold read ahead of its queries, shared by all of them (read-ahead.ts); a query without one
   * gets one of its own of DEFAULT_READ_AHEAD_POINTS.
   */
  readonly readAheadBudget?: ReadAheadBudget;
  /**
   * The results cache: complete ranges of qualifying pipelines are taken from it and kept in it, and only the rest is
   * read from the store. Answers are the same with it and without it (bucket-cache.ts says which pipelines qualify).
   */
  readonly cache?: BucketCache;
}
