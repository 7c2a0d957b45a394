/**
 * Slices decoded from the lean page decoder's raw rows and from the driver's own rows of the same bytes, through a
 * driver connection on a fake socket (test/support/fake-driver-connection.ts): equal bit for bit on every value type,
 * page size and chunking, at the edges of 64-bit longs, and on values too short or null. Apart from the hook's own
 * tests (lean-page-hook.test.ts), which check what the driver hands it, not what the store makes of it.
 */
import type cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnOf, typedCells } from '../../../test/support/cell-arbitraries.js';
import {
  fakeConnection,
  rowsFrame,
  SCAN_COLUMNS,
  type FakeConnection,
} from '../../../test/support/fake-driver-connection.js';
import { sliceBits, type SliceBits } from '../../../test/support/slice-bits.js';
import type { Slice } from '../../model/series.js';
import { installLeanPageHook } from '../cassandra-client/lean-page-hook.js';
import { encodeLegacyLong, encodeLong } from '../format/index.js';
import { SliceBuilder } from '../slice-builder.js';
import type { RowKey, RowSpec } from '../store.js';
import { driverRowSlices } from './scan.js';
import { ScanRows } from './scan-rows.js';

installLeanPageHook();

describe('slices from raw rows and from the driver', () => {
  it('are equal bit for bit on every value type, page size and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(partitionArbitrary(), async (partition) => {
        const lean = await decodeThrough(fakeConnection(true), partition);
        const stock = await decodeThrough(fakeConnection(false), partition);
        expect(lean.pages.every((p) => p instanceof ScanRows)).toBe(true);
        expect(stock.pages.every((p) => Array.isArray(p))).toBe(true);
        expect(lean.slices).toEqual(stock.slices);
        expect(lean.slices.reduce((n, s) => n + Buffer.from(s.timestamps, 'hex').length / 8, 0)).toBe(
          partition.cells.length,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('keep the exact long at the edges of 64 bits and past ±2^53', async () => {
    const longs = [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n, 0n, -1n];
    const partition: Partition = {
      key: keyOf('kairos_long'),
      spec: MS,
      cells: longs.map((v, i) => [i, Buffer.from(encodeLong(v))]),
      pageSizes: [3, 4],
      sliceSize: 5,
      chunks: [],
    };
    const { pages, slices } = await decodeThrough(fakeConnection(true), partition);
    expect(pages.map((p) => p instanceof ScanRows)).toEqual([true, true]);
    // Only the first slice holds a long past ±(2^53-1), so only it carries exact values.
    expect(slices.map((s) => s.exact)).toEqual([longs.slice(0, 5), undefined]);
    expect(slices[1]!.values).toBe(hexOfDoubles([0, -1]));
    expect(slices.map((s) => s.allocated)).toEqual([
      [5, 5, 5],
      [5, 5],
    ]);
  });

  it('decode a value the driver hands over as null as an empty one (a kairos_legacy long 0)', async () => {
    const partition: Partition = {
      key: keyOf('kairos_legacy'),
      spec: MS,
      cells: [
        [0, null],
        [2, Buffer.from(encodeLegacyLong(7))],
      ],
      pageSizes: [2],
      sliceSize: 8,
      chunks: [],
    };
    const lean = await decodeThrough(fakeConnection(true), partition);
    expect(lean.slices.map((s) => s.values)).toEqual([hexOfDoubles([0, 7])]);
    expect(lean.slices).toEqual((await decodeThrough(fakeConnection(false), partition)).slices);
  });

  it('refuse a value too short for its type as the driver path does', async () => {
    const partition: Partition = {
      key: keyOf('kairos_double'),
      spec: MS,
      cells: [[0, hex('3ff80000000000')]],
      pageSizes: [1],
      sliceSize: 8,
      chunks: [],
    };
    await expect(decodeThrough(fakeConnection(true), partition)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 7',
    );
    await expect(decodeThrough(fakeConnection(false), partition)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 7',
    );
    // A null double after a good one, on a later slice.
    const nulled: Partition = {
      key: keyOf('kairos_double'),
      spec: MS,
      cells: [
        [0, hex('3ff8000000000000')],
        [1, null],
      ],
      pageSizes: [2],
      sliceSize: 1,
      chunks: [],
    };
    await expect(decodeThrough(fakeConnection(true), nulled)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 0',
    );
    await expect(decodeThrough(fakeConnection(false), nulled)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 0',
    );
  });
});

/** One partition as pages of a scan: cells (column, value bytes or null) cut into pages, each page's frame into chunks. */
interface Partition {
  readonly key: RowKey;
  readonly spec: RowSpec;
  readonly cells: [number, Buffer | null][];
  /** Rows per page, cycled until the cells run out. */
  readonly pageSizes: number[];
  /** Points per slice (ScanOptions.pageSize). */
  readonly sliceSize: number;
  /** Where each frame is cut, as fractions of its length. */
  readonly chunks: number[];
}

/** Sends the partition's pages through `conn` and decodes what comes back as scan.ts does, into one builder. */
async function decodeThrough(
  conn: FakeConnection,
  partition: Partition,
): Promise<{ pages: unknown[]; slices: SliceBits[] }> {
  const pages: unknown[] = [];
  const slices: Slice[] = [];
  const builder = new SliceBuilder(partition.key, partition.spec, partition.sliceSize);
  for (let at = 0, p = 0; at < partition.cells.length || p === 0; p++) {
    const size = partition.pageSizes[p % partition.pageSizes.length]!;
    const cells = partition.cells.slice(at, at + size);
    at += size;
    const last = at >= partition.cells.length;
    const frame = rowsFrame({
      columns: SCAN_COLUMNS,
      rows: cells.map(([column, value]) => [columnBytes(column), value]),
      ...(last ? {} : { pageState: Buffer.from([p]) }),
    });
    const result = await conn.exchange(
      frame,
      partition.chunks.map((f) => Math.floor(f * frame.length)),
    );
    pages.push(result.rows);
    const rows = result.rows as ScanRows | cassandra.types.Row[];
    for (const slice of rows instanceof ScanRows ? rows.slices(builder) : driverRowSlices(rows, builder))
      slices.push(slice);
    if (last) break;
  }
  const rest = builder.flush();
  if (rest !== undefined) slices.push(rest);
  return { pages, slices: slices.map(sliceBits) };
}

const MS: RowSpec = { unit: 'MILLISECONDS', width: 1_814_400_000 };
const keyOf = (dataType: string, rowTime = 1_435_190_400_000): RowKey => ({
  metric: 'm',
  rowTime,
  dataType,
  tags: { host: 'a' },
});
const hex = (h: string) => Buffer.from(h, 'hex');
const hexOfDoubles = (values: number[]) => Buffer.from(Float64Array.from(values).buffer).toString('hex');

function columnBytes(column: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(column);
  return b;
}

function partitionArbitrary(): fc.Arbitrary<Partition> {
  const spec = fc.constantFrom<RowSpec>(
    MS,
    { unit: 'SECONDS', width: 1_814_400 },
    { unit: 'LEGACY', width: 1_814_400_000 },
  );
  const layout = fc.record({
    spec,
    rowTime: fc.constantFrom(0, 1_435_190_400_000, -2),
    // Late in a row, shifted columns (LEGACY unit, kairos_legacy rows) pass 2^31.
    base: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_800_000_000 })),
    steps: fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 40, maxLength: 40 }),
    pageSizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }),
    sliceSize: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constant(4096)),
    chunks: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }).map((c) => c.sort((a, b) => a - b)),
  });
  return fc.tuple(layout, typedCells(40)).map(([l, { dataType, cells }]) => {
    let offset = l.base;
    const shifted = dataType === 'kairos_legacy' || l.spec.unit === 'LEGACY';
    const partitionCells = cells.map(({ flag, value }, i): [number, Buffer | null] => {
      offset += l.steps[i]!;
      return [columnOf(offset, flag, shifted), value];
    });
    return {
      key: keyOf(dataType, l.rowTime),
      spec: l.spec,
      cells: partitionCells,
      pageSizes: l.pageSizes,
      sliceSize: l.sliceSize,
      chunks: l.chunks,
    };
  });
}
