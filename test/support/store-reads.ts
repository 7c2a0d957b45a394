/**
 * Reading a store back in tests and benchmarks: every point of a partition, every partition of a metric.
 */
import type { RowKey, ScanOptions, Store } from '../../src/store/store.js';
import type { Slice } from '../../src/model/series.js';

export interface ScannedPoint {
  readonly t: number;
  readonly v: number | bigint | string;
  readonly kind: Slice['kind'];
}

export async function scanAll(
  store: Store,
  key: RowKey,
  startMs: number,
  endMs: number,
  options?: ScanOptions,
): Promise<ScannedPoint[]> {
  const points: ScannedPoint[] = [];
  for await (const slice of store.scan(key, startMs, endMs, options)) {
    for (let i = 0; i < slice.timestamps.length; i++) {
      // Longs come back as bigints here so exact 64-bit values and safe ones compare alike.
      const v =
        slice.kind === 'string'
          ? slice.values[i]!
          : slice.kind === 'long'
            ? (slice.exact?.[i] ?? BigInt(slice.values[i]!))
            : slice.values[i]!;
      points.push({ t: slice.timestamps[i]!, v, kind: slice.kind });
    }
  }
  return points;
}

/** Every partition of a metric in a range, through the index tables, as the planner finds them. */
export async function partitionsOf(store: Store, metric: string, startMs: number, endMs: number): Promise<RowKey[]> {
  const times = await store.rowTimes(metric, startMs, endMs);
  return (await Promise.all(times.map((t) => store.rowKeys(metric, t)))).flat();
}
