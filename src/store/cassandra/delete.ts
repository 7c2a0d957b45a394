// Deletes as KairosDB does (reference §4.4): a covered partition is one partition delete plus its index entries, a
// partial range one range tombstone; all with millisecond write times. Unlike KairosDB, the row_key_time_index entry
// goes whenever no series is left at that row time (KairosDB removes it only for deletes without tags).
import { LEGACY_DATA_TYPE, columnBounds, encodeRowKey, partitionCovered } from '../format/index.js';
import type { RowKey, RowSpec } from '../store.js';
import { bufferOf } from './buffer-of.js';
import { columnRangeBytes } from './column-range.js';
import type { Executor } from './executor.js';
import { isSeriesRow } from './index-reads.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type Statements } from './statements.js';

export async function deletePartitionRange(exec: Executor, st: Statements, spec: RowSpec, key: RowKey, startMs: number, endMs: number, timestampMs: number): Promise<void> {
  const keyBytes = bufferOf(encodeRowKey(key));
  if (!partitionCovered(spec, key.rowTime, startMs, endMs)) {
    const { start, end } = columnBounds(spec, key.rowTime, startMs, endMs, key.dataType === LEGACY_DATA_TYPE);
    if (start >= end) return;
    await exec.mutate('data_points.delete_range', st.deleteRange, [timestampMs, keyBytes, ...columnRangeBytes(start, end)], timestampMs);
    return;
  }
  // Data first: should an index delete fail, the entry left behind points at an empty partition, never the reverse.
  await exec.mutate('data_points.delete_partition', st.deletePartition, [timestampMs, keyBytes], timestampMs);
  const tags = new Map(Object.entries(key.tags));
  await Promise.all([
    exec.mutate('row_keys.delete', st.deleteRowKey, [timestampMs, key.metric, DATA_POINTS_TABLE, key.rowTime, key.dataType, tags], timestampMs),
    exec.mutate('row_key_index.delete', st.deleteLegacyRowKey, [timestampMs, Buffer.from(key.metric, 'utf8'), keyBytes], timestampMs),
  ]);
  const left = await exec.mutationRead('row_keys.select_any', st.selectAnyRowKey, [key.metric, DATA_POINTS_TABLE, key.rowTime]);
  if (!left.rows.some(isSeriesRow)) {
    await exec.mutate('row_key_time_index.delete', st.deleteRowTime, [timestampMs, key.metric, DATA_POINTS_TABLE, key.rowTime], timestampMs);
  }
}

/** KairosDB's metric delete: the name in string_index and the metric's whole legacy row_key_index partition. */
export async function deleteName(exec: Executor, st: Statements, metric: string, timestampMs: number): Promise<void> {
  await Promise.all([
    exec.mutate('string_index.delete', st.deleteName, [timestampMs, METRIC_NAMES_KEY, metric], timestampMs),
    exec.mutate('row_key_index.delete_partition', st.deleteLegacyRowKeys, [timestampMs, Buffer.from(metric, 'utf8')], timestampMs),
  ]);
}
