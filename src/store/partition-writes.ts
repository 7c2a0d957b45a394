/**
 * Turns a validated write batch into per-partition cells with KairosDB's keys, column names and value
 * encodings, and into the index rows those partitions need. Both stores persist exactly these, so they write
 * identical bytes and index rows with identical TTLs.
 */
import { detached, FrozenMemo } from '../model/interned.js';
import type { Tags } from '../model/series.js';
import type { RowKey, RowSpec } from './store.js';
import type { WriteBatch } from '../model/write-batch.js';
import {
  datastoreTypeOf,
  encodeColumn,
  encodeDoubleAt,
  encodeLong,
  encodeRowKey,
  encodeString,
  encodeTagString,
  rowTimeOf,
  rowWidthMs,
} from './format/index.js';

/**
 * Kept with an interned series' partition from one write to the next: a store keeps here what its last write of the
 * partition found (`owner` says which store), and skips looking it up again.
 */
export interface PartitionSlot {
  owner: object | undefined;
  value: unknown;
}

export interface PartitionWrite {
  readonly key: RowKey;
  readonly keyBytes: Uint8Array;
  /** The partition's slot when its series is interned; undefined otherwise. */
  readonly slot: PartitionSlot | undefined;
  /** Cells in ascending column order; a column written twice in one batch keeps its last write. */
  readonly columns: number[];
  readonly values: Uint8Array[];
  /** Seconds per cell; 0 means no expiry. */
  readonly ttls: number[];
  /** The longest cell TTL, or 0 when any cell never expires: what the index rows of this partition need. */
  readonly indexTtlSeconds: number;
}

/** A `row_key_time_index` entry. */
interface RowTimeWrite {
  readonly metric: string;
  readonly rowTime: number;
  /** The longest index TTL of the partitions at this row time, or 0 when one of them never expires. */
  readonly ttlSeconds: number;
}

export interface BatchWrites {
  readonly partitions: PartitionWrite[];
  /** One per metric and row time: series of one row time share its entry. */
  readonly rowTimes: RowTimeWrite[];
  /** The `string_index` metric names, each once. */
  readonly metrics: string[];
}

export function toPartitionWrites(spec: RowSpec, batch: WriteBatch): BatchWrites {
  // series identity → its partitions, in the order their row times came; identity is computed once per series, never
  // per point. A chain, not a map by row time: a series' points of one batch are nearly always in one partition.
  const bySeries = new Map<string, Pending>();
  // Every double of the batch in one buffer, each value a view of it: a buffer of its own for each is several times
  // the size of its 8 bytes.
  let doubleCount = 0;
  for (const series of batch.series) if (series.type === 'double') doubleCount += series.timestamps.length;
  const doubles = new Uint8Array(8 * doubleCount);
  let doublesAt = 0;
  for (const series of batch.series) {
    const dataType = datastoreTypeOf(series.type);
    const isDouble = series.type === 'double';
    const encode = isDouble ? undefined : ENCODERS[series.type];
    const tagString = encodeTagString(series.tags);
    const known = seriesKeyOf(series.metric, dataType, series.tags, tagString);
    // The row key's own fields: a metric holds no U+0000 (encodeRowKey rejects it) and the tag string is canonical.
    const seriesId = known?.id ?? `${series.metric}\u0000${dataType}\u0000${tagString}`;
    let head = bySeries.get(seriesId);
    let partition: Pending | undefined;
    for (let i = 0; i < series.timestamps.length; i++) {
      const ts = series.timestamps[i]!;
      const rowTime = rowTimeOf(ts, spec.width);
      const column = encodeColumn(spec, rowTime, ts);
      let value: Uint8Array;
      if (isDouble) {
        value = encodeDoubleAt(doubles, doublesAt, series.values[i] as number);
        doublesAt += 8;
      } else value = encode!(series.values[i]!);
      if (partition === undefined || partition.key.rowTime !== rowTime) {
        partition = partitionAt(head, rowTime);
        if (partition === undefined) {
          // Literal arrays of one: most series bring one point a partition, and a first push would reserve 17.
          const key =
            known !== undefined
              ? keptKey(known, rowTime, series.tags, tagString)
              : { metric: series.metric, rowTime, dataType, tags: series.tags };
          const added: Pending = {
            key,
            keyBytes: known !== undefined ? known.bytes! : encodeRowKey(key, tagString),
            slot: known?.slot,
            columns: [column],
            values: [value],
            ttls: [series.ttlSeconds],
            indexTtlSeconds: 0,
            ordered: true,
            next: undefined,
          };
          if (head === undefined) bySeries.set(seriesId, (head = added));
          else {
            let last = head;
            while (last.next !== undefined) last = last.next;
            last.next = added;
          }
          partition = added;
          continue;
        }
      }
      const last = partition.columns.length - 1;
      if (last >= 0 && column <= partition.columns[last]!) partition.ordered = false;
      partition.columns.push(column);
      partition.values.push(value);
      partition.ttls.push(series.ttlSeconds);
    }
  }
  const widthSeconds = rowWidthMs(spec) / 1000;
  const partitions: PartitionWrite[] = [];
  const rowTimes = new Map<string, { metric: string; rowTime: number; ttlSeconds: number }>();
  const metrics = new Set<string>();
  // Series of one metric and row time mostly follow one another: theirs is the entry of the one before.
  let previous: { metric: string; rowTime: number; ttlSeconds: number } | undefined;
  for (const head of bySeries.values()) {
    for (let pending: Pending | undefined = head; pending !== undefined; pending = pending.next) {
      const write = pending.ordered ? pending : lastWriteWins(pending);
      const { key, ttls } = write;
      let cellTtl = ttls[0]!;
      for (const ttl of ttls) cellTtl = longerTtl(cellTtl, ttl);
      // KairosDB keeps index rows a row width longer than the data so a series stays findable while any point lives.
      const indexTtlSeconds = cellTtl === 0 ? 0 : cellTtl + Math.ceil(widthSeconds);
      write.indexTtlSeconds = indexTtlSeconds;
      partitions.push(write);
      let rowTime = previous?.metric === key.metric && previous.rowTime === key.rowTime ? previous : undefined;
      if (rowTime === undefined) {
        const id = `${key.rowTime}\u0000${key.metric}`;
        rowTime = rowTimes.get(id);
        if (rowTime === undefined) {
          rowTime = { metric: key.metric, rowTime: key.rowTime, ttlSeconds: indexTtlSeconds };
          rowTimes.set(id, rowTime);
          metrics.add(key.metric);
        }
      }
      rowTime.ttlSeconds = longerTtl(rowTime.ttlSeconds, indexTtlSeconds);
      previous = rowTime;
    }
  }
  return { partitions, rowTimes: [...rowTimes.values()], metrics: [...metrics] };
}

/**
 * What an interned series' keys are made of, kept by its frozen tags (src/model/interned.ts): a collector names the
 * same series in every request, and each stays in one partition for weeks.
 */
interface SeriesKey {
  readonly metric: string;
  readonly dataType: string;
  /** Metric, data type and tag string: the series' identity within a batch. */
  readonly id: string;
  /** The key of the partition last written, its bytes and its slot. */
  key: RowKey | undefined;
  bytes: Uint8Array | undefined;
  slot: PartitionSlot | undefined;
}

/** By frozen tags; several series share tags when a line protocol line holds several fields. */
const SERIES_KEYS = new FrozenMemo<Tags, SeriesKey[]>();
/** Series kept for one tags object at most: a line of more fields is looked up in a list this long, then made anew. */
const MAX_SERIES_PER_TAGS = 32;

function seriesKeyOf(metric: string, dataType: string, tags: Tags, tagString: string): SeriesKey | undefined {
  if (!Object.isFrozen(tags)) return undefined;
  let keys = SERIES_KEYS.get(tags);
  if (keys === undefined) SERIES_KEYS.set(tags, (keys = []));
  for (const key of keys) if (key.metric === metric && key.dataType === dataType) return key;
  if (keys.length >= MAX_SERIES_PER_TAGS) return undefined;
  // Kept while the series is: a metric a front end cut from a request's body must not keep the body.
  const key: SeriesKey = {
    metric: detached(metric),
    dataType,
    id: detached(`${metric}\u0000${dataType}\u0000${tagString}`),
    key: undefined,
    bytes: undefined,
    slot: undefined,
  };
  keys.push(key);
  return key;
}

/** An interned series' key of the partition at `rowTime`, and its bytes in `known.bytes`: made once per partition. */
function keptKey(known: SeriesKey, rowTime: number, tags: Tags, tagString: string): RowKey {
  if (known.key === undefined || known.key.rowTime !== rowTime) {
    known.key = { metric: known.metric, rowTime, dataType: known.dataType, tags };
    known.bytes = encodeRowKey(known.key, tagString);
    known.slot = { owner: undefined, value: undefined };
  }
  return known.key;
}

function partitionAt(head: Pending | undefined, rowTime: number): Pending | undefined {
  for (let row = head; row !== undefined; row = row.next) if (row.key.rowTime === rowTime) return row;
  return undefined;
}

/** Of two TTLs (0 = never expires), the one that keeps a row longer. */
function longerTtl(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : Math.max(a, b);
}

interface Pending {
  readonly key: RowKey;
  readonly keyBytes: Uint8Array;
  readonly slot: PartitionSlot | undefined;
  readonly columns: number[];
  readonly values: Uint8Array[];
  readonly ttls: number[];
  indexTtlSeconds: number;
  /** Columns strictly ascending as written: the common case, which needs no sort. */
  ordered: boolean;
  /** The series' partition of the next row time the batch reached. */
  next: Pending | undefined;
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

/** Doubles are written into the batch's buffer (toPartitionWrites). */
const ENCODERS = {
  long: (v: number | bigint | string) => encodeLong(v as number | bigint),
  string: (v: number | bigint | string) => encodeString(v as string),
} as const;
