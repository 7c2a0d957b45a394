/**
 * The store interface, in the vocabulary of KairosDB's tables (reference §1, §4).
 * The embedded (LMDB) store and the Cassandra store implement it; one conformance suite runs against both.
 */
import type { ReadAheadBudget } from './queued-scan.js';

/** How `data_points` column names are written: from the `spec` table (`row_time_unit`). */
export type RowTimeUnit = 'MILLISECONDS' | 'SECONDS' | 'LEGACY';

/** The `spec` table's two rows. `width` is the raw stored number (ms, or seconds with unit SECONDS). */
export interface RowSpec {
  readonly unit: RowTimeUnit;
  readonly width: number;
}

/** KairosDB's `RowSpec.DEFAULT_ROW_WIDTH`: exactly 21 days in ms. */
export const DEFAULT_ROW_WIDTH_MS = 1_814_400_000;

export type Tags = Readonly<Record<string, string>>;

/** The tags a tag index holds for a metric and row period: all of them, or these (tag-index.ts). */
export type IndexedTags = 'all' | ReadonlySet<string>;

/** The identity of one `data_points` partition (one series in one row period). */
export interface RowKey {
  readonly metric: string;
  /** Epoch ms, as computed by `rowTimeOf` (format/row-time.ts). */
  readonly rowTime: number;
  /** Datastore type string (`kairos_long`, `kairos_double`, ...); `kairos_legacy` for keys written by KairosDB ≤ 0.9.3. */
  readonly dataType: string;
  readonly tags: Tags;
}

/** The API types a point can be written as (KairosDB's ingest `type`). */
export type ValueType = 'long' | 'double' | 'string';

/** The kind of values a slice carries. Number kinds keep `long` apart so answers can keep the written type. */
export type SliceKind = 'long' | 'double' | 'string' | 'complex';

interface SliceBase {
  /** The partition the points came from. */
  readonly key: RowKey;
  /** Epoch ms, in scan order (ascending unless the scan asked for `desc`). `values` has the same length. */
  readonly timestamps: Float64Array;
}

/**
 * Long or double points. `values` is the numeric view the engine aggregates; for longs outside ±2^53
 * `exact` carries the precise 64-bit values (it is absent when every value is a safe integer).
 */
export interface NumberSlice extends SliceBase {
  readonly kind: 'long' | 'double';
  readonly values: Float64Array;
  readonly exact?: BigInt64Array;
}

export interface StringSlice extends SliceBase {
  readonly kind: 'string';
  readonly values: readonly string[];
}

/** `kairos_complex` points: `values` holds the real parts. */
export interface ComplexSlice extends SliceBase {
  readonly kind: 'complex';
  readonly values: Float64Array;
  readonly imaginary: Float64Array;
}

/**
 * A columnar batch of consecutive points of one partition. Scans yield slices, never per-point objects.
 * A `kairos_legacy` partition mixes long and float columns; its scan yields one slice per run of one kind.
 * A slice's arrays are never written again once it is yielded: consumers may keep it (an answer's PointList does).
 */
export type Slice = NumberSlice | StringSlice | ComplexSlice;

export interface ScanOptions {
  /** Column order within the partition (KairosDB's metric `order`). Default `asc`. */
  readonly order?: 'asc' | 'desc';
  /** At most this many points from this partition (KairosDB applies `limit` per partition, then again after merging). */
  readonly limit?: number;
  /** Points per slice (Cassandra fetch size, LMDB batch). Tests use 1 to prove answers do not depend on it. */
  readonly pageSize?: number;
  /** Aborts the scan: the iterator rejects with the signal's reason and releases its resources. */
  readonly signal?: AbortSignal;
  /**
   * Read the range as up to this many consecutive parts at once (no limit only), for a partition the query reads
   * (almost) alone: the slices come in the same order with the same points. Stores whose reads never wait ignore it.
   */
  readonly split?: number;
  /**
   * Points the parts of a split scan may hold ahead of their reader, shared with the rest of the request's reads ahead
   * (queued-scan.ts): every part reads on while the budget has room. Without it the parts hold about a page each.
   */
  readonly readAhead?: ReadAheadBudget;
}

/** One series of a write batch, already validated (store/write-validation.ts). */
export interface SeriesWrite {
  readonly metric: string;
  readonly tags: Tags;
  readonly type: ValueType;
  /** Seconds; 0 means no expiry. */
  readonly ttlSeconds: number;
  readonly timestamps: readonly number[];
  /** `long`: number or bigint (integral); `double`: number; `string`: string. Same length as `timestamps`. */
  readonly values: readonly (number | bigint | string)[];
}

export interface WriteBatch {
  readonly series: readonly SeriesWrite[];
}

/**
 * The largest user strings a store's keys can hold, in UTF-8 bytes, derived from how the store lays out each key it
 * writes or looks up. Checked by store/key-limits.ts, the one place writes, queries and deletes are held to them.
 */
export interface StoreLimits {
  /** Names the store in messages, as a possessive: "the embedded store's". */
  readonly store: string;
  /** The longest metric name (and metric-name prefix) every key holding one can take. */
  readonly maxMetricBytes: number;
  /** The longest typed data_points row key (metric, row time, data type, tag string). */
  readonly maxRowKeyBytes: number;
  /** The longest row_keys clustering (data type plus tags as a frozen map), where a store limits it apart. */
  readonly maxRowKeysTagsBytes?: number;
  /**
   * Set where it holds doubles only (Heroic's table), naming its layout as a possessive ("the heroic layout's"): it
   * takes doubles and the longs a double holds exactly, and no strings.
   */
  readonly doublesOnly?: string;
  /** The earliest time it holds, where it cannot hold all (Heroic's partitions start at 0). */
  readonly minTimestampMs?: number;
}

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
  readonly limits: StoreLimits;

  /** The row spec, read once (and written as KairosDB does for a fresh keyspace). */
  spec(): Promise<RowSpec>;

  /** `string_index` `metric_names`, sorted, names starting with `prefix`. */
  metricNames(prefix?: string, limit?: number): Promise<string[]>;

  /** `row_key_time_index`: row times of a metric with `rowTimeOf(start) <= rowTime <= end`, ascending. */
  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]>;

  /** `row_keys`: every series of a metric at one row time. */
  rowKeys(metric: string, rowTime: number): Promise<RowKey[]>;

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

/**
 * KairosDB's `service_index` table: text values under (service, service key, key), partitioned by (service, service
 * key) and sorted by key. The metadata API reads and writes it, and KairosDB keeps its roll-up tasks there.
 */
export interface ServiceIndex {
  /** The UTF-8 bytes a service, service key and key may take together (the store's key size). */
  readonly maxKeyBytes: number;
  /** The service keys of `service` that hold at least one key, sorted. */
  serviceKeys(service: string): Promise<string[]>;
  /** The keys of one service key, sorted, those starting with `prefix` when given. */
  keys(service: string, serviceKey: string, prefix?: string): Promise<string[]>;
  /** A key's value and when it was written (ms), or undefined when there is none. */
  value(service: string, serviceKey: string, key: string): Promise<ServiceValue | undefined>;
  /** Sets a key's value; resolves with its write time (ms) once it is durable. */
  set(service: string, serviceKey: string, key: string, value: string): Promise<number>;
  /** Removes a key (nothing happens when there is none); resolves once it is durable. */
  delete(service: string, serviceKey: string, key: string): Promise<void>;
  /**
   * Claims a key for `owner` until `untilMs`, atomically across every process on the store (Cassandra: lightweight
   * transactions; embedded: one LMDB write transaction). Granted when nobody holds it, when its holder's claim expired
   * (`untilMs` before `nowMs`), or when `owner` holds it already (the claim is then extended); never once the key is
   * completed. A claim's key must only ever be written by `claim` and `complete`, never by `set` or `delete`.
   */
  claim(
    service: string,
    serviceKey: string,
    key: string,
    owner: string,
    nowMs: number,
    untilMs: number,
  ): Promise<Claim>;
  /**
   * Marks a claimed key completed, for good, when `owner` still holds it; false when its claim was lost (it expired
   * and another owner took it, or it was completed already).
   */
  complete(service: string, serviceKey: string, key: string, owner: string, nowMs: number): Promise<boolean>;
}

/** What a claim found: granted to the caller, held by another owner until a time, or completed. */
export interface Claim {
  readonly granted: boolean;
  readonly completed: boolean;
  /** Who holds (or completed) it. */
  readonly owner: string;
  /** Until when the holder's claim lasts; when it was completed, for a completed key. */
  readonly untilMs: number;
}

export interface ServiceValue {
  readonly value: string;
  /** The write time, in epoch ms. */
  readonly writtenMs: number;
}

/** A store of several servers (a Cassandra cluster) as its client sees them when it answers a ping. */
export interface PingReport {
  /** `degraded`: answering, while some of its servers are down. */
  readonly status: 'ready' | 'degraded';
  readonly hosts: readonly HostState[];
  /** What of the store's schema was lost and created again since it started (absent when nothing was). */
  readonly recreated?: readonly Recreation[];
}

/**
 * A keyspace or table that was gone and was created again while the store ran, by it or by another client: what was
 * written to it before may be missing.
 */
export interface Recreation {
  /** The keyspace (`kairosdb`) or a table (`kairosdb.row_keys`). */
  readonly object: string;
  /** When the store created it again, or found it created again, in ISO 8601. */
  readonly at: string;
  /** `gateway`: this store created it again; `other`: another client did (its table id changed). */
  readonly by: 'gateway' | 'other';
  /** What the store found: what the node's catalog listed and what the node answered. */
  readonly why: string;
}

/** How a store that keeps a schema of its own (KairosDB's keyspace on Cassandra) finds it, repairs it, and lost it. */
export interface SchemaRepairStatus {
  /** A repair is under way: requests fail at once with STORE_UNAVAILABLE until it succeeds. */
  readonly repairing: boolean;
  /** Repair attempts since the store was made, and those that failed. */
  readonly attempts: number;
  readonly failures: number;
  /** The wait before the next attempt of the repair under way (it doubles with each failure, up to a bound). */
  readonly retryDelayMs: number | undefined;
  /** Keyspaces and tables created again since the store was made (each re-creation counted). */
  readonly recreatedKeyspaces: number;
  readonly recreatedTables: number;
  /** When the last re-creation was made or found (epoch ms), or undefined when none was. */
  readonly lastRecreationMs: number | undefined;
  /** The latest re-creation of each keyspace and table that had one, in the order they happened. */
  readonly recreated: readonly Recreation[];
}

export interface HostState {
  /** `address:port`, as the driver names it. */
  readonly address: string;
  readonly datacenter: string;
  readonly up: boolean;
}
