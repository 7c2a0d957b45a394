// Deletes as KairosDB does (reference §4.4): a covered partition is one partition delete plus its index entries (its
// tag_indexed_row_keys rows too, KairosDB's createDeleteStatements), a
// partial range one range tombstone; all with millisecond write times. Unlike KairosDB, the row_key_time_index entry
// goes whenever no series is left at that row time (KairosDB removes it only for deletes without tags). The rows a
// delete removes are forgotten by the written index before it starts and again once it ended, so that no write, in
// flight meanwhile or done before, leaves the index claiming them.
import { LEGACY_DATA_TYPE, columnBounds, encodeRowKey, partitionCovered } from '../format/index.js';
import type { RowKey, RowSpec } from '../store.js';
import { indexedTagsOf, NO_TAG_INDEX, tagPair, type TagIndexConfig } from '../tag-index.js';
import { bufferOf } from './buffer-of.js';
import { columnRangeBytes } from './column-range.js';
import type { StoreExecutor } from './statements.js';
import { isSeriesRow } from './index-reads.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type Statements } from './statements.js';
import { indexKey, type WrittenIndex } from './written-index.js';

export async function deletePartitionRange(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  key: RowKey,
  startMs: number,
  endMs: number,
  timestampMs: number,
  written: WrittenIndex,
  tagIndex: TagIndexConfig = NO_TAG_INDEX,
): Promise<void> {
  const keyBytes = bufferOf(encodeRowKey(key));
  if (!partitionCovered(spec, key.rowTime, startMs, endMs)) {
    const { start, end } = columnBounds(spec, key.rowTime, startMs, endMs, key.dataType === LEGACY_DATA_TYPE);
    if (start >= end) return;
    await exec.mutate(
      'data_points.delete_range',
      st.deleteRange,
      [timestampMs, keyBytes, ...columnRangeBytes(start, end)],
      timestampMs,
    );
    return;
  }
  // Every tag of the series, indexed or not: forgetting a row never remembered costs nothing.
  const rows = [
    indexKey.rowKey(keyBytes),
    ...Object.entries(key.tags).map(([tag, value]) => indexKey.tagged(keyBytes, tagPair(tag, value))),
    indexKey.rowTime(key.metric, key.rowTime),
  ];
  written.drop(rows);
  try {
    await deleteCoveredPartition(exec, st, key, keyBytes, timestampMs, tagIndex);
  } finally {
    written.drop(rows);
  }
}

/** The partition's data, then its index rows, and the row time's entry once no series is left at it. */
async function deleteCoveredPartition(
  exec: StoreExecutor,
  st: Statements,
  key: RowKey,
  keyBytes: Buffer,
  timestampMs: number,
  tagIndex: TagIndexConfig,
): Promise<void> {
  // Data first: should an index delete fail, the entry left behind points at an empty partition, never the reverse.
  await exec.mutate('data_points.delete_partition', st.deletePartition, [timestampMs, keyBytes], timestampMs);
  const tags = new Map(Object.entries(key.tags));
  await Promise.all([
    exec.mutate(
      'row_keys.delete',
      st.deleteRowKey,
      [timestampMs, key.metric, DATA_POINTS_TABLE, key.rowTime, key.dataType, tags],
      timestampMs,
    ),
    exec.mutate(
      'row_key_index.delete',
      st.deleteLegacyRowKey,
      [timestampMs, Buffer.from(key.metric, 'utf8'), keyBytes],
      timestampMs,
    ),
    deleteTagIndexed(exec, st, key, tags, timestampMs, tagIndex),
  ]);
  const left = await exec.mutationRead('row_keys.select_any', st.selectAnyRowKey, [
    key.metric,
    DATA_POINTS_TABLE,
    key.rowTime,
  ]);
  if (!left.rows.some(isSeriesRow)) {
    await exec.mutate(
      'row_key_time_index.delete',
      st.deleteRowTime,
      [timestampMs, key.metric, DATA_POINTS_TABLE, key.rowTime],
      timestampMs,
    );
  }
}

/**
 * The series' tag_indexed_row_keys rows in the partitions of its indexed tags. KairosDB deletes the row with the hash
 * of its current configuration only; a series written while other tags were indexed has a row with another hash, which
 * would list the deleted series again, so its rows are looked up by series first.
 */
async function deleteTagIndexed(
  exec: StoreExecutor,
  st: Statements,
  key: RowKey,
  tags: Map<string, string>,
  timestampMs: number,
  tagIndex: TagIndexConfig,
): Promise<void> {
  const indexed = indexedTagsOf(tagIndex, key.metric);
  if (indexed === undefined) return;
  const pairs = Object.keys(key.tags)
    .filter((tag) => indexed === 'all' || indexed.has(tag))
    .map((tag) => tagPair(tag, key.tags[tag]!));
  await Promise.all(
    pairs.map(async (pair) => {
      const partition = [key.metric, DATA_POINTS_TABLE, key.rowTime, pair];
      const found = await exec.mutationRead('tag_indexed_row_keys.select_series', st.selectTagIndexedSeries, [
        ...partition,
        key.dataType,
        tags,
      ]);
      await Promise.all(
        found.rows.map((row) =>
          exec.mutate(
            'tag_indexed_row_keys.delete',
            st.deleteTagIndexed,
            [timestampMs, ...partition, key.dataType, row.get('tag_collection_hash'), tags],
            timestampMs,
          ),
        ),
      );
    }),
  );
}

/** KairosDB's metric delete: the name in string_index and the metric's whole legacy row_key_index partition. */
export async function deleteName(
  exec: StoreExecutor,
  st: Statements,
  metric: string,
  timestampMs: number,
  written: WrittenIndex,
): Promise<void> {
  const rows = [indexKey.name(metric)];
  written.drop(rows);
  try {
    await Promise.all([
      exec.mutate('string_index.delete', st.deleteName, [timestampMs, METRIC_NAMES_KEY, metric], timestampMs),
      exec.mutate(
        'row_key_index.delete_partition',
        st.deleteLegacyRowKeys,
        [timestampMs, Buffer.from(metric, 'utf8')],
        timestampMs,
      ),
    ]);
  } finally {
    written.drop(rows);
  }
}
