/**
 * The embedded store: the shared conformance suite, plus what is particular to LMDB blocks and durability.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeStoreConformance, partitionsOf, scanAll } from '../../../test/store-conformance.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import { MAX_BLOCK_CELLS } from './blocks.js';
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
    const path = tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./durability-child.ts', import.meta.url)), path],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('acknowledged')) child.kill('SIGKILL');
    });
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGKILL');
    const store = await fresh(path);
    const [key] = await partitionsOf(store, 'durable', 0, 1e7);
    expect((await scanAll(store, key!, 0, 1e7)).length).toBe(10_000);
  });
});
