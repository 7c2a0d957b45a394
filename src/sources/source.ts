/**
 * The layout seam. A source is a named place where series live; its layout is how one storage design finds series
 * and reads, writes and deletes them. Everything above this seam (planner, engine, budgets, statistics, the results
 * cache and shared work, both front ends) works through a Source and never through a design's tables or stores.
 */
import type { IndexLoaders } from './index-loaders.js';
import type { TimeRange } from '../model/query.js';
import type { SeriesPredicate } from '../model/tag-filter.js';
import type { Lane } from '../lib/time-slice.js';
import type { PingReport } from '../model/health.js';
import type { Partition, Slice } from '../model/series.js';
import type { ReadOptions } from '../model/read-options.js';
import type { Capabilities } from './capabilities.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { WriteBatch } from '../model/write-batch.js';

export interface Source {
  /** How clients name it (GraphQL's `source` argument, statistics, logs). */
  readonly name: string;
  /** The storage design: `kairosdb`. */
  readonly layout: string;
  /** Whether it takes writes and deletes (addPoints, deletePoints, save_as, REST writes). */
  readonly writable: boolean;
  /** What its keys can hold; front ends refuse larger names and series before calling it. */
  readonly limits: KeyLimits;
  /**
   * Partition reads the engine keeps started ahead of the one it reads, where it reads them one after another: a
   * source whose reads wait on the network works on the next partitions meanwhile. 0 where a read never waits.
   */
  readonly readAhead: number;
  /** First reads a merge of many series keeps in flight (Store.concurrentReads for the KairosDB layout). */
  readonly concurrentReads: number;
  /**
   * Names of its index reads, as the request statistics count them (`index.load`'s `read`): every one is reported,
   * zero or not, so a client sees the same keys whatever the request did.
   */
  readonly indexReads: readonly string[];
  /** What it can do beyond the members below, as its layout declares (capabilities.ts). */
  readonly capabilities: Capabilities;

  /** Metric names, sorted, starting with `prefix`; at most `limit` when given. */
  metricNames(prefix: string, limit?: number): Promise<string[]>;

  /**
   * The partitions of `metric`'s series with points in `range` whose tags pass `matches`. Its index reads go through
   * the request's loaders (`index`), so every read of one request is made once, whoever asked.
   */
  findSeries(
    index: IndexLoaders,
    metric: string,
    range: TimeRange,
    matches: SeriesPredicate,
    options?: FindSeriesOptions,
  ): Promise<SeriesPlan>;

  /** Points of one partition with start <= ts <= end (both inclusive), streamed as slices in time order. */
  read(key: Partition, startMs: number, endMs: number, options?: ReadOptions): AsyncIterable<Slice>;

  /** Writes a validated batch; resolves only once all of it is durable. */
  write(batch: WriteBatch): Promise<void>;

  /** Deletes the points of one partition with start <= ts <= end: the whole partition, or a part of it. */
  deleteRange(key: Partition, startMs: number, endMs: number): Promise<DeletedPart>;

  /** Forgets a metric's name (after all its data was deleted). */
  deleteMetricName(metric: string): Promise<void>;

  /** Resolves when the source answers a trivial read (with its store's report, if any); rejects with a StoreUnavailableError otherwise. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a store with nothing to report resolves with nothing.
  ping(): Promise<PingReport | void>;

  close(): Promise<void>;
}

export interface FindSeriesOptions {
  /** Whose turns the work takes on the thread (lib/time-slice.ts): a metric can have a million series. */
  readonly lane?: Lane;
  /**
   * Only the latest this many periods (partitions' time spans) that have data in the range: bounds a lookup that
   * would otherwise walk all history, as REST's `/datapoints/query/tags` asks.
   */
  readonly latestPeriods?: number;
}

export interface SeriesPlan {
  /** Periods of the metric looked up in the range (KairosDB: row times): reported as the query's `rowTimes`. */
  readonly periods: number;
  /** Partitions to read, each once, in the source's order; every one holds points in [rowTime, rowTime + widthMs). */
  readonly partitions: readonly Partition[];
  /** The time span of one partition, in ms. */
  readonly widthMs: number;
  /** Things the caller should know (partitions skipped because their data type cannot be decoded). */
  readonly warnings: readonly string[];
}

/** `partition`: the range covered the partition and it is gone; `range`: a part of it was deleted. */
export type DeletedPart = 'partition' | 'range';
