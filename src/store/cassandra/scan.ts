// Reads one data_points partition as slices: KairosDB's SELECT over the column range of [start, end], paged by
// the driver's page state so the next page is fetched only when the consumer asks for it.
import { LEGACY_DATA_TYPE, columnBounds, encodeRowKey, readColumn } from '../format/index.js';
import { DEFAULT_PAGE_SIZE, SliceBuilder } from '../slice-builder.js';
import type { RowKey, RowSpec, ScanOptions, Slice } from '../store.js';
import { bufferOf } from './buffer-of.js';
import { columnRangeBytes } from './column-range.js';
import { pageStateOf, type Executor } from './executor.js';
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
  let pageState: Buffer | undefined;
  do {
    const result = await exec.page('data_points.select', query, params, { ...request, pageState });
    pageState = pageStateOf(result);
    if (result.rows.length === 0) continue;
    // The builder allocates whole slices up front: a partition that fits in one page needs them no longer than it.
    builder ??= new SliceBuilder(key, spec, pageState === undefined ? Math.min(pageSize, result.rows.length) : pageSize);
    for (const row of result.rows) {
      // A kairos_legacy long 0 is an empty blob, which the protocol may hand over as null.
      const value = (row['value'] as Buffer | null) ?? EMPTY;
      const done = builder.add(readColumn(row['column1'] as Buffer, 0), value, 0, value.length);
      if (done !== undefined) yield done;
    }
  } while (pageState !== undefined);
  const rest = builder?.flush();
  if (rest !== undefined) yield rest;
}

const EMPTY = Buffer.alloc(0);
