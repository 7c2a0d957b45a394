/**
 * The embedded store's head: a write's newest cells are read from memory and logged, reach data_points in a flush, and
 * come back from the log after a kill, less what deletes and later writes changed.
 */
import { open as openLmdb } from 'lmdb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { partitionsOf, scanAll } from '../../../test/store-conformance.js';
import { blocksAt, headLogAt } from '../../../test/support/embedded-blocks.js';
import { killedAfterWrites } from '../../../test/support/killed-writer.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import { toPartitionWrites } from '../partition-writes.js';
import type { RowKey, ScanOptions, Store } from '../store.js';
import { blockEnd, encodeBlocks } from './blocks.js';
import { DataPoints } from './data-points.js';
import { EmbeddedStore } from './embedded-store.js';
import { partitionPrefix } from './keys.js';
import { KnownPartition } from './partition-notes.js';

afterAll(removeTempDirs);

const WIDTH = 10_000_000;
const series = (h: string, timestamps: number[], values = timestamps) => ({
  metric: 'm',
  tags: { h },
  type: 'long' as const,
  ttlSeconds: 0,
  timestamps,
  values,
});
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('embedded store head', () => {
  const open: EmbeddedStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const fresh = async (path = tempDir()) => {
    const store = await EmbeddedStore.open({ path, rowWidth: WIDTH });
    open.push(store);
    return store;
  };
  const times = async (store: EmbeddedStore, key: RowKey, from: number, to: number, options = {}) =>
    (await scanAll(store, key, from, to, options)).map((p) => p.t);

  it('reads stored cells and the head together, in either order, within a range and up to a limit', async () => {
    const store = await fresh();
    // More than a head holds: these go to the blocks; the next writes stay in the head.
    await store.write({ series: [series('a', range(0, 300))] });
    await store.write({ series: [series('a', [300, 301])] });
    await store.write({ series: [series('a', [302])] });
    const [key] = await partitionsOf(store, 'm', 0, WIDTH);
    expect(await times(store, key!, 0, WIDTH)).toEqual(range(0, 303));
    expect(await times(store, key!, 298, WIDTH, { order: 'desc' })).toEqual([302, 301, 300, 299, 298]);
    expect(await times(store, key!, 0, WIDTH, { order: 'desc', limit: 2 })).toEqual([302, 301]);
    expect(await times(store, key!, 297, 300, { limit: 3 })).toEqual([297, 298, 299]);
    expect(await times(store, key!, 301, 301)).toEqual([301]);
    expect(await times(store, key!, 10, 12, { order: 'desc' })).toEqual([12, 11, 10]);
    // A late point before the head goes to the blocks; one inside the head's range replaces its cell there.
    await store.write({ series: [series('a', [5, 301], [-5, -301])] });
    // A cell with an expiry in a head of cells without: the head is encoded again, with expiries.
    await store.write({ series: [{ ...series('a', [303], [-303]), ttlSeconds: 100 }] });
    const points = await scanAll(store, key!, 0, WIDTH);
    expect(points.map((p) => p.t)).toEqual(range(0, 304));
    expect(points.filter((p) => Number(p.v) < 0).map((p) => p.t)).toEqual([5, 301, 303]);
  });

  it('writes the head to the blocks in a flush, in rounds of partitions, and drops its log', async () => {
    const path = tempDir();
    const store = await EmbeddedStore.open({ path, rowWidth: WIDTH });
    const hosts = range(0, 2_500).map((i) => `h${i}`);
    for (const t of [1, 2]) await store.write({ series: hosts.map((h) => series(h, [t])) });
    await store.flush();
    await store.write({ series: [series('h7', [3])] });
    expect((await store.rowKeys('m', 0)).length).toBe(2_500);
    await store.close();
    // The last write was flushed by close(): every partition is one block of its cells.
    const blocks = await blocksAt(path);
    expect(blocks.map((b) => blockEnd(b.bytes).cells).sort()).toEqual([...Array(2_499).fill(2), 3].sort());
    expect(await headLogAt(path)).toEqual([]);
    const reopened = await fresh(path);
    const keys = await partitionsOf(reopened, 'm', 0, WIDTH);
    const h7 = keys.find((k) => k.tags.h === 'h7')!;
    expect(await times(reopened, h7, 0, WIDTH)).toEqual([1, 2, 3]);
  });

  it('takes a failed write out of the head, and a failed batch out of the blocks, leaving what came before', async () => {
    const store = await fresh();
    await store.write({ series: [series('a', [1, 2])] });
    // A row key over LMDB's key size fails the batch in its transaction, after the head took [3, 4] and the blocks
    // took 300 points.
    const bad = series('x'.repeat(3000), [1]);
    await expect(store.write({ series: [series('a', [3, 4]), bad] })).rejects.toThrow(/key size/i);
    await expect(store.write({ series: [series('c', range(0, 300)), bad] })).rejects.toThrow(/key size/i);
    await store.write({ series: [series('a', [5])] });
    const [key] = await partitionsOf(store, 'm', 0, WIDTH);
    expect(await times(store, key!, 0, WIDTH)).toEqual([1, 2, 5]);
    expect((await store.rowKeys('m', 0)).map((k) => k.tags.h)).toEqual(['a']);
  });

  it('replays its log after a kill: the head as it was, less what deletes and later writes changed', async () => {
    const path = await killedAfterWrites('head');
    // Killed with cells in the head: the blocks lack them, the log holds them.
    expect((await headLogAt(path)).length).toBeGreaterThan(0);
    const stored = (await blocksAt(path)).reduce((n, b) => n + blockEnd(b.bytes).cells, 0);
    const store = await fresh(path);
    const keys = await partitionsOf(store, 'durable', 0, WIDTH);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((h) => keys.find((k) => k.tags.h === h)!);
    expect(await times(store, a!, 0, WIDTH)).toEqual([1, 2, 5]);
    const bPoints = await scanAll(store, b!, 0, WIDTH);
    expect(bPoints.map((p) => p.t)).toEqual([10, 20, ...range(100, 300), 1_000]);
    expect(bPoints[1]!.v).toBe(-20);
    expect(await times(store, c!, 0, WIDTH)).toEqual([2]);
    expect(await times(store, d!, 0, WIDTH)).toEqual([1, 2, 3]);
    // The last pass wrote every point but d's 3, which only the log held.
    expect(stored).toBe(3 + 303 + 1 + 2);
  });

  it('refuses to open over a log it cannot read, and leaves the log and the blocks as they were', async () => {
    const path = await killedAfterWrites('head');
    const env = openLmdb({ path, maxDbs: 8 });
    await env
      .openDB<Buffer, Buffer>('head_log', { keyEncoding: 'binary', encoding: 'binary' })
      .put(Buffer.alloc(8, 0xff), Buffer.of(9));
    await env.close();
    const before = [await blocksAt(path), await headLogAt(path)];
    await expect(EmbeddedStore.open({ path, rowWidth: WIDTH })).rejects.toThrow(/unknown entry kind 9 at byte 0$/);
    expect([await blocksAt(path), await headLogAt(path)]).toEqual(before);
  });
});

describe('data points scanned with a head block', () => {
  it('reads head cells after the last stored column only: the others were flushed', async () => {
    const env = openLmdb({ path: tempDir(), maxDbs: 2 });
    const table = env.openDB<Buffer, Buffer>('data_points', { keyEncoding: 'binary', encoding: 'binary' });
    const spec = { unit: 'MILLISECONDS', width: WIDTH } as const;
    const points = new DataPoints(table, spec);
    const cells = (timestamps: number[], value: number) => {
      const [partition] = toPartitionWrites(spec, {
        series: [
          series(
            'a',
            timestamps,
            timestamps.map(() => value),
          ),
        ],
      }).partitions;
      return { ...partition!, expiries: timestamps.map(() => 0) };
    };
    const stored = cells([1, 2, 3], 1);
    await env.transaction(() => points.write(partitionPrefix(stored.keyBytes), new KnownPartition(''), stored, 0));
    // As a flush leaves the head until it commits: 2 and 3 are stored, 4 and 5 are not.
    const head = encodeBlocks(cells([2, 3, 4, 5], 2))[0]!.bytes;
    const withHead = {
      scan: (key: RowKey, from: number, to: number, options: ScanOptions = {}) =>
        points.scan(stored.keyBytes, key, from, to, options, 0, head),
    } as unknown as Store;
    const scan = async (from: number, to: number, options?: ScanOptions) =>
      (await scanAll(withHead, stored.key, from, to, options)).map((p) => [p.t, Number(p.v)]);
    expect(await scan(0, 100)).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 2],
      [5, 2],
    ]);
    expect(await scan(0, 100, { order: 'desc' })).toEqual([
      [5, 2],
      [4, 2],
      [3, 1],
      [2, 1],
      [1, 1],
    ]);
    expect(await scan(0, 100, { order: 'desc', limit: 1 })).toEqual([[5, 2]]);
    expect(await scan(2, 4)).toEqual([
      [2, 1],
      [3, 1],
      [4, 2],
    ]);
    expect(await scan(4, 4, { order: 'desc' })).toEqual([[4, 2]]);
    await env.close();
  });
});
