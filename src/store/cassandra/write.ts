// Writes a validated batch as KairosDB lays it out (reference §4.1): first the index rows (row_keys per partition,
// tag_indexed_row_keys per indexed tag of it, row_key_time_index per metric and row time, string_index per metric) in
// batches of one index partition each, then the data_points cells in batches shared by partitions with the same
// replicas; all UNLOGGED with the write's millisecond timestamp, every cell and index row with its TTL. Index rows
// written recently (written-index.ts) are not sent again, as KairosDB skips the row keys it has cached.
import { settleAll } from '../../lib/settle-all.js';
import { rowWidthMs, writeColumn } from '../format/index.js';
import { toPartitionWrites, type BatchWrites, type PartitionWrite } from '../partition-writes.js';
import type { RowSpec } from '../store.js';
import type { WriteBatch } from '../../model/write-batch.js';
import { tagIndexRows, type TagIndexConfig } from '../tag-index.js';
import { bufferOf } from './buffer-of.js';
import { MAX_STATEMENTS_PER_BATCH, type BatchQuery } from '../cassandra-client/executor.js';
import type { StoreExecutor } from './statements.js';
import { PointCells, type CellRun as LeanCellRun } from './lean-batch-hook.js';
import type { WriteEncoder } from './options.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type StatementName, type Statements } from './statements.js';
import { indexKey, type WriteStamp, type WrittenIndex } from './written-index.js';

const MAX_BYTES_PER_BATCH = 256 * 1024;
/**
 * A batch of several partitions over Cassandra's batch_size_warn_threshold (5 KiB by default) is logged by the node at
 * WARN, each one, and one over batch_size_fail_threshold (50 KiB) refused; one partition's batch is exempt from both.
 */
const MAX_BYTES_PER_SHARED_BATCH = 5 * 1024;
/**
 * A batch's size as Cassandra 5.0 counts it against those thresholds (read off its warnings for batches of known
 * shapes): per partition 29 bytes whatever its key, per cell 45 bytes besides its value, 12 more with a TTL.
 */
const PARTITION_BYTES = 29;
const CELL_BYTES = 45;
const TTL_BYTES = 12;

export interface WriteOptions {
  readonly encoder: WriteEncoder;
  readonly tagIndex: TagIndexConfig;
  /** The index rows written recently: skipped, and what this write's index batches wrote is added once acknowledged. */
  readonly written: WrittenIndex;
}

/** Resolves once Cassandra acknowledged every batch; with any failure, rejects after all of them settled. */
export async function writePartitions(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  batch: WriteBatch,
  timestampMs: number,
  { encoder, tagIndex, written }: WriteOptions,
): Promise<void> {
  const stamp = written.stamp();
  const { index, data } = encodeWrite(st, spec, batch, encoder, tagIndex, written, stamp, (key) =>
    exec.replicasOf(key),
  );
  if (data.length === 0) return;
  await settleAll(
    index.map(async ({ name, statements }) => {
      await exec.batch(name, statements, timestampMs);
      for (const { entry, ttlSeconds } of statements) written.add(stamp, entry, ttlSeconds);
    }),
  );
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
  readonly statements: Statement[];
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
  written: WrittenIndex,
  stamp: WriteStamp,
  replicasOf: (key: Buffer) => string,
): { index: IndexBatch[]; data: (PointCells | BatchQuery[])[] } {
  const writes = toPartitionWrites(spec, batch);
  return {
    index: indexBatches(st, spec, writes, tagIndex, written, stamp),
    data: dataBatches(st, writes.partitions, encoder, replicasOf),
  };
}

/**
 * The index rows not written recently, one batch per index partition: every series of a metric and row time shares a
 * row_keys partition, every series with one indexed tag=value a tag_indexed_row_keys partition, every row time of a
 * metric a row_key_time_index partition, and every name the one string_index partition. A row is written again when
 * the one written before may expire before the cells this write adds.
 */
function indexBatches(
  st: Statements,
  spec: RowSpec,
  { partitions, rowTimes, metrics }: BatchWrites,
  tagIndex: TagIndexConfig,
  written: WrittenIndex,
  stamp: WriteStamp,
): IndexBatch[] {
  // When the cells expire, which a row must outlive: KairosDB gives index rows a row width more than their longest-lived
  // cell (partition-writes.ts), or no TTL when one never expires.
  const graceSeconds = Math.ceil(rowWidthMs(spec) / 1000);
  const untilMs = (indexTtlSeconds: number) =>
    indexTtlSeconds === 0 ? Infinity : stamp.sentAtMs + (indexTtlSeconds - graceSeconds) * 1000;
  const rowKeys = new Map<string, Statement[]>();
  const tagged = new Map<string, Statement[]>();
  for (const { key, keyBytes, indexTtlSeconds } of partitions) {
    const rowKey = bufferOf(keyBytes);
    const until = untilMs(indexTtlSeconds);
    let tags: Map<string, string> | undefined;
    const rowKeyEntry = indexKey.rowKey(rowKey);
    if (!written.covers(rowKeyEntry, until)) {
      tags = new Map(Object.entries(key.tags));
      // The row key holds the metric and the tags, what the row_keys row holds.
      append(rowKeys, `${key.rowTime}\u0000${key.metric}`, {
        query: st.insertRowKey,
        params: [key.metric, DATA_POINTS_TABLE, key.rowTime, key.dataType, tags, indexTtlSeconds],
        bytes: keyBytes.length,
        entry: rowKeyEntry,
        ttlSeconds: indexTtlSeconds,
      });
    }
    // KairosDB's TagIndexedRowKeysTableLookup.createIndexStatements: the full tag map, the row_keys TTL.
    const indexRows = tagIndexRows(tagIndex, key);
    for (const pair of indexRows?.pairs ?? []) {
      const entry = indexKey.tagged(rowKey, pair);
      if (written.covers(entry, until)) continue;
      tags ??= new Map(Object.entries(key.tags));
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
        entry,
        ttlSeconds: indexTtlSeconds,
      });
    }
  }
  const times = new Map<string, Statement[]>();
  for (const { metric, rowTime, ttlSeconds } of rowTimes) {
    const entry = indexKey.rowTime(metric, rowTime);
    if (written.covers(entry, untilMs(ttlSeconds))) continue;
    append(times, metric, {
      query: st.insertRowTime,
      params: [metric, DATA_POINTS_TABLE, rowTime, ttlSeconds],
      bytes: Buffer.byteLength(metric) + 8,
      entry,
      ttlSeconds,
    });
  }
  const names: Statement[] = [];
  for (const metric of metrics) {
    const entry = indexKey.name(metric);
    // string_index rows never expire.
    if (written.covers(entry, Infinity)) continue;
    names.push({
      query: st.insertName,
      params: [METRIC_NAMES_KEY, metric],
      bytes: Buffer.byteLength(metric),
      entry,
      ttlSeconds: 0,
    });
  }
  return [
    ...[...rowKeys.values()].flatMap((statements) => partitionBatches('row_keys.insert', statements)),
    ...[...tagged.values()].flatMap((statements) => partitionBatches('tag_indexed_row_keys.insert', statements)),
    ...[...times.values()].flatMap((statements) => partitionBatches('row_key_time_index.insert', statements)),
    ...partitionBatches('string_index.insert', names),
  ];
}

/**
 * The cells in as few batches as Cassandra takes whole: partitions whose replicas are the same nodes share batches (as
 * KairosDB's CQLBatch groups by host) of at most MAX_BYTES_PER_SHARED_BATCH, so at most some 95 cells; a partition
 * larger than that has batches of its own, which the size checks spare. One batch per partition would cost Cassandra
 * and the driver a request per series for every write of a few points.
 */
function dataBatches(
  st: Statements,
  partitions: readonly PartitionWrite[],
  encoder: WriteEncoder,
  replicasOf: (key: Buffer) => string,
): (PointCells | BatchQuery[])[] {
  const groups = new Map<string, CellRun[]>();
  const out: (PointCells | BatchQuery[])[] = [];
  for (const { keyBytes, columns, values, ttls } of partitions) {
    const key = bufferOf(keyBytes);
    let bytes = PARTITION_BYTES;
    for (let i = 0; i < columns.length && bytes <= MAX_BYTES_PER_SHARED_BATCH; i++)
      bytes += values[i]!.length + CELL_BYTES + (ttls[i]! > 0 ? TTL_BYTES : 0);
    if (bytes > MAX_BYTES_PER_SHARED_BATCH) {
      for (const [from, to] of runs(columns.length, (i) => values[i]!.length + 4))
        out.push(encodeCells(st, [{ key, columns, values, ttls, from, to }], encoder));
      continue;
    }
    const replicas = replicasOf(key);
    let group = groups.get(replicas);
    if (group === undefined) groups.set(replicas, (group = []));
    group.push({ key, columns, values, ttls, from: 0, to: columns.length, bytes });
  }
  for (const group of groups.values()) {
    let from = 0;
    let bytes = 0;
    for (let i = 0; i < group.length; i++) {
      if (bytes + group[i]!.bytes > MAX_BYTES_PER_SHARED_BATCH) {
        out.push(encodeCells(st, group.slice(from, i), encoder));
        from = i;
        bytes = 0;
      }
      bytes += group[i]!.bytes;
    }
    out.push(encodeCells(st, group.slice(from), encoder));
  }
  return out;
}

/** A whole partition's cells, and about what they add to a batch's size as Cassandra measures it. */
interface CellRun extends LeanCellRun {
  readonly bytes: number;
}

/** The runs' cells as one batch: PointCells for the lean encoder, a query per cell for the driver's. */
function encodeCells(st: Statements, runs: readonly LeanCellRun[], encoder: WriteEncoder): PointCells | BatchQuery[] {
  if (encoder === 'lean') return new PointCells(runs);
  const queries: BatchQuery[] = [];
  for (const { key, columns, values, ttls, from, to } of runs) {
    const names = Buffer.allocUnsafe((to - from) * 4);
    for (let i = from; i < to; i++) {
      writeColumn(names, (i - from) * 4, columns[i]!);
      queries.push({
        query: st.insertPoint,
        params: [key, names.subarray((i - from) * 4, (i - from) * 4 + 4), bufferOf(values[i]!), ttls[i]!],
      });
    }
  }
  return queries;
}

interface Statement extends BatchQuery {
  /** About what the statement adds to its partition's mutation. */
  readonly bytes: number;
  /** The row's key in the written index, and the TTL it is written with (0: none). */
  readonly entry: string;
  readonly ttlSeconds: number;
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
