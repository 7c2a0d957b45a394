/**
 * Turns a validated write batch into per-partition cells with KairosDB's keys, column names and value
 * encodings. Both stores persist exactly these, so they write identical bytes.
 */
import type { RowKey, RowSpec, WriteBatch } from './store.js';
import {
  datastoreTypeOf,
  encodeColumn,
  encodeDouble,
  encodeLong,
  encodeRowKey,
  encodeString,
  rowTimeOf,
  rowWidthMs,
} from './format/index.js';

export interface PartitionWrite {
  readonly key: RowKey;
  readonly keyBytes: Uint8Array;
  /** Cells in ascending column order; a column written twice in one batch keeps its last write. */
  readonly columns: number[];
  readonly values: Uint8Array[];
  /** Seconds per cell; 0 means no expiry. */
  readonly ttls: number[];
  /** The longest cell TTL, or 0 when any cell never expires: what the index rows of this partition need. */
  readonly indexTtlSeconds: number;
}

export function toPartitionWrites(spec: RowSpec, batch: WriteBatch): PartitionWrite[] {
  // series identity → row time → partition; identity is computed once per series, never per point.
  const bySeries = new Map<string, Map<number, Pending>>();
  for (const series of batch.series) {
    const dataType = datastoreTypeOf(series.type);
    const encode = ENCODERS[series.type];
    const seriesId = JSON.stringify([series.metric, dataType, Object.entries(series.tags).sort(byName)]);
    let rows = bySeries.get(seriesId);
    if (rows === undefined) bySeries.set(seriesId, (rows = new Map()));
    let partition: Pending | undefined;
    for (let i = 0; i < series.timestamps.length; i++) {
      const ts = series.timestamps[i]!;
      const rowTime = rowTimeOf(ts, spec.width);
      if (partition === undefined || partition.key.rowTime !== rowTime) {
        partition = rows.get(rowTime);
        if (partition === undefined) {
          const key: RowKey = { metric: series.metric, rowTime, dataType, tags: series.tags };
          partition = { key, keyBytes: encodeRowKey(key), columns: [], values: [], ttls: [], ordered: true };
          rows.set(rowTime, partition);
        }
      }
      const column = encodeColumn(spec, rowTime, ts);
      const last = partition.columns.length - 1;
      if (last >= 0 && column <= partition.columns[last]!) partition.ordered = false;
      partition.columns.push(column);
      partition.values.push(encode(series.values[i]!));
      partition.ttls.push(series.ttlSeconds);
    }
  }
  const widthSeconds = rowWidthMs(spec) / 1000;
  const out: PartitionWrite[] = [];
  for (const rows of bySeries.values()) {
    for (const pending of rows.values()) {
      const { key, keyBytes, columns, values, ttls } = pending.ordered ? pending : lastWriteWins(pending);
      let cellTtl = ttls[0]!;
      for (const ttl of ttls) cellTtl = ttl === 0 || cellTtl === 0 ? 0 : Math.max(cellTtl, ttl);
      // KairosDB keeps index rows a row width longer than the data so a series stays findable while any point lives.
      const indexTtlSeconds = cellTtl === 0 ? 0 : cellTtl + Math.ceil(widthSeconds);
      out.push({ key, keyBytes, columns, values, ttls, indexTtlSeconds });
    }
  }
  return out;
}

interface Pending {
  readonly key: RowKey;
  readonly keyBytes: Uint8Array;
  readonly columns: number[];
  readonly values: Uint8Array[];
  readonly ttls: number[];
  /** Columns strictly ascending as written: the common case, which needs no sort. */
  ordered: boolean;
}

/** Sorts cells by column; of cells with the same column, the one written last in the batch is kept. */
function lastWriteWins(p: Pending): Pending {
  const order = p.columns.map((_, i) => i).sort((a, b) => p.columns[a]! - p.columns[b]! || a - b);
  const kept = order.filter((i, k) => k === order.length - 1 || p.columns[order[k + 1]!] !== p.columns[i]);
  return {
    ...p,
    columns: kept.map((i) => p.columns[i]!),
    values: kept.map((i) => p.values[i]!),
    ttls: kept.map((i) => p.ttls[i]!),
    ordered: true,
  };
}

function byName([a]: [string, string], [b]: [string, string]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ENCODERS = {
  long: (v: number | bigint | string) => encodeLong(v as number | bigint),
  double: (v: number | bigint | string) => encodeDouble(v as number),
  string: (v: number | bigint | string) => encodeString(v as string),
} as const;
