/**
 * Per-request loaders over the index tables. Every lookup of one request goes through them, so however many
 * aliases or tag selections name a metric, each (metric, row time) costs one `row_keys` read. They cache
 * metadata only, never points, and live exactly as long as one request, or until a write through the gateway
 * changes a metric they read (its write generation moved: other requests' work may run on these loaders).
 */
import DataLoader from 'dataloader';
import type { IndexedTags, RowKey, Store, TaggedRowKeys } from '../store/store.js';

/** Store calls made for one request, by table. Scans are counted by the engine. */
export interface IndexCallCounts {
  rowTimes: number;
  rowKeys: number;
  legacyRowKeys: number;
  /** Partitions of KairosDB 1.3's `tag_indexed_row_keys` (or the embedded store's tag index) read. */
  tagIndexedRowKeys: number;
}

export interface IndexReader {
  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]>;
  rowKeys(metric: string, rowTime: number): Promise<RowKey[]>;
  legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]>;
  /** Store.indexedTags; a reader without it never uses a tag index. */
  indexedTags?(metric: string, rowTime: number): Promise<IndexedTags>;
  /** Store.tagIndexedRowKeys. */
  tagIndexedRowKeys?(metric: string, rowTime: number, tag: string, value: string, limit?: number): Promise<TaggedRowKeys>;
}

const NOTHING_INDEXED: IndexedTags = new Set();

/** Per-metric write generations (src/cache/write-generations.ts). */
export interface Generations {
  of(metric: string): number;
}

export class IndexLoaders implements IndexReader {
  readonly calls: IndexCallCounts = { rowTimes: 0, rowKeys: 0, legacyRowKeys: 0, tagIndexedRowKeys: 0 };
  private readonly rowTimesLoader: DataLoader<RangeKey, number[], string>;
  private readonly rowKeysLoader: DataLoader<RowTimeKey, RowKey[], string>;
  private readonly legacyLoader: DataLoader<RangeKey, RowKey[], string>;
  private readonly taggedLoader: DataLoader<TagPartitionKey, TaggedRowKeys, string>;
  /** The write generation of each metric when the loaders first read it. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly generations?: Generations,
  ) {
    // Keys that share a batch are read concurrently; the win is that repeated keys are read once.
    this.rowTimesLoader = new DataLoader(
      (keys) => Promise.all(keys.map((k) => (this.calls.rowTimes++, store.rowTimes(k.metric, k.startMs, k.endMs)))),
      { cacheKeyFn: (k) => JSON.stringify([k.metric, k.startMs, k.endMs]) },
    );
    this.rowKeysLoader = new DataLoader(
      (keys) => Promise.all(keys.map((k) => (this.calls.rowKeys++, store.rowKeys(k.metric, k.rowTime)))),
      { cacheKeyFn: (k) => JSON.stringify([k.metric, k.rowTime]) },
    );
    this.legacyLoader = new DataLoader(
      (keys) => Promise.all(keys.map((k) => (this.calls.legacyRowKeys++, store.legacyRowKeys(k.metric, k.startMs, k.endMs)))),
      { cacheKeyFn: (k) => JSON.stringify([k.metric, k.startMs, k.endMs]) },
    );
    // One read per tag=value partition, row time and limit per request, as row_keys is read once per row time.
    this.taggedLoader = new DataLoader(
      (keys) => Promise.all(keys.map((k) => (this.calls.tagIndexedRowKeys++, store.tagIndexedRowKeys!(k.metric, k.rowTime, k.tag, k.value, k.limit)))),
      { cacheKeyFn: (k) => JSON.stringify([k.metric, k.rowTime, k.tag, k.value, k.limit ?? null]) },
    );
  }

  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]> {
    this.checkWrites(metric);
    return this.rowTimesLoader.load({ metric, startMs, endMs });
  }

  rowKeys(metric: string, rowTime: number): Promise<RowKey[]> {
    this.checkWrites(metric);
    return this.rowKeysLoader.load({ metric, rowTime });
  }

  legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]> {
    this.checkWrites(metric);
    return this.legacyLoader.load({ metric, startMs, endMs });
  }

  /** What the store's tag index answers for; in memory (read when the store connected), so not a store call. */
  async indexedTags(metric: string, rowTime: number): Promise<IndexedTags> {
    if (this.store.indexedTags === undefined || this.store.tagIndexedRowKeys === undefined) return NOTHING_INDEXED;
    return this.store.indexedTags(metric, rowTime);
  }

  tagIndexedRowKeys(metric: string, rowTime: number, tag: string, value: string, limit?: number): Promise<TaggedRowKeys> {
    this.checkWrites(metric);
    return this.taggedLoader.load({ metric, rowTime, tag, value, ...(limit !== undefined ? { limit } : {}) });
  }

  /** Forgets everything read once a metric it read was written since (writes are rare next to reads). */
  private checkWrites(metric: string): void {
    if (this.generations === undefined) return;
    const now = this.generations.of(metric);
    const then = this.seen.get(metric);
    if (then !== undefined && then !== now) {
      this.clear();
      this.seen.clear();
    }
    this.seen.set(metric, now);
  }

  /** Drops cached index reads after this request changed the index (a write or a delete). */
  clear(): void {
    this.rowTimesLoader.clearAll();
    this.rowKeysLoader.clearAll();
    this.legacyLoader.clearAll();
    this.taggedLoader.clearAll();
  }
}

interface RangeKey {
  readonly metric: string;
  readonly startMs: number;
  readonly endMs: number;
}

interface RowTimeKey {
  readonly metric: string;
  readonly rowTime: number;
}

interface TagPartitionKey {
  readonly metric: string;
  readonly rowTime: number;
  readonly tag: string;
  readonly value: string;
  readonly limit?: number;
}
