/**
 * Block packing: what goes in comes out (columns, expiries, values of any size), blocks respect their byte
 * budget, fixed-size values pack without lengths, and appending to a block makes the bytes encoding all its cells
 * would.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendToBlock,
  BlockCursor,
  blockBound,
  blockEnd,
  encodeBlocks,
  MAX_BLOCK_BYTES,
  MAX_BLOCK_CELLS,
  readBlock,
  emptyCells,
  splitBlock,
  writeBlock,
  type Cells,
} from './blocks.js';

function cellsOf(rows: readonly { column: number; expiry: number; value: Uint8Array }[]): Cells {
  const sorted = [...new Map(rows.map((r) => [r.column, r])).values()].sort((a, b) => a.column - b.column);
  return {
    columns: sorted.map((r) => r.column),
    expiries: sorted.map((r) => r.expiry),
    values: sorted.map((r) => r.value),
  };
}

function decodeAll(blocks: { firstColumn: number; bytes: Buffer }[]): Cells {
  const out = emptyCells();
  for (const block of blocks) readBlock(block.bytes, out, 0);
  // Views into a Buffer are Buffers; compare plain bytes.
  return { ...out, values: out.values.map((v) => Uint8Array.from(v)) };
}

describe('blocks', () => {
  it('round-trips any cells and keeps every block within its byte budget', () => {
    const row = fc.record({
      column: fc.integer({ min: 0, max: 0xffffffff }),
      expiry: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 0xffffffff })),
      value: fc.oneof(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.uint8Array({ maxLength: 300 })),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 3000 }), (rows) => {
        const cells = cellsOf(rows);
        const blocks = encodeBlocks(cells);
        expect(decodeAll(blocks)).toEqual(cells);
        for (const block of blocks) expect(block.bytes.length).toBeLessThanOrEqual(MAX_BLOCK_BYTES);
        expect(blocks.map((b) => b.firstColumn)).toEqual(
          blocks.map((b) => new BlockCursor().reset(b.bytes).next() && b.firstColumn),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('packs 10-second doubles in 10 bytes per cell: a 2-byte column delta and the 8 value bytes', () => {
    const n = 800;
    const cells: Cells = {
      columns: Array.from({ length: n }, (_, i) => i * 10_000),
      expiries: new Array(n).fill(0),
      values: Array.from({ length: n }, () => new Uint8Array(8).fill(7)),
    };
    const [block, ...rest] = encodeBlocks(cells);
    expect(rest).toEqual([]);
    // flags, value size, the first delta (0: one byte), then 799 deltas of 10000 (two bytes) and 800 values.
    expect(block!.bytes.length).toBe(2 + 1 + 799 * 2 + 800 * 8);
    expect([...block!.bytes.subarray(0, 6)]).toEqual([0b10, 8, 0, 7, 7, 7]);
  });

  it('keeps a string larger than the budget as a block of its own', () => {
    const big = new Uint8Array(MAX_BLOCK_BYTES * 3).fill(1);
    const cells: Cells = {
      columns: [1, 2, 3],
      expiries: [0, 0, 0],
      values: [new Uint8Array([1]), big, new Uint8Array([2])],
    };
    const blocks = encodeBlocks(cells);
    expect(blocks.map((b) => b.firstColumn)).toEqual([1, 2, 3]);
    expect(decodeAll(blocks)).toEqual(cells);
  });

  describe('appendToBlock', () => {
    const doubles = (columns: number[], expiry = 0): Cells => ({
      columns,
      expiries: columns.map(() => expiry),
      values: columns.map((c) => new Uint8Array(8).fill(c & 0xff)),
    });
    const concat = (a: Cells, b: Cells): Cells => ({
      columns: [...a.columns, ...b.columns],
      expiries: [...a.expiries, ...b.expiries],
      values: [...a.values, ...b.values],
    });
    /** Appends `incoming` to the one block `existing` encodes to; the bytes written, or undefined. */
    const append = (existing: Cells, incoming: Cells) => {
      const [block, ...more] = encodeBlocks(existing);
      expect(more).toEqual([]);
      const out = Buffer.alloc(MAX_BLOCK_BYTES);
      const result = appendToBlock(block!.bytes, blockEnd(block!.bytes), incoming, out);
      return result && { appended: result.appended, bytes: out.subarray(0, result.size) };
    };

    it('notes where a block ends: its last column and its cell count', () => {
      const [block] = encodeBlocks(doubles([5, 70_000, 70_001]));
      expect(blockEnd(block!.bytes)).toEqual({ lastColumn: 70_001, cells: 3 });
    });

    it('writes the bytes encoding every cell would, for fixed-size, variable-size and expiring blocks', () => {
      const fixed = doubles([0, 10_000, 20_000]);
      expect(append(fixed, doubles([30_000, 200_000]))).toEqual({
        appended: 2,
        bytes: encodeBlocks(doubles([0, 10_000, 20_000, 30_000, 200_000]))[0]!.bytes,
      });
      const strings: Cells = { columns: [1, 2], expiries: [0, 0], values: [Uint8Array.of(1), Uint8Array.of(2, 2)] };
      const more: Cells = {
        columns: [3, 300],
        expiries: [0, 0],
        values: [new Uint8Array(300).fill(3), Uint8Array.of()],
      };
      expect(append(strings, more)).toEqual({ appended: 2, bytes: encodeBlocks(concat(strings, more))[0]!.bytes });
      // A block with expiries takes cells that never expire (expiry 0), as encoding them all together does.
      const expiring = doubles([1, 2], 1_900_000_000);
      expect(append(expiring, doubles([3]))).toEqual({
        appended: 1,
        bytes: encodeBlocks(concat(expiring, doubles([3])))[0]!.bytes,
      });
    });

    it('refuses cells the layout cannot hold: another value size in a fixed-size block, an expiry in a block without', () => {
      const fixed = doubles([1, 2]);
      expect(append(fixed, { columns: [3], expiries: [0], values: [new Uint8Array(4)] })).toBeUndefined();
      expect(append(fixed, doubles([3, 4], 1_900_000_000))).toBeUndefined();
      // Refused even after cells that fit: the block is re-encoded whole instead.
      expect(append(fixed, concat(doubles([3]), doubles([4], 1_900_000_000)))).toBeUndefined();
    });

    it('takes as many cells as fit and no more, by bytes and by cell count, leaving `out` alone when none fit', () => {
      const columns = Array.from({ length: 830 }, (_, i) => i * 10_000);
      const [first, second] = encodeBlocks(doubles(columns));
      const inFirst = blockEnd(first!.bytes).cells;
      // Flags, value size and the first cell (a one-byte delta), then 10 bytes a cell: 816 cells in 8161 bytes.
      expect(inFirst).toBe(1 + Math.floor((MAX_BLOCK_BYTES - 2 - 9) / 10));
      expect(first!.bytes.length).toBe(2 + 9 + 815 * 10);
      expect(append(doubles(columns.slice(0, 800)), doubles(columns.slice(800)))).toEqual({
        appended: inFirst - 800,
        bytes: first!.bytes,
      });
      expect(second!.firstColumn).toBe(columns[inFirst]);

      const longs = Array.from({ length: MAX_BLOCK_CELLS }, (_, i) => i);
      const small = (cs: number[]): Cells => ({
        columns: cs,
        expiries: cs.map(() => 0),
        values: cs.map(() => Uint8Array.of(1)),
      });
      const [full] = encodeBlocks(small(longs));
      expect(blockEnd(full!.bytes).cells).toBe(MAX_BLOCK_CELLS);
      const out = Buffer.alloc(MAX_BLOCK_BYTES, 0xee);
      expect(appendToBlock(full!.bytes, blockEnd(full!.bytes), small([MAX_BLOCK_CELLS]), out)).toEqual({
        appended: 0,
        size: full!.bytes.length,
      });
      expect(out.every((b) => b === 0xee)).toBe(true);
    });

    it('splits a block before a column into a block of the cells before it and the cells from it on', () => {
      const [block] = encodeBlocks(doubles([10, 20, 30, 40]));
      const { head, end, rest } = splitBlock(block!.bytes, 25);
      expect(head).toEqual(encodeBlocks(doubles([10, 20]))[0]!.bytes);
      expect(end).toEqual({ lastColumn: 20, cells: 2 });
      expect({ ...rest, values: rest.values.map((v) => Uint8Array.from(v)) }).toEqual(doubles([30, 40]));
      const none = splitBlock(block!.bytes, 10);
      expect([...none.head]).toEqual([0b10, 8]);
      expect(none.end).toEqual({ lastColumn: 0, cells: 0 });
      expect(none.rest.columns).toEqual([10, 20, 30, 40]);
    });

    it('keeps every cell of the block and of those appended, for any cells that come after the block', () => {
      const row = fc.record({
        delta: fc.integer({ min: 1, max: 100_000 }),
        expiry: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 0xffffffff })),
        value: fc.oneof(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.uint8Array({ maxLength: 40 })),
      });
      fc.assert(
        fc.property(fc.array(row, { minLength: 2, maxLength: 1500 }), fc.nat(), (rows, at) => {
          let column = 0;
          const cells: Cells = emptyCells();
          for (const r of rows) {
            column += r.delta;
            cells.columns.push(column);
            cells.expiries.push(r.expiry);
            cells.values.push(r.value);
          }
          const split = 1 + (at % (rows.length - 1));
          const part = (from: number, to: number): Cells => ({
            columns: cells.columns.slice(from, to),
            expiries: cells.expiries.slice(from, to),
            values: cells.values.slice(from, to),
          });
          const existing = encodeBlocks(part(0, split));
          const tail = existing[existing.length - 1]!;
          const incoming = part(split, rows.length);
          const out = Buffer.alloc(MAX_BLOCK_BYTES);
          const end = blockEnd(tail.bytes);
          const result = appendToBlock(tail.bytes, end, incoming, out);
          fc.pre(result !== undefined);
          const bytes = result!.appended > 0 ? out.subarray(0, result!.size) : tail.bytes;
          const blocks = [
            ...existing.slice(0, -1),
            { firstColumn: tail.firstColumn, bytes },
            ...encodeBlocks(incoming, result!.appended),
          ];
          expect(decodeAll(blocks)).toEqual(decodeAll(encodeBlocks(cells)));
          expect(bytes.length).toBeLessThanOrEqual(Math.max(MAX_BLOCK_BYTES, tail.bytes.length));
          expect(blockEnd(bytes).cells).toBeLessThanOrEqual(MAX_BLOCK_CELLS);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('blocks written in place, as the head and its log write them', () => {
    const row = fc.record({
      delta: fc.integer({ min: 1, max: 100_000 }),
      expiry: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 0xffffffff })),
      value: fc.oneof(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.uint8Array({ maxLength: 40 })),
    });
    const cellsFrom = (rows: { delta: number; expiry: number; value: Uint8Array }[]): Cells => {
      const cells = emptyCells();
      let column = 0;
      for (const r of rows) {
        column += r.delta;
        cells.columns.push(column);
        cells.expiries.push(r.expiry);
        cells.values.push(r.value);
      }
      return cells;
    };

    it('writeBlock writes the bytes encodeBlocks makes, within blockBound, wherever it is put', () => {
      fc.assert(
        fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.nat({ max: 9 }), (rows, at) => {
          const cells = cellsFrom(rows);
          const out = Buffer.alloc(at + blockBound(cells));
          const end = writeBlock(out, at, cells);
          expect(out.subarray(at, end)).toEqual(encodeBlocks(cells)[0]!.bytes);
        }),
        { numRuns: 300 },
      );
    });

    it('appendToBlock appends after a block that begins `out`, leaving its bytes as they are', () => {
      fc.assert(
        fc.property(fc.array(row, { minLength: 2, maxLength: 40 }), fc.nat(), (rows, at) => {
          const cells = cellsFrom(rows);
          const split = 1 + (at % (rows.length - 1));
          const part = (from: number, to: number): Cells => ({
            columns: cells.columns.slice(from, to),
            expiries: cells.expiries.slice(from, to),
            values: cells.values.slice(from, to),
          });
          const [first] = encodeBlocks(part(0, split));
          const out = Buffer.alloc(MAX_BLOCK_BYTES);
          first!.bytes.copy(out);
          const result = appendToBlock(
            out.subarray(0, first!.bytes.length),
            blockEnd(first!.bytes),
            part(split, rows.length),
            out,
          );
          fc.pre(result !== undefined && result.appended === rows.length - split);
          expect(out.subarray(0, result!.size)).toEqual(encodeBlocks(cells)[0]!.bytes);
        }),
        { numRuns: 300 },
      );
    });
  });
});
