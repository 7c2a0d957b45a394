/**
 * The KairosDB layout's index reads through a request's loaders: a metric's row_keys at every row time of a plan are
 * one batch read of the store, and concurrent plans of one request share it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DECLARED, describeSourceConformance } from '../../../test/source-conformance.js';
import { delegatingStore } from '../../../test/support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import { EmbeddedStore } from '../../store/embedded/embedded-store.js';
import { IndexLoaders } from '../index-loaders.js';
import { KairosdbSource } from './kairosdb-source.js';

afterAll(removeTempDirs);

const WIDTH = 1000;

describe('KairosdbSource.findSeries', () => {
  it("reads a metric's row_keys at all its row times in one store call, shared by concurrent plans", async () => {
    const store = await EmbeddedStore.open({ path: tempDir(), rowWidth: WIDTH });
    const times = [100, 1100, 2100, 3100];
    await store.write({
      series: ['a', 'b'].map((host) => ({
        metric: 'cpu',
        tags: { host },
        type: 'double' as const,
        ttlSeconds: 0,
        timestamps: times,
        values: times,
      })),
    });
    const batches: number[][] = [];
    const source = new KairosdbSource(
      'main',
      delegatingStore(store, {
        rowKeys: () => Promise.reject(new Error('read one row time at a time')),
        rowKeysAt: (metric, rowTimes) => {
          batches.push([...rowTimes]);
          return store.rowKeysAt(metric, rowTimes);
        },
      }),
    );
    const loaders = new IndexLoaders();
    const [all, hostA, late] = await Promise.all([
      source.findSeries(loaders, 'cpu', { startMs: 0, endMs: 3999 }, () => true),
      source.findSeries(loaders, 'cpu', { startMs: 0, endMs: 3999 }, (tags) => tags['host'] === 'a'),
      source.findSeries(loaders, 'cpu', { startMs: 2000, endMs: 3999 }, () => true),
    ]);
    expect(batches).toEqual([[0, 1000, 2000, 3000]]);
    expect(all.periods).toBe(4);
    expect(all.partitions.map((p) => [p.rowTime, p.tags['host'], p.kind])).toEqual([
      [0, 'a', 'double'],
      [0, 'b', 'double'],
      [1000, 'a', 'double'],
      [1000, 'b', 'double'],
      [2000, 'a', 'double'],
      [2000, 'b', 'double'],
      [3000, 'a', 'double'],
      [3000, 'b', 'double'],
    ]);
    expect(hostA.partitions.map((p) => p.rowTime)).toEqual([0, 1000, 2000, 3000]);
    expect(late.partitions.map((p) => p.rowTime)).toEqual([2000, 2000, 3000, 3000]);
    // The statistics count each row time's row_keys read, as before they were read together.
    expect(loaders.calls.get('main')).toEqual({ rowTimes: 2, legacyRowKeys: 2, rowKeys: 4 });
    await store.close();
  });
});

const HOUR = 3_600_000;

describeSourceConformance('kairosdb on the embedded store', {
  declared: DECLARED.kairosdb,
  widthMs: HOUR,
  t0: 470_000 * HOUR,
  metric: (type) => `sc.${type}`,
  open: async () => new KairosdbSource('sc', await EmbeddedStore.open({ path: tempDir(), rowWidth: HOUR })),
});
