import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROW_WIDTH_MS, type RowSpec } from '../store.js';
import { partitionCovered, rowTimeOf, rowWidthMs } from './row-time.js';

const W = DEFAULT_ROW_WIDTH_MS;

describe('rowTimeOf', () => {
  it('floors non-negative timestamps to a multiple of the width', () => {
    expect(rowTimeOf(0, W)).toBe(0);
    expect(rowTimeOf(1435190400000, W)).toBe(1435190400000);
    expect(rowTimeOf(1435190400000 + W - 1, W)).toBe(1435190400000);
    expect(rowTimeOf(1435190400000 + W, W)).toBe(1435190400000 + W);
  });

  it('reproduces the unaligned rows of negative timestamps (reference §2.2)', () => {
    expect(rowTimeOf(-1, W)).toBe(-2);
    expect(-1 - rowTimeOf(-1, W)).toBe(1);
    expect(rowTimeOf(-100, W)).toBe(-200);
    expect(-100 - rowTimeOf(-100, W)).toBe(100);
    expect(rowTimeOf(-100, 200)).toBe(-200);
    expect(rowTimeOf(-W, W)).toBe(-W);
    expect(rowTimeOf(-W - 1, W)).toBe(-W - 2);
  });

  it('applies the raw SECONDS width to ms timestamps, as KairosDB does', () => {
    expect(rowTimeOf(1435190400000 + 1814400 + 5, 1814400)).toBe(1435190400000 + 1814400);
  });

  it('always leaves an offset in [0, width)', () => {
    // Within ±2^52 the row time of a negative timestamp (up to a width below it) is still a safe integer.
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), fc.integer({ min: 1, max: 2 * W }), (ts, width) => {
        const offset = ts - rowTimeOf(ts, width);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThan(width);
      }),
    );
  });
});

describe('rowWidthMs', () => {
  it('is the raw width for MILLISECONDS and LEGACY and width*1000 for SECONDS', () => {
    expect(rowWidthMs({ unit: 'MILLISECONDS', width: W })).toBe(W);
    expect(rowWidthMs({ unit: 'LEGACY', width: W })).toBe(W);
    expect(rowWidthMs({ unit: 'SECONDS', width: 1814400 })).toBe(W);
  });
});

describe('partitionCovered', () => {
  const R = 1435190400000;
  const ms: RowSpec = { unit: 'MILLISECONDS', width: W };

  it('needs start <= rowTime and end >= rowTime + widthMs - 1', () => {
    expect(partitionCovered(ms, R, R, R + W - 1)).toBe(true);
    expect(partitionCovered(ms, R, R - 1, R + W + 10)).toBe(true);
    expect(partitionCovered(ms, R, R, R + W - 2)).toBe(false);
    expect(partitionCovered(ms, R, R + 1, R + W - 1)).toBe(false);
  });

  it('uses the ms width for SECONDS even though such rows hold only `width` ms of points', () => {
    const seconds: RowSpec = { unit: 'SECONDS', width: 1814400 };
    expect(partitionCovered(seconds, R, R, R + 1814400)).toBe(false);
    expect(partitionCovered(seconds, R, R, R + W - 1)).toBe(true);
  });
});
