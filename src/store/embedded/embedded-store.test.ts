/**
 * The embedded store: the shared conformance suite, plus what is particular to LMDB blocks (appends to the last block
 * included) and durability.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeStoreConformance, partitionsOf, scanAll } from '../../../test/store-conformance.js';
import { blocksAt } from '../../../test/support/embedded-blocks.js';
import { killedAfterWrites } from '../../../test/support/killed-writer.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import type { SeriesWrite, WriteBatch } from '../../model/write-batch.js';
import { toPartitionWrites } from '../partition-writes.js';
import { blockEnd, encodeBlocks, MAX_BLOCK_CELLS, readBlock, emptyCells, TAIL_BLOCK_BYTES } from './blocks.js';
import { EmbeddedStore } from './embedded-store.js';

afterAll(removeTempDirs);

describeStoreConformance('embedded', (options) => EmbeddedStore.open({ path: tempDir(), ...options }));

describe('embedded store', () => {
  const open: EmbeddedStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const fresh = async (path = tempDir()) => {
    const store = await EmbeddedStore.open({ path, rowWidth: 10_000_000 });
    open.push(store);
    return store;
  };

  it('merges writes into the middle of many blocks and deletes across block edges', async () => {
    const store = await fresh();
    const n = MAX_BLOCK_CELLS * 5 + 17;
    const even = Array.from({ length: n }, (_, i) => i * 2);
    await store.write({
      series: [{ metric: 'b', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: even, values: even }],
    });
    const odd = Array.from({ length: n }, (_, i) => i * 2 + 1);
    await store.write({
      series: [
        {
          metric: 'b',
          tags: { h: 'a' },
          type: 'long',
          ttlSeconds: 0,
          timestamps: odd.reverse(),
          values: odd.map((t) => -t),
        },
      ],
    });
    const [key] = await partitionsOf(store, 'b', 0, 1e7);
    const all = await scanAll(store, key!, 0, 1e7);
    expect(all.map((p) => p.t)).toEqual(Array.from({ length: 2 * n }, (_, i) => i));
    expect(all.every((p) => p.v === BigInt(p.t % 2 === 0 ? p.t : -p.t))).toBe(true);
    await store.deleteRange(key!, 500, 3500);
    const left = (await scanAll(store, key!, 0, 1e7)).map((p) => p.t);
    expect(left).toEqual([
      ...Array.from({ length: 500 }, (_, i) => i),
      ...Array.from({ length: 2 * n - 3501 }, (_, i) => 3501 + i),
    ]);
    expect((await scanAll(store, key!, 498, 3502, { order: 'desc' })).map((p) => p.t)).toEqual([3502, 3501, 499, 498]);
  });

  it('ends scans left suspended before it closes, so no LMDB cursor outlives its environment', async () => {
    const store = await EmbeddedStore.open({ path: tempDir(), rowWidth: 10_000_000 });
    const timestamps = Array.from({ length: 50 }, (_, i) => i);
    await store.write({
      series: [{ metric: 'c', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps, values: timestamps }],
    });
    const [key] = await partitionsOf(store, 'c', 0, 1e7);
    // Left between slices, as a read abandoned at a time limit is, and one never started.
    const suspended = store.scan(key!, 0, 1e7, { pageSize: 1 });
    expect((await suspended.next()).value?.timestamps).toEqual(Float64Array.of(0));
    const unstarted = store.scan(key!, 0, 1e7, { pageSize: 1 });
    await store.close();
    expect(await suspended.next()).toEqual({ done: true, value: undefined });
    expect(await unstarted.next()).toEqual({ done: true, value: undefined });
  });

  it('drops cells and index rows once their TTL has passed, in either scan order', async () => {
    let nowMs = 1_000_000;
    const store = await EmbeddedStore.open({ path: tempDir(), rowWidth: 10_000_000, now: () => nowMs });
    open.push(store);
    const series = (h: string, ttlSeconds: number, timestamps: number[]) => ({
      metric: 't',
      tags: { h },
      type: 'long' as const,
      ttlSeconds,
      timestamps,
      values: timestamps,
    });
    await store.write({ series: [series('a', 10, [1, 3]), series('a', 100, [2, 4]), series('b', 10, [5])] });
    const [a, b] = await partitionsOf(store, 't', 0, 1e7);
    nowMs += 50_000;
    expect((await scanAll(store, a!, 0, 1e7)).map((p) => p.t)).toEqual([2, 4]);
    expect((await scanAll(store, a!, 0, 1e7, { order: 'desc' })).map((p) => p.t)).toEqual([4, 2]);
    expect(await scanAll(store, b!, 0, 1e7)).toEqual([]);
    // Index rows live a row width (10 000 s) longer than their longest-lived cell.
    expect(await store.rowKeys('t', 0)).toHaveLength(2);
    nowMs += 10_000_000;
    expect((await store.rowKeys('t', 0)).map((k) => k.tags.h)).toEqual(['a']);
    expect(await store.rowTimes('t', 0, 1e7)).toEqual([0]);
    nowMs += 50_000;
    expect(await store.rowTimes('t', 0, 1e7)).toEqual([]);
  });

  it('keeps its spec when reopened with other options', async () => {
    const path = tempDir();
    await (await EmbeddedStore.open({ path, rowWidth: 1234 })).close();
    const store = await EmbeddedStore.open({ path, rowWidth: 99, rowTimeUnit: 'SECONDS' });
    open.push(store);
    expect(await store.spec()).toEqual({ unit: 'MILLISECONDS', width: 1234 });
  });

  it('writes nothing of a batch that fails part-way', async () => {
    const store = await fresh();
    const batch = {
      series: [
        { metric: 'ok', tags: { h: 'a' }, type: 'long' as const, ttlSeconds: 0, timestamps: [1], values: [1] },
        // Unvalidated on purpose: a value the long encoder rejects, after a good series of the same batch.
        { metric: 'bad', tags: { h: 'a' }, type: 'long' as const, ttlSeconds: 0, timestamps: [2], values: [1.5] },
      ],
    };
    await expect(store.write(batch)).rejects.toThrow();
    expect(await store.metricNames()).toEqual([]);
    expect(await store.rowTimes('ok', 0, 10)).toEqual([]);
  });

  it('keeps an acknowledged write when the process is killed right after', async () => {
    const path = await killedAfterWrites('blocks');
    const store = await fresh(path);
    const [key] = await partitionsOf(store, 'durable', 0, 1e7);
    expect((await scanAll(store, key!, 0, 1e7)).length).toBe(10_000);
  });

  // How flushes append to data_points: each write here goes through the head to the blocks at once.
  describe('appends', () => {
    const writeThrough = async (store: EmbeddedStore, batch: WriteBatch) => {
      await store.write(batch);
      await store.flush();
    };
    const SPEC = { unit: 'MILLISECONDS', width: 10_000_000 } as const;
    const doubles = (timestamps: number[], ttlSeconds = 0): SeriesWrite => ({
      metric: 'a',
      tags: { h: 'x' },
      type: 'double',
      ttlSeconds,
      timestamps,
      values: timestamps.map((t) => t / 4),
    });
    const steps = (from: number, count: number) => Array.from({ length: count }, (_, i) => (from + i) * 10_000);

    /** The blocks of one partition written whole, in one batch, without expiries. */
    const encodedWhole = (series: SeriesWrite) => {
      const [partition, ...more] = toPartitionWrites(SPEC, { series: [series] }).partitions;
      expect(more).toEqual([]);
      const { columns, values } = partition!;
      return encodeBlocks({ columns, values, expiries: columns.map(() => 0) });
    };

    it("adds a series' newest points to its last block, which holds what writing them at once would, after a reopen too", async () => {
      const path = tempDir();
      const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width });
      for (let k = 0; k < 3; k++) await writeThrough(store, { series: [doubles(steps(2 * k, 2))] });
      await store.close();
      expect(await blocksAt(path)).toEqual(encodedWhole(doubles(steps(0, 6))));
      const reopened = await fresh(path);
      const [key] = await partitionsOf(reopened, 'a', 0, 1e7);
      expect(await scanAll(reopened, key!, 0, 1e7)).toEqual(steps(0, 6).map((t) => ({ t, v: t / 4, kind: 'double' })));
    });

    it('appends to a last block of at most TAIL_BLOCK_BYTES, and merges each it closes into the block before while both fit', async () => {
      const path = tempDir();
      const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width });
      await writeThrough(store, { series: [doubles(steps(0, 300))] });
      // To the partition's end, its 1,000th column.
      for (let k = 300; k < 1000; k += 2) await writeThrough(store, { series: [doubles(steps(k, 2))] });
      await store.close();
      const blocks = await blocksAt(path);
      // A last block takes 102 cells (2 + 4 + 8 + 101 × 10 bytes). The first five closed fit the block before them,
      // which grows from 300 cells to 810 (8,101 bytes); the sixth does not, and the seventh is the last block.
      expect(blocks.map((b) => blockEnd(b.bytes).cells)).toEqual([810, 102, 88]);
      expect(blocks.at(-1)!.bytes.length).toBeLessThanOrEqual(TAIL_BLOCK_BYTES);
      expect(blocks).toEqual([
        ...encodedWhole(doubles(steps(0, 810))),
        ...encodedWhole(doubles(steps(810, 102))),
        ...encodedWhole(doubles(steps(912, 88))),
      ]);
      const reopened = await fresh(path);
      const [key] = await partitionsOf(reopened, 'a', 0, 1e7);
      expect((await scanAll(reopened, key!, 0, 1e7)).map((p) => p.t)).toEqual(steps(0, 1000));
    });

    it('keeps a closed last block apart when the block before cannot hold its expiries, and drops it once they all passed', async () => {
      for (const laterMs of [0, 101_000]) {
        let nowMs = 1_000_000_000;
        const path = tempDir();
        const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width, now: () => nowMs });
        await writeThrough(store, { series: [doubles(steps(0, 300))] });
        // 72 expiring cells fill a last block: 2 + 4 + 4 + 8 + 71 × 14 bytes.
        for (let k = 300; k < 372; k += 2) await writeThrough(store, { series: [doubles(steps(k, 2), 100)] });
        nowMs += laterMs;
        await writeThrough(store, { series: [doubles(steps(372, 2))] });
        await store.close();
        const blocks = await blocksAt(path);
        expect(blocks.map((b) => blockEnd(b.bytes).cells)).toEqual(laterMs === 0 ? [300, 72, 2] : [300, 2]);
      }
    });

    it('merges a point before the last one and overwrites a column in the last block', async () => {
      const path = tempDir();
      const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width });
      await writeThrough(store, { series: [doubles([10, 20, 30])] });
      await writeThrough(store, { series: [doubles([15])] });
      await writeThrough(store, { series: [{ ...doubles([30]), values: [-1] }] });
      await writeThrough(store, { series: [doubles([40])] });
      const [key] = await partitionsOf(store, 'a', 0, 1e7);
      expect(await scanAll(store, key!, 0, 1e7)).toEqual([
        { t: 10, v: 2.5, kind: 'double' },
        { t: 15, v: 3.75, kind: 'double' },
        { t: 20, v: 5, kind: 'double' },
        { t: 30, v: -1, kind: 'double' },
        { t: 40, v: 10, kind: 'double' },
      ]);
      await store.close();
      expect(await blocksAt(path)).toEqual(
        encodedWhole({ ...doubles([10, 15, 20, 30, 40]), values: [2.5, 3.75, 5, -1, 10] }),
      );
    });

    it('merges points that reach into the last block, re-encoding only its cells from the first they reach', async () => {
      const path = tempDir();
      const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width });
      // One full block: 816 cells in 8161 bytes.
      await writeThrough(store, { series: [doubles(steps(0, 816))] });
      // Between its last two cells: the block, larger than appends grow a last block to, keeps the cells before the
      // point, and the point and the cell after it make the new last block.
      await writeThrough(store, { series: [doubles([815 * 10_000 - 5_000])] });
      await store.close();
      const blocks = await blocksAt(path);
      expect(blocks.map((b) => blockEnd(b.bytes).cells)).toEqual([815, 2]);
      expect(blocks).toEqual([
        ...encodedWhole(doubles(steps(0, 815))),
        ...encodedWhole(doubles([815 * 10_000 - 5_000, 815 * 10_000])),
      ]);
    });

    it('falls back to rewriting the blocks a write reaches when it reaches before the last block', async () => {
      const path = tempDir();
      const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width });
      await writeThrough(store, { series: [doubles(steps(0, 830))] });
      await writeThrough(store, { series: [doubles([5_000])] });
      const [key] = await partitionsOf(store, 'a', 0, 1e7);
      expect((await scanAll(store, key!, 0, 20_000)).map((p) => p.t)).toEqual([0, 5_000, 10_000, 20_000]);
      await store.close();
      const blocks = await blocksAt(path);
      // The first block, rewritten with one cell more, splits; the last is left as it was.
      expect(blocks.map((b) => blockEnd(b.bytes).cells)).toEqual([816, 1, 14]);
      expect(blocks[2]).toEqual(encodedWhole(doubles(steps(0, 830)))[1]);
    });

    it('rewrites the last block with expiries for an expiring point, then appends points that never expire to it', async () => {
      let nowMs = 1_000_000;
      const path = tempDir();
      const store = await EmbeddedStore.open({ path, rowWidth: SPEC.width, now: () => nowMs });
      await writeThrough(store, { series: [doubles([1, 2])] });
      await writeThrough(store, { series: [doubles([3], 100)] });
      await writeThrough(store, { series: [doubles([4])] });
      const [key] = await partitionsOf(store, 'a', 0, 1e7);
      expect((await scanAll(store, key!, 0, 1e7)).map((p) => p.t)).toEqual([1, 2, 3, 4]);
      nowMs += 101_000;
      expect((await scanAll(store, key!, 0, 1e7)).map((p) => p.t)).toEqual([1, 2, 4]);
      await store.close();
      const [block, ...more] = await blocksAt(path);
      expect(more).toEqual([]);
      const cells = emptyCells();
      readBlock(block!.bytes, cells, 0);
      expect(cells.expiries).toEqual([0, 0, 1_000 + 100, 0]);
    });

    it('notices that a failed batch rolled its append back, and appends after what is there', async () => {
      const store = await fresh();
      await writeThrough(store, { series: [doubles([1, 2])] });
      // Its row key is over LMDB's key size: the batch fails in its transaction, after the append before it.
      const tooLong = { ...doubles([3]), tags: { h: 'x'.repeat(3000) } };
      await expect(store.write({ series: [doubles([3, 4]), tooLong] })).rejects.toThrow(/key size/i);
      await writeThrough(store, { series: [doubles([5])] });
      const [key] = await partitionsOf(store, 'a', 0, 1e7);
      expect((await scanAll(store, key!, 0, 1e7)).map((p) => p.t)).toEqual([1, 2, 5]);
    });

    it('writes the index rows of a series again once a delete has removed them', async () => {
      const store = await fresh();
      await writeThrough(store, { series: [doubles([1])] });
      const [key] = await partitionsOf(store, 'a', 0, 1e7);
      await store.deleteRange(key!, 0, 1e7);
      expect(await partitionsOf(store, 'a', 0, 1e7)).toEqual([]);
      await writeThrough(store, { series: [doubles([2])] });
      expect(await partitionsOf(store, 'a', 0, 1e7)).toEqual([key]);
      expect((await scanAll(store, key!, 0, 1e7)).map((p) => p.t)).toEqual([2]);
    });
  });
});
