/**
 * The embedded store's block writes against a model: any mix of appends (the last block grown, closed and merged into
 * the one before), late points, overwrites and deletes reads back as a map of time to value would, and leaves blocks
 * that are in order, do not overlap, are keyed by their first cell and hold their byte budget.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { partitionsOf, scanAll } from '../../../test/store-conformance.js';
import { blocksAt } from '../../../test/support/embedded-blocks.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import type { SeriesWrite } from '../../model/write-batch.js';
import { BlockCursor, MAX_BLOCK_BYTES } from './blocks.js';
import { EmbeddedStore } from './embedded-store.js';

afterAll(removeTempDirs);

const WIDTH = 10_000_000;

type Op =
  | { readonly kind: 'append'; readonly count: number; readonly step: number }
  | { readonly kind: 'late'; readonly at: readonly number[] }
  | { readonly kind: 'delete'; readonly from: number; readonly span: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append'),
      count: fc.integer({ min: 1, max: 40 }),
      step: fc.integer({ min: 1, max: 30_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('late'),
      at: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('delete'),
      from: fc.double({ min: 0, max: 1, noNaN: true }),
      span: fc.integer({ min: 0, max: 200_000 }),
    }),
  },
) as fc.Arbitrary<Op>;

describe('embedded data points against a model', () => {
  for (const type of ['double', 'string'] as const) {
    it(`reads back what a model holds and keeps blocks ordered and within budget, ${type} values`, async () => {
      let written = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
          const path = tempDir();
          const store = await EmbeddedStore.open({ path, rowWidth: WIDTH });
          const model = new Map<number, number | string>();
          const nextValue = (): number | string => {
            written++;
            // Strings of many sizes: blocks of variable-size cells, some large enough to fill a block alone.
            return type === 'double' ? written / 8 : 'v'.repeat(1 + ((written * 37) % 700));
          };
          const write = async (timestamps: number[]) => {
            const values = timestamps.map(() => nextValue());
            const series: SeriesWrite = { metric: 'm', tags: { h: 'a' }, type, ttlSeconds: 0, timestamps, values };
            await store.write({ series: [series] });
            for (let i = 0; i < timestamps.length; i++) model.set(timestamps[i]!, values[i]!);
          };
          let last = -1;
          try {
            for (const o of ops) {
              if (o.kind === 'append') {
                const timestamps: number[] = [];
                for (let i = 0; i < o.count && last + o.step < WIDTH; i++) timestamps.push((last += o.step));
                if (timestamps.length > 0) await write(timestamps);
              } else if (o.kind === 'late') {
                if (last >= 0) await write([...new Set(o.at.map((f) => Math.floor(f * last)))]);
              } else if (last >= 0) {
                const from = Math.floor(o.from * last);
                const [key] = await partitionsOf(store, 'm', 0, WIDTH);
                await store.deleteRange(key!, from, from + o.span);
                for (const t of model.keys()) if (t >= from && t <= from + o.span) model.delete(t);
              }
            }
            const expected = [...model].sort(([a], [b]) => a - b);
            const [key] = await partitionsOf(store, 'm', 0, WIDTH);
            const read = key === undefined ? [] : await scanAll(store, key, 0, WIDTH);
            expect(read.map((p) => [p.t, p.v])).toEqual(expected);
          } finally {
            await store.close();
          }
          let previous = -1;
          for (const { firstColumn, bytes } of await blocksAt(path)) {
            const cursor = new BlockCursor().reset(bytes);
            let cells = 0;
            while (cursor.next()) {
              if (cells === 0) expect(cursor.column).toBe(firstColumn);
              expect(cursor.column).toBeGreaterThan(previous);
              previous = cursor.column;
              cells++;
            }
            if (cells > 1) expect(bytes.length).toBeLessThanOrEqual(MAX_BLOCK_BYTES);
          }
        }),
        { numRuns: 40 },
      );
    }, 120_000);
  }
});
