/**
 * The store as the gateway's requests see it: every write and delete bumps its metrics' write generations once the
 * store has answered (acknowledged or failed: a failed batch may have landed in part), with the earliest point time
 * it touched, which makes in-flight shared work of those metrics unreachable to every reader that starts afterwards
 * and tells the results cache which of its ranges may have changed. save_as writes go through it too, since the
 * engine writes through its context's store.
 */
import type { Store } from '../store/store.js';
import type { WriteGenerations } from './write-generations.js';

export function invalidatingStore(inner: Store, generations: WriteGenerations, scan: Store['scan'] = (...args) => inner.scan(...args)): Store {
  return {
    kind: inner.kind,
    limits: inner.limits,
    readAhead: inner.readAhead,
    spec: () => inner.spec(),
    metricNames: (prefix, limit) => inner.metricNames(prefix, limit),
    rowTimes: (metric, start, end) => inner.rowTimes(metric, start, end),
    rowKeys: (metric, rowTime) => inner.rowKeys(metric, rowTime),
    legacyRowKeys: (metric, start, end) => inner.legacyRowKeys(metric, start, end),
    // The tag index is read-only here: writes and deletes below maintain it inside the store.
    ...(inner.indexedTags && inner.tagIndexedRowKeys
      ? {
          indexedTags: (metric: string, rowTime: number) => inner.indexedTags!(metric, rowTime),
          tagIndexedRowKeys: (metric: string, rowTime: number, tag: string, value: string, limit?: number) => inner.tagIndexedRowKeys!(metric, rowTime, tag, value, limit),
        }
      : {}),
    scan,
    async write(batch) {
      try {
        await inner.write(batch);
      } finally {
        const earliest = new Map<string, number>();
        for (const s of batch.series) {
          let ms = earliest.get(s.metric) ?? Infinity;
          for (const t of s.timestamps) if (t < ms) ms = t;
          earliest.set(s.metric, ms);
        }
        for (const [metric, ms] of earliest) generations.bump(metric, ms);
      }
    },
    async deleteRange(key, start, end) {
      try {
        await inner.deleteRange(key, start, end);
      } finally {
        generations.bump(key.metric, start);
      }
    },
    async deleteMetricName(metric) {
      try {
        await inner.deleteMetricName(metric);
      } finally {
        generations.bump(metric);
      }
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
