/**
 * The floor of a Cassandra read, shared by the benchmarks: the store's own prepared SELECT over whole partitions,
 * paged by the driver, with the project's lean page decoder or the driver's Rows, no engine and no HTTP.
 */
import cassandra from 'cassandra-driver';
import { installLeanPageHook } from '../src/store/cassandra-client/lean-page-hook.js';
import { leanPagesEncoding } from '../src/store/cassandra/lean-pages.js';
import { columnRangeBytes } from '../src/store/cassandra/column-range.js';
import { ScanRows } from '../src/store/cassandra/scan-rows.js';
import { statementsFor } from '../src/store/cassandra/statements.js';
import { columnBounds, encodeRowKey } from '../src/store/format/index.js';
import type { RowKey, RowSpec } from '../src/store/store.js';

export interface PageSum {
  readonly points: number;
  readonly sum: number;
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** The bound values of the store's SELECT for the whole partition, computed once: the floor does no encoding. */
export function floorParamsOf(spec: RowSpec, key: RowKey): Buffer[] {
  const { start, end } = columnBounds(spec, key.rowTime, 0, Number.MAX_SAFE_INTEGER, false);
  const bytes = encodeRowKey(key);
  return [Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ...columnRangeBytes(start, end)];
}

/** The driver's Rows of a double page, summed. */
export function sumDriverRows(rows: unknown): PageSum {
  let sum = 0;
  for (const row of rows as cassandra.types.Row[]) {
    (row['column1'] as Buffer).readUInt32BE(0);
    sum += (row['value'] as Buffer).readDoubleBE(0);
  }
  return { points: (rows as cassandra.types.Row[]).length, sum };
}

/** A lean page of doubles summed from the frame's bytes: what the lean page hook leaves for any reader to do. */
export function sumLeanRows(rows: unknown): PageSum {
  if (!(rows instanceof ScanRows))
    throw new Error('the lean client got Rows: the lean page hook did not take the scan');
  const { buf } = rows;
  let sum = 0;
  let p = rows.start;
  for (let i = 0; i < rows.length; i++) {
    const columnLength = buf.readInt32BE(p);
    buf.readUInt32BE(p + 4);
    p += 4 + columnLength;
    const valueLength = buf.readInt32BE(p);
    sum += buf.readDoubleBE(p + 4);
    p += 4 + valueLength;
  }
  return { points: rows.length, sum };
}

/** Every page of every partition of `keys` in `keyspace` through `client`, `concurrency` partitions at a time. */
export async function readPartitions(
  client: cassandra.Client,
  keyspace: string,
  spec: RowSpec,
  keys: readonly RowKey[],
  options: { readonly concurrency: number; readonly fetchSize: number; readonly read: (rows: unknown) => PageSum },
): Promise<PageSum> {
  const query = statementsFor(keyspace).selectPointsAsc;
  let points = 0;
  let sum = 0;
  await pool(
    keys.map((key) => floorParamsOf(spec, key)),
    options.concurrency,
    async (params) => {
      let pageState: Buffer | undefined;
      do {
        const result = await client.execute(query, params, {
          prepare: true,
          fetchSize: options.fetchSize,
          autoPage: false,
          isIdempotent: true,
          ...(pageState ? { pageState } : {}),
        });
        const page = options.read(result.rows);
        points += page.points;
        sum += page.sum;
        pageState = (result as unknown as { rawPageState?: Buffer }).rawPageState ?? undefined;
      } while (pageState !== undefined);
    },
  );
  return { points, sum };
}

export interface LeanFloor {
  readonly client: cassandra.Client;
  /** Every point of `keys`' partitions read and summed bare; resolves to how many points were read. */
  readAll(keys: readonly RowKey[]): Promise<number>;
  close(): Promise<void>;
}

/**
 * The floor of a benchmark's query on Cassandra: the store's own SELECT and lean page decoder over every partition
 * the query reads, `concurrency` partitions at a time, no engine, no HTTP.
 */
export async function openLeanFloor(options: {
  readonly contactPoint: string;
  readonly localDataCenter: string;
  readonly keyspace: string;
  readonly spec: RowSpec;
  readonly concurrency?: number;
}): Promise<LeanFloor> {
  installLeanPageHook();
  const client = new cassandra.Client({
    contactPoints: [options.contactPoint],
    localDataCenter: options.localDataCenter,
    protocolOptions: { maxVersion: 4 },
    encoding: leanPagesEncoding(options.keyspace) as cassandra.ClientOptions['encoding'],
  });
  await client.connect();
  const concurrency = options.concurrency ?? 20;
  return {
    client,
    readAll: async (keys) =>
      (
        await readPartitions(client, options.keyspace, options.spec, keys, {
          concurrency,
          fetchSize: 5000,
          read: sumLeanRows,
        })
      ).points,
    close: () => client.shutdown(),
  };
}

/** Cassandra's thread pools that flush memtables and compact sstables. */
const SETTLING_POOLS = new Set([
  'CompactionExecutor',
  'MemtableFlushWriter',
  'MemtablePostFlush',
  'PerDiskMemtableFlushWriter_0',
]);

/**
 * Resolves, with the time it took, once Cassandra's own virtual tables show no flush or compaction under way or queued
 * twice in a row a second apart: writing a dataset leaves compactions behind it, whose CPU would count against
 * whichever query runs meanwhile.
 */
export async function settleCassandra(client: cassandra.Client): Promise<number> {
  const started = performance.now();
  for (let quiet = 0; quiet < 2; ) {
    const pools = await client.execute('SELECT name, active_tasks, pending_tasks FROM system_views.thread_pools');
    const tasks = await client.execute('SELECT kind FROM system_views.sstable_tasks');
    const busy =
      tasks.rowLength > 0 ||
      pools.rows.some(
        (row) =>
          SETTLING_POOLS.has(row['name'] as string) &&
          (row['active_tasks'] as number) + (row['pending_tasks'] as number) > 0,
      );
    quiet = busy ? 0 : quiet + 1;
    if (performance.now() - started > 300_000)
      throw new Error('Cassandra was still flushing or compacting after 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return performance.now() - started;
}

/**
 * Reads of every partition before the first query, until one is no more than 10% faster than the one before: on a
 * fresh node the first passes take longer than a query's whole floor, and by how much varies from node to node
 * (bench/RESULTS.md, "A settled, warm Cassandra before the first query").
 */
const WARM_PASSES = { least: 3, most: 12 };

/** Reads `keys` bare until the reads stop getting faster (WARM_PASSES); resolves to each pass's milliseconds. */
export async function warmReads(floor: LeanFloor, keys: readonly RowKey[]): Promise<number[]> {
  const passes: number[] = [];
  while (
    passes.length < WARM_PASSES.most &&
    !(passes.length >= WARM_PASSES.least && passes.at(-1)! > 0.9 * passes.at(-2)!)
  ) {
    const t0 = performance.now();
    await floor.readAll(keys);
    passes.push(performance.now() - t0);
  }
  return passes;
}
