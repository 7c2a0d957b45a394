// Reads one data_points partition as slices: KairosDB's SELECT over the column range of [start, end], paged by
// the driver's page state, one page ahead of the consumer (never more). Pages come as ScanRows
// (the lean decoder, lean-page-hook.ts) or, on a client without it, as the driver's Rows; both fill one builder.
import type cassandra from 'cassandra-driver';
import { LEGACY_DATA_TYPE, columnBounds, encodeRowKey, readColumn } from '../format/index.js';
import { DEFAULT_PAGE_SIZE, SliceBuilder } from '../slice-builder.js';
import type { RowKey, RowSpec, ScanOptions, Slice } from '../store.js';
import { bufferOf } from './buffer-of.js';
import { columnRangeBytes } from './column-range.js';
import { pageStateOf, pagesAhead, type Executor } from './executor.js';
import { ScanRows } from './scan-rows.js';
import type { Statements } from './statements.js';

export async function* scanPartition(
  exec: Executor,
  st: Statements,
  spec: RowSpec,
  fetchSize: number,
  key: RowKey,
  startMs: number,
  endMs: number,
  options: ScanOptions,
  pages: ScanPageCounts,
): AsyncGenerator<Slice> {
  const keyBytes = bufferOf(encodeRowKey(key));
  const { start, end } = columnBounds(spec, key.rowTime, startMs, endMs, key.dataType === LEGACY_DATA_TYPE);
  if (start >= end) return;
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
  const desc = options.order === 'desc';
  const query = limit > 0 ? (desc ? st.selectPointsDescLimit : st.selectPointsAscLimit) : desc ? st.selectPointsDesc : st.selectPointsAsc;
  const params: unknown[] = [keyBytes, ...columnRangeBytes(start, end)];
  if (limit > 0) params.push(limit);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const request = { fetchSize: options.pageSize ?? fetchSize, signal: options.signal };
  let builder: SliceBuilder | undefined;
  // The next page is on its way while this one is decoded and consumed, so Cassandra and Node work at once.
  for await (const result of pagesAhead((pageState) => exec.page('data_points.select', query, params, { ...request, pageState }))) {
    const pageState = pageStateOf(result);
    const rows = result.rows as unknown as ScanRows | cassandra.types.Row[];
    if (rows.length === 0) continue;
    // The builder allocates whole slices up front: a partition that fits in one page needs them no longer than it.
    builder ??= new SliceBuilder(key, spec, pageState === undefined ? Math.min(pageSize, rows.length) : pageSize);
    if (rows instanceof ScanRows) {
      pages.lean++;
      yield* rows.slices(builder);
    } else {
      pages.driver++;
      yield* driverRowSlices(rows, builder);
    }
  }
  const rest = builder?.flush();
  if (rest !== undefined) yield rest;
}

/** Pages of the scan by how they were decoded (lean: ScanRows; driver: a Row per row). */
export interface ScanPageCounts {
  lean: number;
  driver: number;
}

/** The driver's Rows of a client without the lean decoder: its cells are Buffers of their own. */
export function* driverRowSlices(rows: cassandra.types.Row[], builder: SliceBuilder): Generator<Slice, void, undefined> {
  for (const row of rows) {
    // A kairos_legacy long 0 is an empty blob, which the protocol may hand over as null.
    const value = (row['value'] as Buffer | null) ?? EMPTY;
    const done = builder.add(readColumn(row['column1'] as Buffer, 0), value, 0, value.length);
    if (done !== undefined) yield done;
  }
}

const EMPTY = Buffer.alloc(0);
