// Writes a validated batch as KairosDB lays it out (reference §4.1): first the index rows (row_keys per partition,
// tag_indexed_row_keys per indexed tag of it, row_key_time_index per metric and row time, string_index per metric), then the data_points cells, all of them in
// UNLOGGED batches of one partition each with the write's millisecond timestamp, every cell and index row with its TTL.
import { settleAll } from '../../lib/settle-all.js';
import { writeColumn } from '../format/index.js';
import { toPartitionWrites, type BatchWrites, type PartitionWrite } from '../partition-writes.js';
import type { RowSpec } from '../store.js';
import type { WriteBatch } from '../../model/write-batch.js';
import { NO_TAG_INDEX, tagIndexRows, type TagIndexConfig } from '../tag-index.js';
import { bufferOf } from './buffer-of.js';
import { MAX_STATEMENTS_PER_BATCH, type BatchQuery } from '../cassandra-client/executor.js';
import type { StoreExecutor } from './statements.js';
import { PointCells } from './lean-batch-hook.js';
import type { WriteEncoder } from './options.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type StatementName, type Statements } from './statements.js';

const MAX_BYTES_PER_BATCH = 256 * 1024;

/** Resolves once Cassandra acknowledged every batch; with any failure, rejects after all of them settled. */
export async function writePartitions(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  batch: WriteBatch,
  timestampMs: number,
  encoder: WriteEncoder,
  tagIndex: TagIndexConfig = NO_TAG_INDEX,
): Promise<void> {
  const { index, data } = encodeWrite(st, spec, batch, encoder, tagIndex);
  if (data.length === 0) return;
  await settleAll(index.map(({ name, statements }) => exec.batch(name, statements, timestampMs)));
  await settleAll(
    data.map((cells) =>
      cells instanceof PointCells
        ? exec.cells('data_points.insert', st.insertPoint, cells, timestampMs)
        : exec.batch('data_points.insert', cells, timestampMs),
    ),
  );
}

/** A batch of index statements of one partition. */
interface IndexBatch {
  readonly name: StatementName;
  readonly statements: BatchQuery[];
}

/**
 * Every batch of the write, built before anything is sent: the data batches are then compact (one buffer each with
 * the lean encoder) and the batch's per-cell objects die young instead of outliving the round trip of the index rows.
 */
function encodeWrite(
  st: Statements,
  spec: RowSpec,
  batch: WriteBatch,
  encoder: WriteEncoder,
  tagIndex: TagIndexConfig,
): { index: IndexBatch[]; data: (PointCells | BatchQuery[])[] } {
  const writes = toPartitionWrites(spec, batch);
  return {
    index: indexBatches(st, writes, tagIndex),
    data: writes.partitions.flatMap((partition) => dataBatches(st, partition, encoder)),
  };
}

/**
 * The index rows, one batch per index partition: every series of a metric and row time shares a row_keys partition,
 * every series with one indexed tag=value a tag_indexed_row_keys partition, every row time of a metric a
 * row_key_time_index partition, and every name the one string_index partition.
 */
function indexBatches(
  st: Statements,
  { partitions, rowTimes, metrics }: BatchWrites,
  tagIndex: TagIndexConfig,
): IndexBatch[] {
  const rowKeys = new Map<string, Statement[]>();
  const tagged = new Map<string, Statement[]>();
  for (const { key, keyBytes, indexTtlSeconds } of partitions) {
    const tags = new Map(Object.entries(key.tags));
    const params = [key.metric, DATA_POINTS_TABLE, key.rowTime, key.dataType, tags, indexTtlSeconds];
    // The row key holds the metric and the tags, what the row_keys row holds.
    append(rowKeys, `${key.rowTime}\u0000${key.metric}`, { query: st.insertRowKey, params, bytes: keyBytes.length });
    // KairosDB's TagIndexedRowKeysTableLookup.createIndexStatements: the full tag map, the row_keys TTL.
    const indexRows = tagIndexRows(tagIndex, key);
    for (const pair of indexRows?.pairs ?? []) {
      const row = [
        key.metric,
        DATA_POINTS_TABLE,
        key.rowTime,
        key.dataType,
        pair,
        indexRows!.hash,
        tags,
        indexTtlSeconds,
      ];
      append(tagged, JSON.stringify([key.metric, key.rowTime, pair]), {
        query: st.insertTagIndexed,
        params: row,
        bytes: keyBytes.length + Buffer.byteLength(pair),
      });
    }
  }
  const times = new Map<string, Statement[]>();
  for (const { metric, rowTime, ttlSeconds } of rowTimes) {
    append(times, metric, {
      query: st.insertRowTime,
      params: [metric, DATA_POINTS_TABLE, rowTime, ttlSeconds],
      bytes: Buffer.byteLength(metric) + 8,
    });
  }
  const names = metrics.map((metric) => ({
    query: st.insertName,
    params: [METRIC_NAMES_KEY, metric],
    bytes: Buffer.byteLength(metric),
  }));
  return [
    ...[...rowKeys.values()].flatMap((statements) => partitionBatches('row_keys.insert', statements)),
    ...[...tagged.values()].flatMap((statements) => partitionBatches('tag_indexed_row_keys.insert', statements)),
    ...[...times.values()].flatMap((statements) => partitionBatches('row_key_time_index.insert', statements)),
    ...partitionBatches('string_index.insert', names),
  ];
}

/** A partition's cells in batches: PointCells for the lean encoder, a query per cell for the driver's. */
function dataBatches(st: Statements, partition: PartitionWrite, encoder: WriteEncoder): (PointCells | BatchQuery[])[] {
  const { keyBytes, columns, values, ttls } = partition;
  const key = bufferOf(keyBytes);
  return runs(columns.length, (i) => values[i]!.length + 4).map(([from, to]) => {
    if (encoder === 'lean') return new PointCells(key, columns, values, ttls, from, to);
    const names = Buffer.allocUnsafe((to - from) * 4);
    const queries: BatchQuery[] = [];
    for (let i = from; i < to; i++) {
      writeColumn(names, (i - from) * 4, columns[i]!);
      queries.push({
        query: st.insertPoint,
        params: [key, names.subarray((i - from) * 4, (i - from) * 4 + 4), bufferOf(values[i]!), ttls[i]!],
      });
    }
    return queries;
  });
}

interface Statement extends BatchQuery {
  /** About what the statement adds to its partition's mutation. */
  readonly bytes: number;
}

function append<K>(groups: Map<K, Statement[]>, key: K, statement: Statement): void {
  const group = groups.get(key);
  if (group === undefined) groups.set(key, [statement]);
  else group.push(statement);
}

/** The statements of one partition in as few batches as the limits allow. */
function partitionBatches(name: StatementName, statements: Statement[]): IndexBatch[] {
  return runs(statements.length, (i) => statements[i]!.bytes).map(([from, to]) => ({
    name,
    statements: statements.slice(from, to),
  }));
}

/** [from, to) runs of `count` items, each of at most MAX_STATEMENTS_PER_BATCH and MAX_BYTES_PER_BATCH (or one item). */
function runs(count: number, bytesOf: (i: number) => number): [number, number][] {
  const out: [number, number][] = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const size = bytesOf(i);
    if (i - from === MAX_STATEMENTS_PER_BATCH || (i > from && bytes + size > MAX_BYTES_PER_BATCH)) {
      out.push([from, i]);
      from = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (count > from) out.push([from, count]);
  return out;
}

/** Like Promise.all, but a failure is reported only once nothing of the batch is still in flight. */
