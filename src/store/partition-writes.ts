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
  type Pending = { key: RowKey; keyBytes: Uint8Array; cells: Map<number, [Uint8Array, number]> };
  // series identity → row time → partition; identity is computed once per series, never per point.
  const bySeries = new Map<string, Map<number, Pending>>();
  for (const series of batch.series) {
    const dataType = datastoreTypeOf(series.type);
    const encode = ENCODERS[series.type];
    const seriesId = JSON.stringify([series.metric, dataType, Object.entries(series.tags).sort(byName)]);
    let rows = bySeries.get(seriesId);
    if (rows === undefined) bySeries.set(seriesId, (rows = new Map()));
    for (let i = 0; i < series.timestamps.length; i++) {
      const ts = series.timestamps[i]!;
      const rowTime = rowTimeOf(ts, spec.width);
      let partition = rows.get(rowTime);
      if (partition === undefined) {
        const key: RowKey = { metric: series.metric, rowTime, dataType, tags: series.tags };
        partition = { key, keyBytes: encodeRowKey(key), cells: new Map() };
        rows.set(rowTime, partition);
      }
      // Map keeps first-insertion order; delete first so the last write of a column is the one kept.
      const column = encodeColumn(spec, rowTime, ts);
      partition.cells.delete(column);
      partition.cells.set(column, [encode(series.values[i]!), series.ttlSeconds]);
    }
  }
  const widthSeconds = rowWidthMs(spec) / 1000;
  const out: PartitionWrite[] = [];
  for (const rows of bySeries.values()) {
    for (const { key, keyBytes, cells } of rows.values()) {
      const columns = [...cells.keys()].sort((a, b) => a - b);
      const values = columns.map((c) => cells.get(c)![0]);
      const ttls = columns.map((c) => cells.get(c)![1]);
      let cellTtl = ttls[0]!;
      for (const ttl of ttls) cellTtl = ttl === 0 || cellTtl === 0 ? 0 : Math.max(cellTtl, ttl);
      // KairosDB keeps index rows a row width longer than the data so a series stays findable while any point lives.
      const indexTtlSeconds = cellTtl === 0 ? 0 : cellTtl + Math.ceil(widthSeconds);
      out.push({ key, keyBytes, columns, values, ttls, indexTtlSeconds });
    }
  }
  return out;
}

function byName([a]: [string, string], [b]: [string, string]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ENCODERS = {
  long: (v: number | bigint | string) => encodeLong(v as number | bigint),
  double: (v: number | bigint | string) => encodeDouble(v as number),
  string: (v: number | bigint | string) => encodeString(v as string),
} as const;
