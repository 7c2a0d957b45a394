/**
 * The floor of a Cassandra read, shared by the benchmarks: the store's own prepared SELECT over whole partitions,
 * paged by the driver, with the project's lean page decoder or the driver's Rows, no engine and no HTTP.
 */
import type cassandra from 'cassandra-driver';
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
