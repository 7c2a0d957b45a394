/**
 * The KairosDB layout: a source over KairosDB's tables (`data_points`, `row_key_time_index`, `row_keys`, the legacy
 * `row_key_index`, `string_index`, `spec`) on one store, embedded (LMDB) or Cassandra. The store interface speaks in
 * those tables; this turns them into the seam's finding, reading, writing and deleting of series.
 */
import { eachAlone, type IndexLoaders, type IndexRead } from '../index-loaders.js';
import type { TimeRange } from '../../model/query.js';
import type { SeriesPredicate } from '../../model/tag-filter.js';
import { partitionCovered, rowWidthMs } from '../../store/format/index.js';
import type { PingReport } from '../../model/health.js';
import type { RowKey, Store } from '../../store/store.js';
import { COVERAGE_SERVICE } from '../../store/tag-index.js';
import type { Capabilities } from '../capabilities.js';
import type { Partition, Slice } from '../../model/series.js';
import type { ReadOptions } from '../../model/read-options.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import type { DeletedPart, FindSeriesOptions, SeriesPlan, Source } from '../source.js';
import { planSeries, type IndexReader } from './plan.js';

export const KAIROSDB_LAYOUT = 'kairosdb';

/** The index reads the request statistics count, by the names they always had (`storeCalls.rowKeys`, ...), and the tag index's. */
const INDEX_READS = ['rowTimes', 'rowKeys', 'legacyRowKeys', 'tagIndexedRowKeys'] as const;

export class KairosdbSource implements Source {
  readonly layout = KAIROSDB_LAYOUT;
  /** KairosDB's tables take writes and deletes on both stores. */
  readonly writable = true;
  readonly indexReads = INDEX_READS;

  /**
   * KairosDB's service_index (the store's tag index markers read-only), and on a store that keeps a schema of its own
   * (Cassandra), how its repair stands.
   */
  readonly capabilities: Capabilities;

  /** The store's index reads, made once so that every load of a request finds its batch by them. */
  private readonly reads: ReturnType<typeof indexReads>;

  constructor(
    readonly name: string,
    private readonly store: Store,
  ) {
    this.reads = indexReads(name, store);
    this.capabilities = {
      metadata: { index: store.serviceIndex, readOnlyServices: [COVERAGE_SERVICE] },
      ...(store.schemaRepair !== undefined ? { schemaRepair: { status: () => store.schemaRepair! } } : {}),
    };
  }

  get limits(): KeyLimits {
    return this.store.limits;
  }

  get readAhead(): number {
    return this.store.readAhead;
  }

  get concurrentReads(): number {
    return this.store.concurrentReads;
  }

  metricNames(prefix: string, limit?: number): Promise<string[]> {
    return this.store.metricNames(prefix, limit);
  }

  async findSeries(
    index: IndexLoaders,
    metric: string,
    range: TimeRange,
    matches: SeriesPredicate,
    options: FindSeriesOptions = {},
  ): Promise<SeriesPlan> {
    const widthMs = rowWidthMs(await this.store.spec());
    const plan = await planSeries(
      this.reader(index),
      metric,
      range,
      matches,
      widthMs,
      options.lane,
      options.latestPeriods,
    );
    return { periods: plan.rowTimes.length, partitions: plan.partitions, widthMs, warnings: plan.warnings };
  }

  read(key: Partition, startMs: number, endMs: number, options?: ReadOptions): AsyncIterable<Slice> {
    return this.store.scan(key, startMs, endMs, options);
  }

  write(batch: WriteBatch): Promise<void> {
    return this.store.write(batch);
  }

  async deleteRange(key: Partition, startMs: number, endMs: number): Promise<DeletedPart> {
    const spec = await this.store.spec();
    await this.store.deleteRange(key, startMs, endMs);
    return partitionCovered(spec, key.rowTime, startMs, endMs) ? 'partition' : 'range';
  }

  deleteMetricName(metric: string): Promise<void> {
    return this.store.deleteMetricName(metric);
  }

  // biome-ignore lint/suspicious/noConfusingVoidType: a store with nothing to report resolves with nothing.
  ping(): Promise<PingReport | void> {
    return this.store.ping();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The index tables through the request's loaders: one read per source, table, metric and key per request. */
  private reader(index: IndexLoaders): IndexReader {
    const { store } = this;
    const reads = this.reads;
    return {
      rowTimes: (metric, startMs, endMs) => index.load(reads.rowTimes, metric, [startMs, endMs]),
      rowKeys: (metric, rowTime) => index.load(reads.rowKeys, metric, rowTime),
      legacyRowKeys: (metric, startMs, endMs) => index.load(reads.legacyRowKeys, metric, [startMs, endMs]),
      // KairosDB 1.3's tag index, where the store keeps one: what it covers is in memory (read when the store
      // connected), so not a store call; each tag=value partition is read once per row time and limit per request.
      ...(store.indexedTags !== undefined && store.tagIndexedRowKeys !== undefined
        ? {
            indexedTags: (metric: string, rowTime: number) => store.indexedTags!(metric, rowTime),
            tagIndexedRowKeys: (metric: string, rowTime: number, tag: string, value: string, limit?: number) =>
              index.load(reads.tagIndexedRowKeys, metric, [rowTime, tag, value, limit ?? 0]),
          }
        : {}),
    };
  }
}

/**
 * The store's index reads as the loaders batch them: a metric's row_keys at every row time of one tick in one read
 * (Store.rowKeysAt); the others, asked for once per metric and range, each alone.
 */
function indexReads(name: string, store: Store) {
  return {
    rowTimes: eachAlone(name, 'rowTimes', (metric, [startMs, endMs]: readonly [number, number]) =>
      store.rowTimes(metric, startMs, endMs),
    ),
    rowKeys: {
      source: name,
      name: 'rowKeys',
      readMany: (metric: string, rowTimes: readonly number[]) => store.rowKeysAt(metric, rowTimes),
    } satisfies IndexRead<number, RowKey[]>,
    legacyRowKeys: eachAlone(name, 'legacyRowKeys', (metric, [startMs, endMs]: readonly [number, number]) =>
      store.legacyRowKeys(metric, startMs, endMs),
    ),
    tagIndexedRowKeys: eachAlone(
      name,
      'tagIndexedRowKeys',
      (metric, [rowTime, tag, value, limit]: readonly [number, string, string, number]) =>
        store.tagIndexedRowKeys!(metric, rowTime, tag, value, limit === 0 ? undefined : limit),
    ),
  };
}
