/**
 * Stores that misbehave on purpose, around a real one: for the errors, time limits and readiness that clients see.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RowKey, ScanOptions, Store } from '../../src/store/store.js';
import type { Slice } from '../../src/model/series.js';

export interface Faults {
  /** Thrown by every scan, as an unexpected bug would be. */
  scanError?: Error;
  /** Each scanned page waits this long (honouring the scan's abort signal). */
  pageDelayMs?: number;
  /** Thrown by ping: the store is unreachable. */
  pingError?: Error;
  /** Called as each scan begins: a test awaits a query that is under way. */
  onScan?: () => void;
  /** Every scan waits for this before its first slice, whatever its abort signal says: a store that hangs. */
  scanGate?: Promise<void>;
}

/**
 * A store that does what `inner` does but for `overrides`: the one place tests and benchmarks wrap a store. The
 * optional tag index (`indexedTags`, `tagIndexedRowKeys`) is not passed on unless overridden, so a wrapped store
 * plans through row_keys.
 */
export function delegatingStore(inner: Store, overrides: Partial<Store> = {}): Store {
  const store: Store = {
    kind: inner.kind,
    limits: inner.limits,
    readAhead: inner.readAhead,
    concurrentReads: inner.concurrentReads,
    spec: () => inner.spec(),
    metricNames: (prefix, limit) => inner.metricNames(prefix, limit),
    rowTimes: (metric, start, end) => inner.rowTimes(metric, start, end),
    rowKeys: (metric, rowTime) => inner.rowKeys(metric, rowTime),
    // On the wrapper's own rowKeys, so a test that counts or breaks them sees each row time of a batch read.
    rowKeysAt: (metric, rowTimes) => Promise.all(rowTimes.map((rowTime) => store.rowKeys(metric, rowTime))),
    legacyRowKeys: (metric, start, end) => inner.legacyRowKeys(metric, start, end),
    scan: (key, start, end, options) => inner.scan(key, start, end, options),
    write: (batch) => inner.write(batch),
    deleteRange: (key, start, end) => inner.deleteRange(key, start, end),
    deleteMetricName: (metric) => inner.deleteMetricName(metric),
    serviceIndex: inner.serviceIndex,
    ping: () => inner.ping(),
    close: () => inner.close(),
    ...overrides,
  };
  return store;
}

/** Delegates to `inner` except where `faults` (which a test may change at any time) say otherwise. */
export function faultyStore(inner: Store, faults: Faults): Store {
  return delegatingStore(inner, {
    async *scan(key: RowKey, start: number, end: number, options?: ScanOptions): AsyncGenerator<Slice> {
      if (faults.scanError) throw faults.scanError;
      faults.onScan?.();
      if (faults.scanGate) await faults.scanGate;
      for await (const slice of inner.scan(key, start, end, options)) {
        if (faults.pageDelayMs)
          await sleep(faults.pageDelayMs, undefined, options?.signal ? { signal: options.signal } : {});
        yield slice;
      }
    },
    async ping() {
      if (faults.pingError) throw faults.pingError;
      await inner.ping();
    },
  });
}
