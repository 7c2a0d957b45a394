// Writes a validated batch as KairosDB lays it out (reference §4.1): first the index rows (row_keys per partition,
// row_key_time_index per metric and row time, string_index per metric), then the data_points cells in UNLOGGED
// batches of one partition each, every cell with its TTL and the batch's millisecond write time.
import { writeColumn } from '../format/index.js';
import { toPartitionWrites, type BatchWrites, type PartitionWrite } from '../partition-writes.js';
import type { RowSpec, WriteBatch } from '../store.js';
import { bufferOf } from './buffer-of.js';
import type { BatchQuery, Executor } from './executor.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type Statements } from './statements.js';

/** A batch of one partition is one mutation and must stay under Cassandra's max_mutation_size (half a commit log segment). */
const MAX_CELLS_PER_BATCH = 1000;
const MAX_BYTES_PER_BATCH = 256 * 1024;

/** Resolves once Cassandra acknowledged every statement; with any failure, rejects after all of them settled. */
export async function writePartitions(exec: Executor, st: Statements, spec: RowSpec, batch: WriteBatch, timestampMs: number): Promise<void> {
  const writes = toPartitionWrites(spec, batch);
  if (writes.partitions.length === 0) return;
  await settleAll(indexWrites(exec, st, writes, timestampMs));
  await settleAll(writes.partitions.flatMap((partition) => dataWrites(exec, st, partition, timestampMs)));
}

function indexWrites(exec: Executor, st: Statements, { partitions, rowTimes, metrics }: BatchWrites, timestampMs: number): Promise<void>[] {
  const writes: Promise<void>[] = [];
  for (const { key, indexTtlSeconds } of partitions) {
    const tags = new Map(Object.entries(key.tags));
    writes.push(exec.mutate('row_keys.insert', st.insertRowKey, [key.metric, DATA_POINTS_TABLE, key.rowTime, key.dataType, tags, indexTtlSeconds], timestampMs));
  }
  for (const { metric, rowTime, ttlSeconds } of rowTimes) {
    writes.push(exec.mutate('row_key_time_index.insert', st.insertRowTime, [metric, DATA_POINTS_TABLE, rowTime, ttlSeconds], timestampMs));
  }
  for (const metric of metrics) writes.push(exec.mutate('string_index.insert', st.insertName, [METRIC_NAMES_KEY, metric], timestampMs));
  return writes;
}

function dataWrites(exec: Executor, st: Statements, partition: PartitionWrite, timestampMs: number): Promise<void>[] {
  const { keyBytes, columns, values, ttls } = partition;
  const key = bufferOf(keyBytes);
  const names = Buffer.allocUnsafe(columns.length * 4);
  const writes: Promise<void>[] = [];
  let queries: BatchQuery[] = [];
  let bytes = 0;
  const send = () => {
    writes.push(
      queries.length === 1
        ? exec.mutate('data_points.insert', st.insertPoint, queries[0]!.params, timestampMs)
        : exec.batch('data_points.insert', queries, timestampMs),
    );
    queries = [];
    bytes = 0;
  };
  for (let i = 0; i < columns.length; i++) {
    writeColumn(names, i * 4, columns[i]!);
    const value = values[i]!;
    if (queries.length === MAX_CELLS_PER_BATCH || (queries.length > 0 && bytes + value.length > MAX_BYTES_PER_BATCH)) send();
    const params = [key, names.subarray(i * 4, i * 4 + 4), bufferOf(value), ttls[i]!, timestampMs];
    queries.push({ query: st.insertPoint, params });
    bytes += value.length + 4;
  }
  if (queries.length > 0) send();
  return writes;
}

/** Like Promise.all, but a failure is reported only once nothing of the batch is still in flight. */
async function settleAll(writes: Promise<void>[]): Promise<void> {
  const outcomes = await Promise.allSettled(writes);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
