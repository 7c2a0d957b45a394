import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROW_WIDTH_MS, type RowSpec, type RowTimeUnit } from '../store.js';
import {
  columnBounds,
  decodeColumn,
  encodeColumn,
  encodeLegacyRowColumn,
  legacyColumnIsDouble,
  readColumn,
  writeColumn,
} from './column-name.js';
import { rowTimeOf } from './row-time.js';
import { hex } from '../../../test/support/bytes.js';

const W = DEFAULT_ROW_WIDTH_MS;
const R = 1435190400000;
const MS: RowSpec = { unit: 'MILLISECONDS', width: W };
const SECONDS: RowSpec = { unit: 'SECONDS', width: 1814400 };
const LEGACY: RowSpec = { unit: 'LEGACY', width: W };

describe('encodeColumn / decodeColumn', () => {
  it('MILLISECONDS: the offset, read back signed', () => {
    expect(encodeColumn(MS, R, R)).toBe(0);
    expect(encodeColumn(MS, R, R + 1)).toBe(1);
    expect(encodeColumn(MS, R, R + W - 1)).toBe(W - 1);
    expect(decodeColumn(MS, R, W - 1, false)).toBe(R + W - 1);
    expect(encodeColumn(MS, R, R - 1)).toBe(0xffffffff);
    expect(decodeColumn(MS, R, 0xffffffff, false)).toBe(R - 1);
  });

  it('SECONDS: the offset in whole seconds, truncated toward zero as in Java', () => {
    expect(encodeColumn(SECONDS, R, R + 999)).toBe(0);
    expect(encodeColumn(SECONDS, R, R + 1999)).toBe(1);
    expect(encodeColumn(SECONDS, R, R + 2000)).toBe(2);
    expect(decodeColumn(SECONDS, R, 2, false)).toBe(R + 2000);
    expect(encodeColumn(SECONDS, R, R - 1500)).toBe(0xffffffff);
    expect(decodeColumn(SECONDS, R, 0xffffffff, false)).toBe(R - 1000);
  });

  it('LEGACY: the offset shifted left, above 2^31 for a 3-week row, read back unsigned', () => {
    expect(encodeColumn(LEGACY, R, R + 1)).toBe(2);
    expect(encodeColumn(LEGACY, R, R + W - 1)).toBe(3628799998);
    expect(encodeColumn(LEGACY, R, R + W - 1)).toBeGreaterThan(2 ** 31);
    expect(decodeColumn(LEGACY, R, 3628799998, false)).toBe(R + W - 1);
    expect(decodeColumn(LEGACY, R, 3628799999, false)).toBe(R + W - 1);
  });

  it('kairos_legacy rows: shifted offset with bit 0 as the long/float flag', () => {
    expect(encodeLegacyRowColumn(R, R + 5, false)).toBe(10);
    expect(encodeLegacyRowColumn(R, R + 5, true)).toBe(11);
    expect(encodeLegacyRowColumn(R, R + W - 1, true)).toBe(3628799999);
    expect(legacyColumnIsDouble(3628799999)).toBe(true);
    expect(legacyColumnIsDouble(3628799998)).toBe(false);
    expect(decodeColumn(LEGACY, R, 11, true)).toBe(R + 5);
    expect(decodeColumn(MS, R, 3628799999, true)).toBe(R + W - 1);
  });

  it('round-trips every timestamp of a row in each unit, negative timestamps included', () => {
    const units: RowTimeUnit[] = ['MILLISECONDS', 'SECONDS', 'LEGACY'];
    fc.assert(
      fc.property(
        fc.constantFrom(...units),
        fc.integer({ min: 1, max: W }),
        fc.integer({ min: -(2 ** 45), max: 2 ** 45 }),
        (unit, width, ts) => {
          const spec: RowSpec = { unit, width };
          const rowTime = rowTimeOf(ts, width);
          const column = encodeColumn(spec, rowTime, ts);
          expect(column).toBe(column >>> 0);
          const expected = unit === 'SECONDS' ? ts - ((ts - rowTime) % 1000) : ts;
          expect(decodeColumn(spec, rowTime, column, false)).toBe(expected);
          const legacyColumn = encodeLegacyRowColumn(rowTime, ts, ts % 2 === 0);
          expect(decodeColumn(spec, rowTime, legacyColumn, true)).toBe(ts);
          expect(legacyColumnIsDouble(legacyColumn)).toBe(ts % 2 === 0);
        },
      ),
    );
  });
});

describe('columnBounds', () => {
  it('MILLISECONDS: 0 before the row, colName(end) + 1, clipped at the row end', () => {
    expect(columnBounds(MS, R, R - 5000, R + 1000, false)).toEqual({ start: 0, end: 1001 });
    expect(columnBounds(MS, R, R + 10, R + 20, false)).toEqual({ start: 10, end: 21 });
    expect(columnBounds(MS, R, R + 10, R + W + 5000, false)).toEqual({ start: 10, end: W + 1 });
    expect(columnBounds(MS, R, R + 10, R + 10, false)).toEqual({ start: 10, end: 11 });
  });

  it('SECONDS: whole-second columns, the end clipped with the ms width', () => {
    expect(columnBounds(SECONDS, R, R + 1500, R + 2999, false)).toEqual({ start: 1, end: 3 });
    expect(columnBounds(SECONDS, R, R - 1, R + 999, false)).toEqual({ start: 0, end: 1 });
    expect(columnBounds(SECONDS, R, R + 1500, R + W + 1, false)).toEqual({ start: 1, end: 1814401 });
  });

  it('LEGACY: shifted columns; kairos_legacy rows also take the odd column of the last ms', () => {
    expect(columnBounds(LEGACY, R, R + 10, R + 20, false)).toEqual({ start: 20, end: 41 });
    expect(columnBounds(LEGACY, R, R + 10, R + 20, true)).toEqual({ start: 20, end: 42 });
    expect(columnBounds(LEGACY, R, R - 1, R + 20, true)).toEqual({ start: 0, end: 42 });
    expect(columnBounds(LEGACY, R, R + 10, R + W + 10, false)).toEqual({ start: 20, end: 3628800001 });
    expect(columnBounds(LEGACY, R, R + 10, R + W + 10, true)).toEqual({ start: 20, end: 3628800002 });
    expect(columnBounds(MS, R, R + 10, R + 20, true)).toEqual({ start: 20, end: 42 });
  });

  it('is empty when the query ends before the row or starts after it', () => {
    for (const spec of [MS, SECONDS, LEGACY]) {
      for (const legacyRow of [false, true]) {
        const before = columnBounds(spec, R, R - 100, R - 1, legacyRow);
        expect(before.start).toBeGreaterThanOrEqual(before.end);
        const after = columnBounds(spec, R, R + 2 * W, R + 3 * W, legacyRow);
        expect(after.start).toBeGreaterThanOrEqual(after.end);
        const inverted = columnBounds(spec, R, R + 20, R + 10, legacyRow);
        expect(inverted.start).toBeGreaterThanOrEqual(inverted.end);
      }
    }
  });

  it('takes in exactly the columns of timestamps inside [start, end] (MILLISECONDS, LEGACY, legacy rows)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<RowTimeUnit>('MILLISECONDS', 'LEGACY'),
        fc.boolean(),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.nat(),
        fc.tuple(fc.nat(), fc.nat()),
        (unit, legacyRow, width, seed, offsetSeed, [a, b]) => {
          const spec: RowSpec = { unit, width };
          const rowTime = rowTimeOf(seed, width);
          const ts = rowTime + (offsetSeed % width);
          const startMs = rowTime + (a % (3 * width)) - width;
          const endMs = rowTime + (b % (3 * width)) - width;
          const { start, end } = columnBounds(spec, rowTime, startMs, endMs, legacyRow);
          const inside = startMs <= ts && ts <= endMs;
          const columns = legacyRow
            ? [encodeLegacyRowColumn(rowTime, ts, false), encodeLegacyRowColumn(rowTime, ts, true)]
            : [encodeColumn(spec, rowTime, ts)];
          for (const column of columns) expect(start <= column && column < end).toBe(inside);
        },
      ),
    );
  });

  it('takes in the column of every timestamp inside [start, end] (SECONDS)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 1814400 }), fc.nat(), fc.nat(), fc.nat(), (width, offsetSeed, a, b) => {
        const spec: RowSpec = { unit: 'SECONDS', width };
        const rowTime = rowTimeOf(R + 12345, width);
        const ts = rowTime + (offsetSeed % width);
        const startMs = ts - (a % (2 * width));
        const endMs = ts + (b % (2 * width * 1000));
        const { start, end } = columnBounds(spec, rowTime, startMs, endMs, false);
        const column = encodeColumn(spec, rowTime, ts);
        expect(start <= column && column < end).toBe(true);
      }),
    );
  });
});

describe('writeColumn / readColumn', () => {
  it('writes 4 big-endian bytes at an offset and reads them back unsigned', () => {
    const buf = new Uint8Array(6);
    writeColumn(buf, 1, 3628799998);
    expect(hex(buf)).toBe('00d84b17fe00');
    expect(readColumn(buf, 1)).toBe(3628799998);
    writeColumn(buf, 2, 0xffffffff);
    expect(readColumn(buf, 2)).toBe(0xffffffff);
  });

  it('rejects columns that are not unsigned 32-bit integers and short buffers', () => {
    const buf = new Uint8Array(5);
    expect(() => writeColumn(buf, 0, -1)).toThrow(new RangeError('column name must be an unsigned 32-bit integer: -1'));
    expect(() => writeColumn(buf, 0, 2 ** 32)).toThrow(
      new RangeError('column name must be an unsigned 32-bit integer: 4294967296'),
    );
    expect(() => writeColumn(buf, 0, 1.5)).toThrow(
      new RangeError('column name must be an unsigned 32-bit integer: 1.5'),
    );
    expect(() => writeColumn(buf, 2, 1)).toThrow(new RangeError('column name needs 4 bytes at offset 2 of 5'));
    expect(() => readColumn(buf, 2)).toThrow(new RangeError('column name needs 4 bytes at offset 2 of 5'));
  });

  it('round-trips every uint32 and sorts like the numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), (x, y) => {
        const a = new Uint8Array(4);
        const b = new Uint8Array(4);
        writeColumn(a, 0, x);
        writeColumn(b, 0, y);
        expect(readColumn(a, 0)).toBe(x);
        expect(Math.sign(Buffer.compare(a, b))).toBe(Math.sign(x - y));
      }),
    );
  });
});
