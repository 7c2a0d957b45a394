// Reads of KairosDB's index tables: row_key_time_index → row_keys (1.2+), the legacy row_key_index (≤1.1) and the
// metric names in string_index, with KairosDB's statements and ranges (reference §4.2, §6).
import type cassandra from 'cassandra-driver';
import { dict, dictOf } from '../../lib/dict.js';
import { decodeRowKey, encodeRowKey, rowTimeOf } from '../format/index.js';
import type { RowKey, RowSpec, TaggedRowKeys } from '../store.js';
import { hasTag, tagPair } from '../tag-index.js';
import { bufferOf } from './buffer-of.js';
import type { StoreExecutor } from './statements.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type Statements } from './statements.js';
import { successorOf } from '../text-order.js';

export async function readRowTimes(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  metric: string,
  startMs: number,
  endMs: number,
): Promise<number[]> {
  if (endMs < startMs) return [];
  const rows = await exec.all('row_key_time_index.select', st.selectRowTimes, [
    metric,
    DATA_POINTS_TABLE,
    lowestRowTime(startMs, spec),
    endMs,
  ]);
  return rows.map((row) => (row.get('row_time_ms') as cassandra.types.Long).toNumber());
}

export async function readRowKeys(
  exec: StoreExecutor,
  st: Statements,
  metric: string,
  rowTime: number,
): Promise<RowKey[]> {
  const rows = await exec.all('row_keys.select', st.selectRowKeys, [metric, DATA_POINTS_TABLE, rowTime]);
  return rows
    .filter(isSeriesRow)
    .map((row) => ({ metric, rowTime, dataType: String(row.get('data_type')), tags: tagsOf(row) }));
}

/**
 * Row times whose row_keys one statement reads (`row_time IN ?`, the partition key's last component). A coordinator
 * pages through the partitions of an IN one after another, so a long range is cut into statements that run at once,
 * while the few row times of a dashboard's range are one round trip.
 */
const ROW_TIMES_PER_STATEMENT = 16;

/** row_keys at several row times of a metric, each row time's series in the order readRowKeys gives them. */
export async function readRowKeysAt(
  exec: StoreExecutor,
  st: Statements,
  metric: string,
  rowTimes: readonly number[],
): Promise<RowKey[][]> {
  if (rowTimes.length === 1) return [await readRowKeys(exec, st, metric, rowTimes[0]!)];
  const chunks: number[][] = [];
  for (let i = 0; i < rowTimes.length; i += ROW_TIMES_PER_STATEMENT)
    chunks.push([...new Set(rowTimes.slice(i, i + ROW_TIMES_PER_STATEMENT))]);
  const byRowTime = new Map<number, RowKey[]>(rowTimes.map((rowTime) => [rowTime, []]));
  await Promise.all(
    chunks.map(async (chunk) => {
      const rows = await exec.all('row_keys.select_in', st.selectRowKeysIn, [metric, DATA_POINTS_TABLE, chunk]);
      for (const row of rows) {
        if (!isSeriesRow(row)) continue;
        const rowTime = (row.get('row_time_ms') as cassandra.types.Long).toNumber();
        byRowTime.get(rowTime)?.push({ metric, rowTime, dataType: String(row.get('data_type')), tags: tagsOf(row) });
      }
    }),
  );
  return rowTimes.map((rowTime) => byRowTime.get(rowTime)!);
}

/**
 * One `tag_indexed_row_keys` partition (KairosDB 1.3): the series of the metric at `rowTime` whose `single_tag_pair`
 * is `tag=value`, at most `limit`. The pair is not escaped, so the partition may hold series with another tag that
 * spells the same pair; they are left out.
 */
export async function readTagIndexed(
  exec: StoreExecutor,
  st: Statements,
  metric: string,
  rowTime: number,
  tag: string,
  value: string,
  limit: number | undefined,
): Promise<TaggedRowKeys> {
  const partition = [metric, DATA_POINTS_TABLE, rowTime, tagPair(tag, value)];
  const rows =
    limit === undefined
      ? await exec.all('tag_indexed_row_keys.select', st.selectTagIndexed, partition)
      : await exec.all('tag_indexed_row_keys.select', st.selectTagIndexedLimit, [...partition, limit + 1]);
  const series = rows.filter(isSeriesRow);
  const complete = limit === undefined || series.length <= limit;
  const keys: RowKey[] = [];
  for (const row of complete ? series : series.slice(0, limit)) {
    const key = { metric, rowTime, dataType: String(row.get('data_type')), tags: tagsOf(row) };
    if (hasTag(key.tags, tag, value)) keys.push(key);
  }
  return { keys, complete };
}

/**
 * KairosDB slices the metric's row_key_index partition from `metric 00 rowTime 00 00` to `metric 00 rowTime FF 00`
 * (exclusive). Cassandra compares the blobs as unsigned bytes, where negative row times sort after positive ones, so
 * a range across zero is read as two slices, [start, -1] and [0, end].
 */
export async function readLegacyRowKeys(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  metric: string,
  startMs: number,
  endMs: number,
): Promise<RowKey[]> {
  if (endMs < startMs) return [];
  const from = lowestRowTime(startMs, spec);
  const to = Math.min(endMs, Number.MAX_SAFE_INTEGER);
  const ranges: [number, number][] =
    from < 0 && to >= 0
      ? [
          [from, -1],
          [0, to],
        ]
      : [[from, to]];
  const partition = Buffer.from(metric, 'utf8');
  const keys: RowKey[] = [];
  for (const [low, high] of ranges) {
    const rows = await exec.all('row_key_index.select', st.selectLegacyRowKeys, [
      partition,
      legacyIndexBound(metric, low, 0x00),
      legacyIndexBound(metric, high, 0xff),
    ]);
    for (const row of rows) {
      const key = decodeRowKey(row.get('column1') as Buffer);
      // A key of another metric cannot sort inside the slice, but a hand-written index could hold anything.
      if (key.metric === metric && key.rowTime >= low && key.rowTime <= high) keys.push(key);
    }
  }
  return keys;
}

export async function readMetricNames(
  exec: StoreExecutor,
  st: Statements,
  prefix: string,
  limit: number | undefined,
): Promise<string[]> {
  const limited = limit !== undefined && limit > 0;
  let query: string;
  let params: unknown[];
  if (prefix === '') {
    [query, params] = [limited ? st.selectNamesLimit : st.selectNames, [METRIC_NAMES_KEY]];
  } else {
    const end = successorOf(prefix);
    if (end === undefined)
      [query, params] = [limited ? st.selectNamesFromLimit : st.selectNamesFrom, [METRIC_NAMES_KEY, prefix]];
    else
      [query, params] = [limited ? st.selectNamesBetweenLimit : st.selectNamesBetween, [METRIC_NAMES_KEY, prefix, end]];
  }
  if (limited) params.push(limit);
  const rows = await exec.all('string_index.select', query, params);
  return rows.map((row) => String(row.get('column1'))).filter((name) => name.startsWith(prefix));
}

/** The row of `startMs`; a caller asking for all time (DELETE /metric) may reach past what a row key can hold. */
function lowestRowTime(startMs: number, spec: RowSpec): number {
  return Math.max(rowTimeOf(startMs, spec.width), Number.MIN_SAFE_INTEGER);
}

/** KairosDB's search key: the typed layout with an empty type and no tags, its marker byte 0x00 or (end) 0xFF. */
function legacyIndexBound(metric: string, rowTime: number, marker: number): Buffer {
  const key = encodeRowKey({ metric, rowTime, dataType: '', tags: {} });
  key[key.length - 2] = marker;
  return bufferOf(key);
}

/**
 * row_keys has a static column (mtime), so a partition whose series were all deleted still answers with one row:
 * the static one, without data_type or tags.
 */
export function isSeriesRow(row: cassandra.types.Row): boolean {
  return row.get('data_type') !== null;
}

/** Tags come as a Map (client option), so a tag named `__proto__` reaches the record as data (src/lib/dict.ts). */
function tagsOf(row: cassandra.types.Row): Record<string, string> {
  const tags = row.get('tags') as Map<string, string> | null;
  return tags === null ? dict() : dictOf(tags);
}
