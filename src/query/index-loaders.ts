/**
 * Per-request loaders over the index tables. Every lookup of one request goes through them, so however many
 * aliases or tag selections name a metric, each (metric, row time) costs one `row_keys` read. They cache
 * metadata only, never points, and live exactly as long as one request.
 */
import DataLoader from 'dataloader';
import type { RowKey, Store } from '../store/store.js';

/** Store calls made for one request, by table. Scans are counted by the engine. */
export interface IndexCallCounts {
  rowTimes: number;
  rowKeys: number;
  legacyRowKeys: number;
}

export interface IndexReader {
  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]>;
  rowKeys(metric: string, rowTime: number): Promise<RowKey[]>;
  legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]>;
}

export class IndexLoaders implements IndexReader {
  readonly calls: IndexCallCounts = { rowTimes: 0, rowKeys: 0, legacyRowKeys: 0 };
  private readonly rowTimesLoader: DataLoader<RangeKey, number[], string>;
  private readonly rowKeysLoader: DataLoader<RowTimeKey, RowKey[], string>;
  private readonly legacyLoader: DataLoader<RangeKey, RowKey[], string>;

  constructor(store: Store) {
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
  }

  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]> {
    return this.rowTimesLoader.load({ metric, startMs, endMs });
  }

  rowKeys(metric: string, rowTime: number): Promise<RowKey[]> {
    return this.rowKeysLoader.load({ metric, rowTime });
  }

  legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]> {
    return this.legacyLoader.load({ metric, startMs, endMs });
  }

  /** Drops cached index reads after this request changed the index (a write or a delete). */
  clear(): void {
    this.rowTimesLoader.clearAll();
    this.rowKeysLoader.clearAll();
    this.legacyLoader.clearAll();
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
