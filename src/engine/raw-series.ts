/**
 * Reads the raw points of every series a plan found, one result per stored series (tag set), partitions merged
 * in time order. This is what a query without aggregators or group-bys answers.
 */
import { BudgetExceededError } from '../errors.js';
import { encodeTagString } from '../store/format/index.js';
import type { RowKey, Store, Tags } from '../store/store.js';
import type { TimeRange } from '../query/model.js';
import { mergeSlices } from './merge.js';
import { PointList } from './point-list.js';

export interface RawSeries {
  readonly metric: string;
  readonly tags: Tags;
  readonly points: PointList;
}

export interface RawReadOptions {
  readonly order: 'asc' | 'desc';
  /** Points per series after merging; 0 or undefined means all. */
  readonly limit?: number;
  /** Most points the whole answer may hold. */
  readonly maxPoints: number;
  readonly pageSize?: number;
  readonly signal?: AbortSignal;
}

export interface RawReadStats {
  partitionsRead: number;
  pointsRead: number;
}

export async function readRawSeries(
  store: Store,
  partitions: readonly RowKey[],
  range: TimeRange,
  options: RawReadOptions,
  stats: RawReadStats = { partitionsRead: 0, pointsRead: 0 },
): Promise<RawSeries[]> {
  const bySeries = new Map<string, RowKey[]>();
  for (const key of partitions) {
    const id = encodeTagString(key.tags);
    const group = bySeries.get(id);
    if (group) group.push(key);
    else bySeries.set(id, [key]);
  }
  const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
  const scanOptions = {
    order: options.order,
    ...(Number.isFinite(limit) ? { limit } : {}),
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  let returned = 0;
  const out: RawSeries[] = [];
  for (const id of [...bySeries.keys()].sort()) {
    const keys = bySeries.get(id)!;
    stats.partitionsRead += keys.length;
    const points = new PointList();
    const merged = mergeSlices(keys.map((key) => store.scan(key, range.startMs, range.endMs, scanOptions)), options.order);
    for await (const slice of merged) {
      const take = Math.min(slice.timestamps.length, limit - points.length);
      stats.pointsRead += slice.timestamps.length;
      returned += take;
      if (returned > options.maxPoints) throw new BudgetExceededError('points returned', options.maxPoints);
      points.appendSlice(slice, 0, take);
      if (points.length >= limit) break;
    }
    out.push({ metric: keys[0]!.metric, tags: keys[0]!.tags, points });
  }
  return out;
}
