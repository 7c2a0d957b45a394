// Reads one data_points partition as slices: KairosDB's SELECT over the column range of [start, end], paged by
// the driver's page state, one page ahead of the consumer (never more). Pages come as ScanRows
// (the lean decoder, lean-page-hook.ts) or, on a client without it, as the driver's Rows; both fill one builder.
// A scan asked to split (ScanOptions.split) and longer than its first page reads the rest of its column range as
// that many consecutive column ranges at once and yields them in order: Cassandra serves one range's pages one after
// another, so a partition read alone would otherwise keep one request in flight. While the first range is read, the
// others read on into queues within the request's read-ahead budget (ScanOptions.readAhead; without one, about a page
// each).
import type cassandra from 'cassandra-driver';
import { LEGACY_DATA_TYPE, columnBounds, encodeRowKey, readColumn } from '../format/index.js';
import { DEFAULT_PAGE_SIZE, SliceBuilder } from '../slice-builder.js';
import { QueuedScan, ReadAheadBudget } from '../../lib/queued-scan.js';
import type { RowKey, RowSpec, ScanOptions } from '../store.js';
import type { Slice } from '../../model/series.js';
import { bufferOf } from './buffer-of.js';
import { columnRangeBytes } from './column-range.js';
import { pageStateOf, pagesAhead } from '../cassandra-client/pages.js';
import type { StoreExecutor, Statements } from './statements.js';
import { ScanRows } from './scan-rows.js';

export async function* scanPartition(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  fetchSize: number,
  key: RowKey,
  startMs: number,
  endMs: number,
  options: ScanOptions,
  pages: ScanPageCounts,
): AsyncGenerator<Slice> {
  const { start, end } = columnBounds(spec, key.rowTime, startMs, endMs, key.dataType === LEGACY_DATA_TYPE);
  if (start >= end) return;
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
  const scan: ColumnScan = {
    exec,
    st,
    spec,
    fetchSize,
    key,
    keyBytes: bufferOf(encodeRowKey(key)),
    options,
    limit,
    pages,
  };
  const parts = limit > 0 ? 1 : Math.floor(options.split ?? 1);
  if (parts <= 1) {
    yield* scanColumns(scan, start, end);
    return;
  }
  // Split lazily: the first page alone says whether there is more, so a partition of one page costs one request.
  const first = await scan.exec.page(
    'data_points.select',
    queryOf(scan),
    paramsOf(scan, start, end),
    requestOf(scan, undefined),
  );
  const rows = rowsOf(first);
  if (rows.length === 0) {
    // An empty page that says there is more (tombstones filled it) gives no column to split after: read on whole.
    if (pageStateOf(first) !== undefined) yield* scanColumns(scan, start, end);
    return;
  }
  // The rest of the range, when there is more: past the first page's last column (below it, in descending order), cut
  // into consecutive ranges that are all read at once, each queued ahead within the budget, and yielded in order.
  const last = lastColumnOf(rows);
  const [from, to] =
    pageStateOf(first) === undefined ? [0, 0] : options.order === 'desc' ? [start, last] : [last + 1, end];
  const n = Math.min(parts, Math.max(0, to - from));
  const cuts = Array.from({ length: n + 1 }, (_, i) => from + Math.floor(((to - from) * i) / n));
  const ranges = cuts.slice(1).map((cut, i) => [cuts[i]!, cut] as const);
  if (options.order === 'desc') ranges.reverse();
  const budget = options.readAhead ?? new ReadAheadBudget(ranges.length * (options.pageSize ?? fetchSize));
  // Every part's first page is asked for now, whatever the budget: the split's requests in flight at the least.
  const scans = ranges.map(([a, b]) => new QueuedScan(scanColumns(scan, a, b), budget, true));
  try {
    const builder = new SliceBuilder(key, spec, Math.min(options.pageSize ?? DEFAULT_PAGE_SIZE, rows.length));
    yield* pageSlices(scan, rows, builder);
    const rest = builder.flush();
    if (rest !== undefined) yield rest;
    for (const part of scans) {
      for (let next = await part.next(); next.done !== true; next = await part.next()) yield next.value;
    }
  } finally {
    await Promise.allSettled(scans.map((part) => part.return()));
  }
}

interface ColumnScan {
  readonly exec: StoreExecutor;
  readonly st: Statements;
  readonly spec: RowSpec;
  readonly fetchSize: number;
  readonly key: RowKey;
  /** The key's bytes, encoded once for every part of a split scan. */
  readonly keyBytes: Buffer;
  readonly options: ScanOptions;
  readonly limit: number;
  readonly pages: ScanPageCounts;
}

function queryOf({ st, options, limit }: ColumnScan): string {
  const desc = options.order === 'desc';
  return limit > 0
    ? desc
      ? st.selectPointsDescLimit
      : st.selectPointsAscLimit
    : desc
      ? st.selectPointsDesc
      : st.selectPointsAsc;
}

function paramsOf({ keyBytes, limit }: ColumnScan, start: number, end: number): unknown[] {
  const params: unknown[] = [keyBytes, ...columnRangeBytes(start, end)];
  if (limit > 0) params.push(limit);
  return params;
}

function requestOf({ options, fetchSize }: ColumnScan, pageState: Buffer | undefined) {
  return { fetchSize: options.pageSize ?? fetchSize, signal: options.signal, pageState };
}

function rowsOf(result: cassandra.types.ResultSet): ScanRows | cassandra.types.Row[] {
  return result.rows as unknown as ScanRows | cassandra.types.Row[];
}

/** The partition's cells in the column range [start, end), page after page, one page ahead of the consumer. */
async function* scanColumns(scan: ColumnScan, start: number, end: number): AsyncGenerator<Slice> {
  if (start >= end) return;
  const query = queryOf(scan);
  const params = paramsOf(scan, start, end);
  const pageSize = scan.options.pageSize ?? DEFAULT_PAGE_SIZE;
  let builder: SliceBuilder | undefined;
  // The next page is on its way while this one is decoded and consumed, so Cassandra and Node work at once.
  for await (const result of pagesAhead((pageState) =>
    scan.exec.page('data_points.select', query, params, requestOf(scan, pageState)),
  )) {
    const rows = rowsOf(result);
    if (rows.length === 0) continue;
    // The builder allocates whole slices up front: a partition that fits in one page needs them no longer than it.
    builder ??= new SliceBuilder(
      scan.key,
      scan.spec,
      pageStateOf(result) === undefined ? Math.min(pageSize, rows.length) : pageSize,
    );
    yield* pageSlices(scan, rows, builder);
  }
  const rest = builder?.flush();
  if (rest !== undefined) yield rest;
}

/** One page's rows into `builder`, yielding the slices it completes. */
function* pageSlices(
  scan: ColumnScan,
  rows: ScanRows | cassandra.types.Row[],
  builder: SliceBuilder,
): Generator<Slice, void, undefined> {
  if (rows instanceof ScanRows) {
    scan.pages.lean++;
    yield* rows.slices(builder);
  } else {
    scan.pages.driver++;
    yield* driverRowSlices(rows, builder);
  }
}

/** The column name of a page's last row. */
function lastColumnOf(rows: ScanRows | cassandra.types.Row[]): number {
  return rows instanceof ScanRows ? rows.lastColumn() : readColumn(rows[rows.length - 1]!['column1'] as Buffer, 0);
}

/** Pages of the scan by how they were decoded (lean: ScanRows; driver: a Row per row). */
export interface ScanPageCounts {
  lean: number;
  driver: number;
}

/** The driver's Rows of a client without the lean decoder: its cells are Buffers of their own. */
export function* driverRowSlices(
  rows: cassandra.types.Row[],
  builder: SliceBuilder,
): Generator<Slice, void, undefined> {
  for (const row of rows) {
    // A kairos_legacy long 0 is an empty blob, which the protocol may hand over as null.
    const value = (row['value'] as Buffer | null) ?? EMPTY;
    const done = builder.add(readColumn(row['column1'] as Buffer, 0), value, 0, value.length);
    if (done !== undefined) yield done;
  }
}

const EMPTY = Buffer.alloc(0);
