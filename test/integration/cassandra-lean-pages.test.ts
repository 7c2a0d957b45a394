/**
 * The lean page decoder on the real node: a store with it and one with the driver's own decoding, on one keyspace,
 * scan the same partitions (cells laid out with plain CQL: every value type, KairosDB ≤0.9.3 rows, null and empty
 * values) into the same slices bit for bit, whatever the page size, order, limit and range; and the values are the
 * ones written.
 */
import type cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraStore, type ScanPageCounts } from '../../src/store/cassandra/cassandra-store.js';
import {
  encodeComplex,
  encodeDouble,
  encodeLegacyDouble,
  encodeLegacyFloat,
  encodeLegacyLong,
  encodeLong,
  encodeRowKey,
  encodeString,
} from '../../src/store/format/index.js';
import { ReadAheadBudget } from '../../src/lib/queued-scan.js';
import type { RowKey, ScanOptions } from '../../src/store/store.js';
import { MAX_LONG, MIN_LONG, columnOf, typedCells } from '../support/cell-arbitraries.js';
import { scanBits, type SliceBits } from '../support/slice-bits.js';
import { scanAll } from '../support/store-reads.js';
import { emptyKeyspace, plainClient, storeOptions } from './cassandra-stores.js';

const KEYSPACE = 'kg_lean_pages';
/** Small enough that most partitions here span several pages when a scan does not ask for its own page size. */
const FETCH_SIZE = 7;
/** A row time of the default 3-week rows (reference §2.1). */
const R = 1_435_190_400_000;

let cql: cassandra.Client;
let lean: CassandraStore;
let driver: CassandraStore;
let partitions = 0;

beforeAll(async () => {
  cql = await plainClient();
  await emptyKeyspace(cql, KEYSPACE);
  lean = await CassandraStore.open(storeOptions(KEYSPACE, { fetchSize: FETCH_SIZE }));
  driver = await CassandraStore.open(storeOptions(KEYSPACE, { fetchSize: FETCH_SIZE, scanDecoder: 'driver' }));
});
afterAll(async () => {
  await lean?.close();
  await driver?.close();
  await cql?.shutdown();
});

/** A key no other test writes to. */
function freshKey(dataType: string): RowKey {
  return { metric: 'lean', rowTime: R, dataType, tags: { partition: String(partitions++) } };
}

/** Lays cells out with plain CQL, as any writer may have, with KairosDB's millisecond write times: [column, value bytes or null]. */
async function layOut(key: RowKey, cells: readonly (readonly [number, Buffer | null])[]): Promise<void> {
  const keyBytes = Buffer.from(encodeRowKey(key));
  const insert = `INSERT INTO ${KEYSPACE}.data_points (key, column1, value) VALUES (?, ?, ?)`;
  for (let i = 0; i < cells.length; i += 50) {
    const queries = cells
      .slice(i, i + 50)
      .map(([column, value]) => ({ query: insert, params: [keyBytes, columnBytes(column), value] }));
    await cql.batch(queries, { prepare: true, logged: false, timestamp: Date.now() });
  }
}

/** The same scan through both stores: their slices, and that each decoded its pages the way it was made to. */
async function bothWays(key: RowKey, startMs: number, endMs: number, options: ScanOptions = {}): Promise<SliceBits[]> {
  const before: [ScanPageCounts, ScanPageCounts] = [lean.scanPages, driver.scanPages];
  const viaLean = await scanBits(lean.scan(key, startMs, endMs, options));
  const viaDriver = await scanBits(driver.scan(key, startMs, endMs, options));
  expect(viaLean).toEqual(viaDriver);
  expect(lean.scanPages.driver).toBe(before[0].driver);
  expect(driver.scanPages.lean).toBe(before[1].lean);
  expect(lean.scanPages.lean - before[0].lean).toBe(driver.scanPages.driver - before[1].driver);
  return viaLean;
}

const WHOLE_ROW = [R, R + 1_814_399_999] as const;

describe('every value type', () => {
  it('longs: the exact value at the edges of 64 bits and past ±2^53', async () => {
    const longs = [MIN_LONG, MAX_LONG, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 53n - 1n, 0n, -1n, 300n];
    for (const dataType of ['kairos_long', 'kairos_long_nano']) {
      const key = freshKey(dataType);
      await layOut(
        key,
        longs.map((v, i) => [i * 10, Buffer.from(encodeLong(v))]),
      );
      await bothWays(key, ...WHOLE_ROW);
      expect(await scanAll(lean, key, ...WHOLE_ROW)).toEqual(longs.map((v, i) => ({ t: R + i * 10, v, kind: 'long' })));
    }
  });

  it('doubles: NaN with any payload, -0, subnormals, infinities', async () => {
    const cells = [
      '7ff8000000000000',
      '7ff0000000000001',
      'fff8000000000000',
      '8000000000000000',
      '0000000000000001',
      '8000000000000001',
      '0010000000000000',
      '7ff0000000000000',
      'fff0000000000000',
      '3ff8000000000000',
    ];
    const key = freshKey('kairos_double');
    await layOut(
      key,
      cells.map((h, i) => [i, Buffer.from(h, 'hex')]),
    );
    const [slice] = await bothWays(key, ...WHOLE_ROW);
    // The bytes of every value, big-endian as stored: the lean decoder keeps each double bit for bit.
    const stored = Buffer.from(slice!.values as string, 'hex');
    expect(
      cells.map((_, i) =>
        Buffer.from(stored.subarray(i * 8, i * 8 + 8))
          .reverse()
          .toString('hex'),
      ),
    ).toEqual(cells);
    const values = (await scanAll(lean, key, ...WHOLE_ROW)).map((p) => p.v);
    expect(values.slice(3)).toEqual([-0, 5e-324, -5e-324, 2.2250738585072014e-308, Infinity, -Infinity, 1.5]);
    expect(values.slice(0, 3).every(Number.isNaN)).toBe(true);
  });

  it('strings: empty, accented, astral, NUL, and one of 60,000 bytes in a frame of many chunks', async () => {
    const strings = ['', 'a', 'é', '𝄞', 'a\u0000b', 'é'.repeat(30_000), 'z'];
    const key = freshKey('kairos_string');
    await layOut(
      key,
      strings.map((s, i) => [i, Buffer.from(encodeString(s))]),
    );
    await bothWays(key, ...WHOLE_ROW);
    await bothWays(key, ...WHOLE_ROW, { pageSize: 2 });
    expect((await scanAll(lean, key, ...WHOLE_ROW)).map((p) => p.v)).toEqual(strings);
  });

  it('complex numbers', async () => {
    const pairs: [number, number][] = [
      [1.5, -2],
      [Number.NaN, -0],
      [Infinity, 5e-324],
    ];
    const key = freshKey('kairos_complex');
    await layOut(
      key,
      pairs.map(([re, im], i) => [i, Buffer.from(encodeComplex(re, im))]),
    );
    const [slice] = await bothWays(key, ...WHOLE_ROW);
    expect(slice!.kind).toBe('complex');
    const floats = (h: string) => [...new Float64Array(new Uint8Array(Buffer.from(h, 'hex')).buffer)];
    expect(floats(slice!.values as string)).toEqual([1.5, Number.NaN, Infinity]);
    expect(floats(slice!.imaginary!)).toEqual([-2, -0, 5e-324]);
  });

  it('KairosDB ≤0.9.3 rows: longs (0 empty or null), floats and doubles in runs of one kind', async () => {
    const key = freshKey('kairos_legacy');
    const cells: [number, Buffer | null][] = [
      [columnOf(0, 0, true), Buffer.from(encodeLegacyLong(5))],
      [columnOf(1, 0, true), Buffer.alloc(0)],
      [columnOf(2, 0, true), null],
      [columnOf(3, 0, true), Buffer.from(encodeLegacyLong(-1))],
      [columnOf(4, 1, true), Buffer.from(encodeLegacyFloat(1.5))],
      [columnOf(5, 1, true), Buffer.from(encodeLegacyDouble(-0))],
      [columnOf(6, 0, true), Buffer.from(encodeLegacyLong(MAX_LONG))],
      // The last millisecond of the row: shifted, its column passes 2^31.
      [columnOf(1_814_399_999, 1, true), Buffer.from(encodeLegacyFloat(-2))],
    ];
    await layOut(key, cells);
    const slices = await bothWays(key, ...WHOLE_ROW);
    expect(slices.map((s) => s.kind)).toEqual(['long', 'double', 'long', 'double']);
    const points = await scanAll(lean, key, ...WHOLE_ROW);
    expect(points.map((p) => p.v)).toEqual([5n, 0n, 0n, -1n, 1.5, -0, MAX_LONG, -2]);
    expect(points.map((p) => p.t - R)).toEqual([0, 1, 2, 3, 4, 5, 6, 1_814_399_999]);
  });
});

describe('pages', () => {
  it('give the same slices for any page size, order and limit, a partition spanning many pages included', async () => {
    const key = freshKey('kairos_long');
    const n = 23;
    await layOut(
      key,
      Array.from({ length: n }, (_, i) => [i * 3, Buffer.from(encodeLong(i * 1000))]),
    );
    for (const pageSize of [undefined, 1, 2, 3, 22, 23, 24, 5000]) {
      for (const order of ['asc', 'desc'] as const) {
        for (const limit of [undefined, 1, 5, 23, 30]) {
          const options = { order, ...(pageSize ? { pageSize } : {}), ...(limit ? { limit } : {}) };
          const slices = await bothWays(key, ...WHOLE_ROW, options);
          const times = slices.flatMap((s) => [
            ...new Float64Array(new Uint8Array(Buffer.from(s.timestamps, 'hex')).buffer),
          ]);
          const all = Array.from({ length: n }, (_, i) => R + i * 3);
          expect(times, JSON.stringify(options)).toEqual((order === 'asc' ? all : all.reverse()).slice(0, limit ?? n));
          expect(slices.every((s) => s.timestamps.length / 16 <= (pageSize ?? 4096))).toBe(true);
        }
      }
    }
  });

  it('split, read every part ahead of the reader while the budget has room, and stop where it is full', async () => {
    const key = freshKey('kairos_long');
    await layOut(
      key,
      Array.from({ length: 100 }, (_, i) => [i, Buffer.from(encodeLong(i))]),
    );
    // Pages of 4 points: the first page, then columns 4-99 in 4 parts of 24 points, 6 pages each.
    const pagesAfterFirstSlice = async (budget: ReadAheadBudget) => {
      const before = lean.scanPages.lean;
      const scan = lean.scan(key, R, R + 99, { pageSize: 4, split: 4, readAhead: budget })[Symbol.asyncIterator]();
      expect((await scan.next()).value?.timestamps).toEqual(Float64Array.of(R, R + 1, R + 2, R + 3));
      // The reader holds the first slice; the parts read on meanwhile, as far as the budget lets them.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pages = lean.scanPages.lean - before;
      const held = budget.points;
      await scan.return?.(undefined);
      expect(budget.points).toBe(0);
      return { pages, held };
    };
    expect(await pagesAfterFirstSlice(new ReadAheadBudget(1_000))).toEqual({ pages: 25, held: 96 });
    // A full budget: each part still reads its first slice, which the builder hands out when the second page's first
    // point comes: two pages a part.
    expect(await pagesAfterFirstSlice(new ReadAheadBudget(0))).toEqual({ pages: 9, held: 16 });
  });

  it('give nothing for an empty range or partition, and the same around range tombstones', async () => {
    expect(await bothWays(freshKey('kairos_double'), ...WHOLE_ROW)).toEqual([]);
    const key = freshKey('kairos_double');
    await layOut(
      key,
      Array.from({ length: 30 }, (_, i) => [i, Buffer.from(encodeDouble(i / 2))]),
    );
    expect(await bothWays(key, R + 100, R + 200)).toEqual([]);
    await lean.deleteRange(key, R + 5, R + 24);
    for (const pageSize of [1, 2, 7]) {
      const slices = await bothWays(key, ...WHOLE_ROW, { pageSize });
      expect(slices.reduce((points, s) => points + s.timestamps.length / 16, 0)).toBe(10);
    }
  });
});

describe('random partitions', () => {
  it('scan into the same slices through the lean decoder and through the driver', async () => {
    const scan = fc.record({
      order: fc.constantFrom('asc' as const, 'desc' as const),
      limit: fc.option(fc.integer({ min: 1, max: 130 }), { nil: undefined }),
      pageSize: fc.option(
        fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 60 }), fc.constant(5000)),
        { nil: undefined },
      ),
      // From the partition's first point.
      from: fc.integer({ min: -50, max: 6000 }),
      span: fc.integer({ min: 0, max: 8000 }),
      split: fc.integer({ min: 2, max: 6 }),
      // Points the parts may hold ahead of the reader (ScanOptions.readAhead): none at all, a page, or all of it.
      readAhead: fc.option(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 }), fc.constant(1_000_000)), {
        nil: undefined,
      }),
      // Slices the reader takes before it stops early.
      stopAfter: fc.integer({ min: 0, max: 5 }),
    });
    const partition = fc.record({
      typed: typedCells(120),
      // Late in the row, kairos_legacy columns pass 2^31.
      base: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_814_399_999 - 120 * 100 })),
      steps: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 120, maxLength: 120 }),
      scans: fc.array(scan, { minLength: 1, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(partition, async ({ typed: { dataType, cells }, base, steps, scans }) => {
        const key = freshKey(dataType);
        let offset = base;
        await layOut(
          key,
          cells.map(({ flag, value }, i) => {
            offset += steps[i]!;
            return [columnOf(offset, flag, dataType === 'kairos_legacy'), value] as const;
          }),
        );
        await bothWays(key, ...WHOLE_ROW);
        for (const { order, limit, pageSize, from, span, split: parts, readAhead, stopAfter } of scans) {
          const options = { order, ...(limit ? { limit } : {}), ...(pageSize ? { pageSize } : {}) };
          const [start, end] = [R + base + from, R + base + from + span];
          await bothWays(key, start, end, options);
          // Split, both decoders agree, and on the same points in the same order as unsplit (in other slices), however
          // much the parts may read ahead; what they held ahead is given back, read to the end or stopped early.
          const budget = readAhead === undefined ? undefined : new ReadAheadBudget(readAhead);
          const splitOptions = { ...options, split: parts, ...(budget ? { readAhead: budget } : {}) };
          await bothWays(key, start, end, splitOptions);
          const split = await scanAll(lean, key, start, end, splitOptions);
          expect(split).toEqual(await scanAll(lean, key, start, end, options));
          expect(budget?.points ?? 0).toBe(0);
          const stopped = lean.scan(key, start, end, splitOptions)[Symbol.asyncIterator]();
          for (let k = 0; k < stopAfter; k++) await stopped.next();
          await stopped.return?.(undefined);
          expect(budget?.points ?? 0).toBe(0);
        }
      }),
      { numRuns: 100 },
    );
  });
});

function columnBytes(column: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(column);
  return b;
}
