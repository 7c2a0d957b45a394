// Writes a validated batch as KairosDB lays it out (reference §4.1): first the index rows (row_keys per partition,
// row_key_time_index per metric and row time, string_index per metric), then the data_points cells in UNLOGGED
// batches of one partition each, every cell with its TTL and the batch's millisecond write time.
import { writeColumn } from '../format/index.js';
import { toPartitionWrites, type PartitionWrite } from '../partition-writes.js';
import type { RowSpec, WriteBatch } from '../store.js';
import type { BatchQuery, Executor } from './executor.js';
import { METRIC_NAMES_KEY } from './schema.js';
import { DATA_POINTS_TABLE, type Statements } from './statements.js';

/** A batch of one partition is one mutation and must stay under Cassandra's max_mutation_size (half a commit log segment). */
const MAX_CELLS_PER_BATCH = 1000;
const MAX_BYTES_PER_BATCH = 256 * 1024;

/** Resolves once Cassandra acknowledged every statement; with any failure, rejects after all of them settled. */
export async function writePartitions(exec: Executor, st: Statements, spec: RowSpec, batch: WriteBatch, timestampMs: number): Promise<void> {
  const partitions = toPartitionWrites(spec, batch);
  if (partitions.length === 0) return;
  await settleAll(indexWrites(exec, st, partitions, timestampMs));
  await settleAll(partitions.flatMap((partition) => dataWrites(exec, st, partition, timestampMs)));
}

function indexWrites(exec: Executor, st: Statements, partitions: readonly PartitionWrite[], timestampMs: number): Promise<void>[] {
  const rowTimes = new Map<string, { metric: string; rowTime: number; ttl: number }>();
  const metrics = new Set<string>();
  const writes: Promise<void>[] = [];
  for (const { key, indexTtlSeconds } of partitions) {
    const tags = new Map(Object.entries(key.tags));
    writes.push(exec.mutate('row_keys.insert', st.insertRowKey, [key.metric, DATA_POINTS_TABLE, key.rowTime, key.dataType, tags, indexTtlSeconds], timestampMs));
    // Series of one row time share its entry; the entry must live as long as the longest-lived of them.
    const id = `${key.rowTime}\u0000${key.metric}`;
    const seen = rowTimes.get(id);
    if (seen === undefined) rowTimes.set(id, { metric: key.metric, rowTime: key.rowTime, ttl: indexTtlSeconds });
    else seen.ttl = seen.ttl === 0 || indexTtlSeconds === 0 ? 0 : Math.max(seen.ttl, indexTtlSeconds);
    metrics.add(key.metric);
  }
  for (const { metric, rowTime, ttl } of rowTimes.values()) {
    writes.push(exec.mutate('row_key_time_index.insert', st.insertRowTime, [metric, DATA_POINTS_TABLE, rowTime, ttl], timestampMs));
  }
  for (const metric of metrics) writes.push(exec.mutate('string_index.insert', st.insertName, [METRIC_NAMES_KEY, metric], timestampMs));
  return writes;
}

function dataWrites(exec: Executor, st: Statements, partition: PartitionWrite, timestampMs: number): Promise<void>[] {
  const { keyBytes, columns, values, ttls } = partition;
  const key = Buffer.from(keyBytes.buffer, keyBytes.byteOffset, keyBytes.byteLength);
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
    const params = [key, names.subarray(i * 4, i * 4 + 4), Buffer.from(value.buffer, value.byteOffset, value.byteLength), ttls[i]!, timestampMs];
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
