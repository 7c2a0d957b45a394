/**
 * The store interface, in the vocabulary of KairosDB's tables (reference §1, §4).
 * The embedded (LMDB) store and the Cassandra store implement it; one conformance suite runs against both.
 */
import type { KeyLimits } from '../model/key-limits.js';
import type { PingReport, SchemaRepairStatus } from '../model/health.js';
import type { ReadOptions } from '../model/read-options.js';
import type { PartitionKey, Slice } from '../model/series.js';
import type { WriteBatch } from '../model/write-batch.js';
import type { ServiceIndex } from '../model/service-index.js';

/** How `data_points` column names are written: from the `spec` table (`row_time_unit`). */
export type RowTimeUnit = 'MILLISECONDS' | 'SECONDS' | 'LEGACY';

/** The `spec` table's two rows. `width` is the raw stored number (ms, or seconds with unit SECONDS). */
export interface RowSpec {
  readonly unit: RowTimeUnit;
  readonly width: number;
}

/** KairosDB's `RowSpec.DEFAULT_ROW_WIDTH`: exactly 21 days in ms. */
export const DEFAULT_ROW_WIDTH_MS = 1_814_400_000;

/** The tags a tag index holds for a metric and row period: all of them, or these (tag-index.ts). */
export type IndexedTags = 'all' | ReadonlySet<string>;

/**
 * The identity of one `data_points` partition (one series in one row period): KairosDB's row key, which the seam's
 * partition key was modelled on. `dataType` is a datastore type string (`kairos_long`, `kairos_double`, ...), or
 * `kairos_legacy` for keys written by KairosDB ≤ 0.9.3; `rowTime` as `rowTimeOf` computes it (format/row-time.ts).
 */
export type RowKey = PartitionKey;

/** How a partition is scanned: the engine's read options, passed on by the KairosDB layout. */
export type ScanOptions = ReadOptions;

/** Series found through a tag index. */
export interface TaggedRowKeys {
  readonly keys: RowKey[];
  /** False when a `limit` left some out. */
  readonly complete: boolean;
}

export interface Store {
  readonly kind: 'embedded' | 'cassandra';

  /**
   * Partition scans the engine keeps started ahead of the one it reads, where it reads them one after another: a
   * store whose reads wait on the network works on the next partitions meanwhile. 0 where a read never waits.
   */
  readonly readAhead: number;

  /**
   * Reads it serves at once to good effect: a merge of many partitions keeps that many first reads in flight (the
   * Cassandra store's request limit; 8 for the embedded store, whose reads never wait, where it only bounds the
   * pages a merge holds while it opens).
   */
  readonly concurrentReads: number;

  /** What its keys can hold; front ends refuse larger names and series before calling the store. */
  readonly limits: KeyLimits;

  /** The row spec, read once (and written as KairosDB does for a fresh keyspace). */
  spec(): Promise<RowSpec>;

  /** `string_index` `metric_names`, sorted, names starting with `prefix`. */
  metricNames(prefix?: string, limit?: number): Promise<string[]>;

  /** `row_key_time_index`: row times of a metric with `rowTimeOf(start) <= rowTime <= end`, ascending. */
  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]>;

  /** `row_keys`: every series of a metric at one row time. */
  rowKeys(metric: string, rowTime: number): Promise<RowKey[]>;

  /**
   * `row_keys` at several row times of a metric, read together (the Cassandra store: one statement for a few, a few
   * at once for many): each row time's series, as rowKeys answers them, in the order of `rowTimes`.
   */
  rowKeysAt(metric: string, rowTimes: readonly number[]): Promise<RowKey[][]>;

  /**
   * The tags whose tag index (KairosDB 1.3's `tag_indexed_row_keys`, or the embedded store's own) lists every series of
   * the metric at that row time that carries them: `tagIndexedRowKeys` may replace `rowKeys` for an exact filter on one
   * of them. An empty set where nothing is indexed, or the period was written before indexing was turned on.
   */
  indexedTags?(metric: string, rowTime: number): Promise<IndexedTags>;

  /**
   * From the tag index: the series of a metric at one row time whose tag `tag` is `value`, at most `limit` of them
   * (`complete` says whether that is all). Only for tags `indexedTags` names for that row time.
   */
  tagIndexedRowKeys?(
    metric: string,
    rowTime: number,
    tag: string,
    value: string,
    limit?: number,
  ): Promise<TaggedRowKeys>;

  /** The legacy `row_key_index` (KairosDB ≤ 1.1) for the row times covering [start, end]. Stores without it return []. */
  legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]>;

  /** Points of one partition with start <= ts <= end (both inclusive), streamed as slices in column order. */
  scan(key: RowKey, startMs: number, endMs: number, options?: ScanOptions): AsyncIterable<Slice>;

  /** Writes a validated batch: index entries before data; resolves only once the store acknowledged all of it. */
  write(batch: WriteBatch): Promise<void>;

  /**
   * Deletes points of one partition with start <= ts <= end. A covered partition is one partition delete and its
   * `row_keys` entry goes too (and the `row_key_time_index` entry once no series is left); otherwise one range delete.
   */
  deleteRange(key: RowKey, startMs: number, endMs: number): Promise<void>;

  /** Removes a metric's name from `string_index` (used after all its data was deleted). */
  deleteMetricName(metric: string): Promise<void>;

  /** KairosDB's `service_index`: the metadata API's values, and KairosDB's own services (named `_...`). */
  readonly serviceIndex: ServiceIndex;

  /**
   * Resolves when the store answers a trivial read, with what it knows of its servers when it has several (GET /ready
   * shows it); rejects with a StoreUnavailableError otherwise.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a store with nothing to report resolves with nothing.
  ping(): Promise<PingReport | void>;

  /** Where the store creates and repairs a schema of its own (the Cassandra store): how that stands. */
  readonly schemaRepair?: SchemaRepairStatus;

  close(): Promise<void>;
}
