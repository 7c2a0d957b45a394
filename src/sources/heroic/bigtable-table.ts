/**
 * Heroic's table on Bigtable (docs/heroic-bigtable.md): a row per series and period, a `points` cell per point whose
 * qualifier is the offset and whose value is the double. This module speaks in row keys, offsets and doubles, as
 * metrics-table.ts does for Cassandra; which key a series has is the layout's (bigtable-key.ts, heroic-source.ts).
 * Only a cell's latest version counts, as in Heroic; cells of other families (`distributionPoints`) are never read.
 */
import { InputError } from '../../model/errors.js';
import {
  BigtableClient,
  chain,
  columnRange,
  firstCells,
  latestOnly,
  stripValues,
  type BigtableClientOptions,
  type Mutation,
} from '../../store/bigtable/bigtable-client.js';
import { bigtableDouble, bigtableOffset, bigtableQualifier, bigtableValue } from './bigtable-key.js';
import type { ReadRequest, RowsPage, TableKey } from './metrics-table.js';

const POINTS = 'points';
/** Heroic drops a write whose row key is this long or longer (BigtableBackend); so does this table, loudly. */
const MAX_KEY_BYTES = 4000;
/** Heroic's cells take the server's time (its setTimestampMicros(-1)). */
const SERVER_TIME = -1;
/** Bigtable takes at most 100,000 mutations in one request. */
const MUTATIONS_PER_REQUEST = 10_000;
const NO_KEY = Buffer.alloc(0);

export class BigtableTable {
  readonly client: BigtableClient;

  constructor(options: BigtableClientOptions) {
    this.client = new BigtableClient(options);
  }

  /**
   * Up to `limit` row keys after the one `after` carries (a scan's cursor: the last key's bytes behind a 0x01 byte, as
   * a bigint, so that the catalogue keeps it as it keeps Cassandra's tokens), in key order; one cell per row, stripped.
   */
  async keys(after: bigint, limit: number): Promise<{ keys: TableKey[]; done: boolean }> {
    const start = after < 0n ? NO_KEY : Buffer.from(after.toString(16).slice(1), 'hex');
    const keys: TableKey[] = [];
    for await (const row of this.client.readRows(
      { start, startOpen: true, end: NO_KEY },
      chain([firstCells(1), stripValues()]),
      limit,
    ))
      keys.push({ key: row.key, token: keyCursor(row.key) });
    return { keys, done: keys.length < limit };
  }

  /** The latest `points` cells of a row with from <= offset <= to, in the read's order, in pages. */
  async *read(key: Buffer, from: number, to: number, request: ReadRequest): AsyncGenerator<RowsPage> {
    request.signal?.throwIfAborted();
    if (from > to) return;
    const filters = [columnRange(POINTS, bigtableQualifier(from), bigtableQualifier(to)), latestOnly()];
    // Cells come in offset order, so an ascending read's limit is the server's to apply; a descending one reads all.
    if (request.order !== 'desc' && request.limit > 0 && request.limit < 2 ** 31)
      filters.push(firstCells(request.limit));
    const filter = chain(filters);
    for await (const row of this.client.readRows({ start: key, end: key }, filter, 1, request.signal)) {
      const offsets: number[] = [];
      const values: number[] = [];
      for (let i = 0; i < row.qualifiers.length; i++) {
        const offset = bigtableOffset(row.qualifiers[i]!);
        const value = bigtableDouble(row.values[i]!);
        // Cells Heroic could not have written (a qualifier or value of another size) are no points.
        if (offset === undefined || value === undefined) continue;
        offsets.push(offset);
        values.push(value);
      }
      if (request.order === 'desc') {
        offsets.reverse();
        values.reverse();
      }
      const count = request.limit > 0 ? Math.min(request.limit, offsets.length) : offsets.length;
      const size = Math.max(1, request.fetchSize);
      for (let at = 0; at < count; at += size) {
        const end = Math.min(count, at + size);
        yield { columns: Uint32Array.from(offsets.slice(at, end)), values: Float64Array.from(values.slice(at, end)) };
      }
    }
  }

  /** Sets a `points` cell per offset at the server's time, as Heroic does; Bigtable keeps no TTL of a cell's own. */
  async insert(key: Buffer, columns: readonly number[], values: readonly number[], ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0)
      throw new InputError(
        'ttl',
        ttlSeconds,
        "is not kept by Heroic's Bigtable rows: a cell has no TTL of its own (a column family's GC rule expires cells)",
      );
    if (key.length >= MAX_KEY_BYTES)
      throw new InputError(
        'series',
        `${key.length} bytes`,
        `makes a Bigtable row key of ${MAX_KEY_BYTES} bytes or more, which Heroic drops`,
      );
    const mutations: Mutation[] = columns.map((offset, i) => ({
      set: {
        family: POINTS,
        qualifier: bigtableQualifier(offset),
        timestampMicros: SERVER_TIME,
        value: bigtableValue(values[i]!),
      },
    }));
    for (let at = 0; at < mutations.length; at += MUTATIONS_PER_REQUEST)
      await this.client.mutateRows([{ key, mutations: mutations.slice(at, at + MUTATIONS_PER_REQUEST) }]);
  }

  /** Deletes the whole row, or every version of the `points` cells with from <= offset <= to. */
  async delete(key: Buffer, range?: { readonly from: number; readonly to: number }): Promise<void> {
    if (range === undefined) {
      await this.client.mutateRows([{ key, mutations: [{ deleteRow: true }] }]);
      return;
    }
    // Bigtable deletes a column at a time: the columns of the range are read first, without their values.
    const filter = chain([
      columnRange(POINTS, bigtableQualifier(range.from), bigtableQualifier(range.to)),
      latestOnly(),
      stripValues(),
    ]);
    const mutations: Mutation[] = [];
    for await (const row of this.client.readRows({ start: key, end: key }, filter, 1))
      for (const qualifier of row.qualifiers) mutations.push({ deleteColumn: { family: POINTS, qualifier } });
    for (let at = 0; at < mutations.length; at += MUTATIONS_PER_REQUEST)
      await this.client.mutateRows([{ key, mutations: mutations.slice(at, at + MUTATIONS_PER_REQUEST) }]);
  }

  /** Reads one key: fails when the table is missing or the endpoint does not answer. */
  async ping(): Promise<void> {
    for await (const _ of this.client.readRows(
      { start: NO_KEY, end: NO_KEY },
      chain([firstCells(1), stripValues()]),
      1,
    )) {
      // One row or none: the table answered.
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** A row key as the catalogue's cursor (see keys). */
function keyCursor(key: Buffer): bigint {
  return BigInt(`0x01${key.toString('hex')}`);
}

/** How far along the key space a cursor is, from 0 to 1, by its first six bytes. */
export function keyProgress(after: bigint): number {
  if (after < 0n) return 0;
  const hex = after.toString(16).slice(1, 13).padEnd(12, '0');
  return Number.parseInt(hex, 16) / 2 ** 48;
}
