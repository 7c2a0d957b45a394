/**
 * The embedded store: KairosDB's logical tables (spec, string_index, row_key_time_index, row_keys, and data_points,
 * whose blocks data-points.ts reads and rewrites) in one LMDB environment, with KairosDB's keys and value encodings,
 * and the head: each partition's newest cells in memory, logged in head_log (head.ts, head-log.ts). One write batch is
 * one child transaction of a round (write-rounds.ts); a write is acknowledged only once LMDB has flushed it to disk.
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { StoreUnavailableError } from '../../model/errors.js';
import { LEGACY_DATA_TYPE, columnBounds, encodeRowKey, partitionCovered, rowTimeOf } from '../format/index.js';
import { toPartitionWrites, type BatchWrites, type PartitionWrite } from '../partition-writes.js';
import { initialRowTimeUnit, initialRowWidth, parseRowSpec } from '../row-spec.js';
import { NO_TAG_INDEX, TagIndexCoverage, type TagIndexConfig } from '../tag-index.js';
import type { IndexedTags, RowKey, RowSpec, RowTimeUnit, ScanOptions, Store, TaggedRowKeys } from '../store.js';
import type { Slice } from '../../model/series.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import type { Cells } from './blocks.js';
import { DataPoints } from './data-points.js';
import { Head, type HeadChanges } from './head.js';
import { HeadLog, type LogRecord } from './head-log.js';
import { PartitionData } from './partition-data.js';
import { covers, PartitionNotes, type IndexNote } from './partition-notes.js';
import { WriteRounds } from './write-rounds.js';
import { expiryOf, isExpired, putIndex } from './index-rows.js';
import { TagIndexTable } from './tag-index-table.js';
import { EmbeddedServiceIndex } from './service-index.js';
import {
  decodeRowKeysKey,
  embeddedKeyLimits,
  METRIC_NAMES,
  metricNamesRange,
  metricPrefix,
  partitionPrefix,
  rowKeysKey,
  rowTimeKey,
  rowTimeKeyAfter,
  rowTimeOfKey,
  specKey,
  stringIndexKey,
  stringIndexName,
} from './keys.js';

export interface EmbeddedStoreOptions {
  /** Directory of the LMDB environment; created if missing. */
  readonly path: string;
  /** Written to `spec` only when the store is new, as KairosDB does (default MILLISECONDS). */
  readonly rowTimeUnit?: RowTimeUnit;
  /** Written to `spec` only when the store is new (default 1814400000 ms, or 1814400 with unit SECONDS). */
  readonly rowWidth?: number;
  /**
   * TAG_INDEXED_METRICS: the tags this store keeps its own tag index of (default none). A store opened with other tags
   * than the last time rebuilds that index from row_keys first, so the index is complete for every period.
   */
  readonly tagIndexedMetrics?: TagIndexConfig;
  /** Clock for TTLs (epoch ms); tests move it forward to expire data. */
  readonly now?: () => number;
}

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  /** LMDB reads are memory reads: starting one early would only hold its slice longer. */
  readonly readAhead = 0;
  readonly concurrentReads = 8;
  readonly limits: KeyLimits;
  private readonly env: RootDatabase;
  private readonly specTable: Database<Buffer, Buffer>;
  private readonly stringIndex: Database<Buffer, Buffer>;
  private readonly rowKeyTimeIndex: Database<Buffer, Buffer>;
  private readonly rowKeysTable: Database<Buffer, Buffer>;
  private readonly data: PartitionData;
  private readonly tagIndex: TagIndexTable;
  readonly serviceIndex: EmbeddedServiceIndex;
  private readonly coverage: TagIndexCoverage;
  private readonly now: () => number;
  private readonly rowSpec: RowSpec;
  /** Scans started and not yet ended: close() ends them first. */
  private readonly openScans = new Set<AsyncGenerator<Slice>>();
  private readonly notes = new PartitionNotes();
  private readonly rounds: WriteRounds;
  private closed = false;

  private constructor(options: EmbeddedStoreOptions) {
    mkdirSync(options.path, { recursive: true });
    this.env = open({ path: options.path, maxDbs: 8 });
    // lmdb-js sets the key size LMDB takes on what it opens (1978 bytes for 4 KiB pages), untyped.
    const { maxKeySize } = this.env as RootDatabase & { readonly maxKeySize?: number };
    if (!Number.isInteger(maxKeySize))
      throw new Error(`lmdb-js did not report its maximum key size (got ${maxKeySize})`);
    this.limits = embeddedKeyLimits(maxKeySize!);
    const table = (name: string) =>
      this.env.openDB<Buffer, Buffer>(name, { keyEncoding: 'binary', encoding: 'binary' });
    this.specTable = table('spec');
    this.stringIndex = table('string_index');
    this.rowKeyTimeIndex = table('row_key_time_index');
    this.rowKeysTable = table('row_keys');
    const tagConfig = options.tagIndexedMetrics ?? NO_TAG_INDEX;
    this.tagIndex = new TagIndexTable(table('tag_index'), tagConfig);
    this.serviceIndex = new EmbeddedServiceIndex(
      maxKeySize!,
      table('service_index'),
      (work) => this.transaction(work),
      () => this.now(),
    );
    this.coverage = TagIndexCoverage.complete(tagConfig);
    this.now = options.now ?? Date.now;
    this.rowSpec = this.initSpec(options);
    const head = new Head(this.notes);
    this.rounds = new WriteRounds(this.env, head, () => this.notes.forget());
    this.data = new PartitionData(
      head,
      new DataPoints(table('data_points'), this.rowSpec),
      new HeadLog(table('head_log')),
      this.notes,
      this.rounds,
      () => this.nowSeconds(),
    );
  }

  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const store = new EmbeddedStore(options);
    try {
      await store.env.flushed;
      await store.matchTagIndex();
      await store.data.replay();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  }

  async spec(): Promise<RowSpec> {
    return this.rowSpec;
  }

  async metricNames(prefix = '', limit?: number): Promise<string[]> {
    const partitionLength = stringIndexKey(METRIC_NAMES, '').length;
    const names: string[] = [];
    for (const key of this.metricNameKeys(prefix, limit)) names.push(stringIndexName(key, partitionLength));
    return names;
  }

  async rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]> {
    if (endMs < startMs) return [];
    const nowSeconds = this.nowSeconds();
    const prefixLength = metricPrefix(metric).length;
    const times: number[] = [];
    const range = {
      start: rowTimeKey(metric, rowTimeOf(startMs, this.rowSpec.width)),
      end: rowTimeKeyAfter(metric, endMs),
    };
    for (const { key, value } of this.rowKeyTimeIndex.getRange(range)) {
      if (!isExpired(value, nowSeconds)) times.push(rowTimeOfKey(key, prefixLength));
    }
    return times;
  }

  async rowKeys(metric: string, rowTime: number): Promise<RowKey[]> {
    return this.rowKeysOf(metric, rowTime, this.nowSeconds());
  }

  /** LMDB reads never wait: the row times are read one after another, at one clock for their TTLs. */
  async rowKeysAt(metric: string, rowTimes: readonly number[]): Promise<RowKey[][]> {
    const nowSeconds = this.nowSeconds();
    return rowTimes.map((rowTime) => this.rowKeysOf(metric, rowTime, nowSeconds));
  }

  private rowKeysOf(metric: string, rowTime: number, nowSeconds: number): RowKey[] {
    const prefixLength = metricPrefix(metric).length;
    const start = rowTimeKey(metric, rowTime);
    const keys: RowKey[] = [];
    for (const { key, value } of this.rowKeysTable.getRange({ start, end: rowTimeKeyAfter(metric, rowTime + 1) })) {
      if (!isExpired(value, nowSeconds)) keys.push(decodeRowKeysKey(metric, key, prefixLength));
    }
    return keys;
  }

  async indexedTags(metric: string, rowTime: number): Promise<IndexedTags> {
    return this.coverage.indexedTags(metric, rowTime);
  }

  async tagIndexedRowKeys(
    metric: string,
    rowTime: number,
    tag: string,
    value: string,
    limit?: number,
  ): Promise<TaggedRowKeys> {
    return this.tagIndex.read(metric, rowTime, tag, value, limit, this.nowSeconds());
  }

  async legacyRowKeys(): Promise<RowKey[]> {
    // KairosDB ≤ 1.1's row_key_index only exists in Cassandra keyspaces that such versions wrote.
    return [];
  }

  async *scan(key: RowKey, startMs: number, endMs: number, options: ScanOptions = {}): AsyncGenerator<Slice> {
    if (this.closed) return;
    // Tracked from its first read, when it opens a cursor, to its end: close() ends it if its consumer has not.
    const blocks = this.data.scan(encodeRowKey(key), key, startMs, endMs, options);
    this.openScans.add(blocks);
    try {
      yield* blocks;
    } finally {
      this.openScans.delete(blocks);
    }
  }

  async write(batch: WriteBatch): Promise<void> {
    const writes = toPartitionWrites(this.rowSpec, batch);
    if (writes.partitions.length === 0) return;
    const nowMs = this.now();
    const indexed: IndexNote[] = [];
    const generation = this.notes.generation;
    // A failed write is rolled back, and so are its notes: forgotten in its own callback, before the other writes of
    // its transaction run in the same turn, and again when the transaction fails to commit.
    try {
      await this.rounds.run((changes) =>
        this.notes.forgetIfThrows(() => this.writeBatch(writes, nowMs, indexed, changes)),
      );
    } catch (error) {
      this.notes.forget();
      throw error;
    }
    this.notes.indexed(generation, indexed);
    this.data.written();
  }

  async deleteRange(key: RowKey, startMs: number, endMs: number): Promise<void> {
    const keyBytes = encodeRowKey(key);
    const prefix = partitionPrefix(keyBytes);
    const covered = partitionCovered(this.rowSpec, key.rowTime, startMs, endMs);
    const bounds = covered
      ? { start: 0, end: Infinity }
      : columnBounds(this.rowSpec, key.rowTime, startMs, endMs, key.dataType === LEGACY_DATA_TYPE);
    await this.rounds.run((changes) => {
      this.notes.forget();
      this.data.remove(keyBytes, prefix, bounds.start, bounds.end, changes);
      if (covered) {
        this.rowKeysTable.removeSync(rowKeysKey(key));
        // Whatever the configuration: an entry of another one is stale too.
        this.tagIndex.remove(key);
        const others = this.rowKeysTable.getKeys({
          start: rowTimeKey(key.metric, key.rowTime),
          end: rowTimeKeyAfter(key.metric, key.rowTime + 1),
          limit: 1,
        });
        if (isEmpty(others)) this.rowKeyTimeIndex.removeSync(rowTimeKey(key.metric, key.rowTime));
      }
    });
  }

  async deleteMetricName(metric: string): Promise<void> {
    await this.transaction(() => this.stringIndex.removeSync(stringIndexKey(METRIC_NAMES, metric)));
  }

  async ping(): Promise<void> {
    try {
      this.specTable.get(specKey(CLUSTER_CONFIG, ROW_TIME_UNIT));
    } catch (error) {
      throw new StoreUnavailableError('embedded', error);
    }
  }

  /** Writes the head to data_points and drops its log: what close() does, for tools and tests that read the blocks. */
  async flush(): Promise<void> {
    await this.data.flush();
  }

  async close(): Promise<void> {
    // A scan suspended between slices holds an LMDB cursor in a read transaction: end it while the environment is
    // open (a cursor closed after it is native misuse; lmdb warns "cursor_close: mc->mc_txn ... is NULL"). Scans a
    // consumer left without return() are the usual case: a read abandoned at a time limit, or shared and let go.
    // Scans not started yet hold nothing, and end at once if they are read after this.
    this.closed = true;
    await Promise.all([...this.openScans].map((scan) => scan.return(undefined).catch(() => undefined)));
    await this.data.close();
    await this.env.close();
  }

  /** Index rows first, then data: a point is never stored without a way to find it (same transaction anyway). */
  private writeBatch(
    { partitions, rowTimes, metrics }: BatchWrites,
    nowMs: number,
    indexed: IndexNote[],
    changes: HeadChanges,
  ): void {
    for (const { metric, rowTime, ttlSeconds } of rowTimes)
      putIndex(this.rowKeyTimeIndex, rowTimeKey(metric, rowTime), expiryOf(ttlSeconds, nowMs));
    for (const metric of metrics) this.stringIndex.putSync(stringIndexKey(METRIC_NAMES, metric), STRING_INDEX_VALUE);
    const record = this.data.record(partitions.length);
    for (const partition of partitions) this.writePartition(partition, nowMs, indexed, changes, record);
    this.data.log(record);
  }

  /**
   * The partition's row_keys and tag index entries unless a durable write is known to have put them with an expiry at
   * least as late (a collector's series are written again every few seconds), then its cells.
   */
  private writePartition(
    partition: PartitionWrite,
    nowMs: number,
    indexed: IndexNote[],
    changes: HeadChanges,
    record: LogRecord,
  ): void {
    const { key, keyBytes } = partition;
    const known = this.notes.of(keyBytes, partition.slot);
    const indexExpiry = expiryOf(partition.indexTtlSeconds, nowMs);
    if (!covers(known.indexExpiry, indexExpiry)) {
      indexed.push({ known, expiry: putIndex(this.rowKeysTable, rowKeysKey(key), indexExpiry) });
      this.tagIndex.put(key, indexExpiry);
    }
    const incoming: Cells = {
      columns: partition.columns,
      expiries: partition.ttls.map((ttl) => expiryOf(ttl, nowMs)),
      values: partition.values,
    };
    this.data.write(known, keyBytes, incoming, Math.floor(nowMs / 1000), changes, record);
  }

  /**
   * Makes the tag index hold exactly the configured tags of every series in row_keys: when the configuration differs
   * from the one the index was built with, it is built again, in one transaction (a local walk of row_keys, about a
   * second per million series), so no period is ever half indexed and reads never need to fall back.
   */
  private async matchTagIndex(): Promise<void> {
    const { built } = this.tagIndex;
    const stored = this.specTable.get(specKey(KAIROGRAPH, TAG_INDEX_BUILT))?.toString('utf8');
    if (stored === built || (stored === undefined && built === '[]')) return;
    await this.transaction(() => {
      this.tagIndex.rebuild(this.rowKeysTable);
      this.specTable.putSync(specKey(KAIROGRAPH, TAG_INDEX_BUILT), Buffer.from(built));
    });
  }

  /** Runs `work` as one all-or-nothing transaction and resolves once it is durable on disk. */
  private transaction(work: () => void): Promise<void> {
    return this.rounds.run(() => work());
  }

  /** KairosDB's readRowSpec: missing spec rows are written (row-spec.ts has the rules), then the spec is read. */
  private initSpec(options: EmbeddedStoreOptions): RowSpec {
    const read = (name: string) => this.specTable.get(specKey(CLUSTER_CONFIG, name))?.toString('utf8');
    let unit = read(ROW_TIME_UNIT);
    if (unit === undefined) {
      unit = initialRowTimeUnit(!isEmpty(this.metricNameKeys('', 1)), options.rowTimeUnit ?? 'MILLISECONDS');
      this.specTable.putSync(specKey(CLUSTER_CONFIG, ROW_TIME_UNIT), Buffer.from(unit));
    }
    let widthText = read(ROW_WIDTH);
    if (widthText === undefined) {
      widthText = initialRowWidth(unit, options.rowWidth);
      this.specTable.putSync(specKey(CLUSTER_CONFIG, ROW_WIDTH), Buffer.from(widthText));
    }
    return parseRowSpec(unit, widthText);
  }

  /** string_index keys of the metric names that start with `prefix`. */
  private metricNameKeys(prefix: string, limit?: number): Iterable<Buffer> {
    return this.stringIndex.getKeys({ ...metricNamesRange(prefix), ...(limit ? { limit } : {}) });
  }

  private nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }
}

const CLUSTER_CONFIG = 'cluster_config';
/** The spec rows of this store's own: which configuration the tag index was built for. */
const KAIROGRAPH = 'kairograph';
const TAG_INDEX_BUILT = 'tag_index';
const ROW_TIME_UNIT = 'row_time_unit';
const ROW_WIDTH = 'row_width';
/** KairosDB writes 0x00 as every string_index value. */
const STRING_INDEX_VALUE = Buffer.from([0]);

function isEmpty(entries: Iterable<unknown>): boolean {
  for (const _ of entries) return false;
  return true;
}
