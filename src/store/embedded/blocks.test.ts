/**
 * Block packing: what goes in comes out (columns, expiries, values of any size), blocks respect their byte
 * budget, and fixed-size values pack without lengths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlockCursor, encodeBlocks, MAX_BLOCK_BYTES, readBlock, emptyCells, type Cells } from './blocks.js';

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
});
