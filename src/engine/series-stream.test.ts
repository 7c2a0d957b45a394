// streamSeries: series in canonical order, each a stream of its points in time order across partitions and data
// types, read only as far as its reader takes it, within the query's budgets, with the statistics' counts.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import type { Slice } from '../model/series.js';
import type { SeriesWrite } from '../model/write-batch.js';
import { compileTagFilter } from '../model/tag-filter.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import type { Source } from '../sources/source.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { BudgetTracker, newQueryStats, unlimitedRequest } from './budget.js';
import type { EngineContext } from './engine-context.js';
import { streamSeries } from './series-stream.js';

afterAll(removeTempDirs);
const open: EmbeddedStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const HOUR = 3_600_000;

async function sourceWith(series: SeriesWrite[]): Promise<KairosdbSource> {
  // Row periods of an hour, so the points below span several partitions.
  const store = await EmbeddedStore.open({ path: tempDir(), rowWidth: HOUR });
  open.push(store);
  await store.write({ series });
  return new KairosdbSource('kairosdb', store);
}

const write = (host: string, type: 'long' | 'double' | 'string', points: [number, number | string][]): SeriesWrite => ({
  metric: 'm',
  tags: { host },
  type,
  ttlSeconds: 0,
  timestamps: points.map(([t]) => t),
  values: points.map(([, v]) => v),
});

function context(source: Source, maxPointsRead = 1e9): EngineContext {
  return {
    source,
    index: new IndexLoaders(),
    budgets: { maxSeries: 1e6, maxPointsRead, maxPointsReturned: 1e9, onExceed: 'error' },
    request: unlimitedRequest(),
    stats: newQueryStats(),
    nowMs: 0,
    pageSize: 2,
  };
}

async function collect(slices: AsyncIterable<Slice>): Promise<[number, number | string][]> {
  const points: [number, number | string][] = [];
  for await (const slice of slices)
    slice.timestamps.forEach((t, i) => {
      points.push([t, slice.values[i]!]);
    });
  return points;
}

describe('streamSeries', () => {
  it('hands out each series in canonical order, its partitions and data types merged in time order', async () => {
    const source = await sourceWith([
      write('b', 'double', [
        [10, 1.5],
        [HOUR + 10, 2.5],
      ]),
      write('a', 'long', [
        [20, 1],
        [HOUR + 30, 3],
        [2 * HOUR, 4],
      ]),
      write('a', 'double', [[HOUR + 20, 2.25]]),
      write('c', 'string', [[10, 'x']]),
    ]);
    const ctx = context(source);
    const tracker = new BudgetTracker(ctx.budgets, ctx.stats, ctx.request);
    const warnings: string[] = [];
    const seen: unknown[] = [];
    for await (const series of streamSeries(
      'm',
      { startMs: 0, endMs: 3 * HOUR },
      compileTagFilter([], 'tags'),
      ctx,
      tracker,
      warnings,
    ))
      seen.push([series.tags, series.type, await collect(series.slices)]);
    expect(seen).toEqual([
      [
        { host: 'a' },
        'number',
        [
          [20, 1],
          [HOUR + 20, 2.25],
          [HOUR + 30, 3],
          [2 * HOUR, 4],
        ],
      ],
      [
        { host: 'b' },
        'number',
        [
          [10, 1.5],
          [HOUR + 10, 2.5],
        ],
      ],
      [{ host: 'c' }, 'text', [[10, 'x']]],
    ]);
    expect(warnings).toEqual([]);
    expect([ctx.stats.seriesMatched, ctx.stats.pointsRead, ctx.stats.rowTimes]).toEqual([3, 7, 3]);
  });

  it('answers the same with partitions started ahead, and closes the scans it started but nobody read', async () => {
    const points = (host: string): SeriesWrite =>
      write(
        host,
        'double',
        Array.from({ length: 12 }, (_, i): [number, number] => [i * (HOUR / 3), i]),
      );
    const source = await sourceWith([points('a'), points('b'), points('c'), write('d', 'string', [[5, 'x']])]);
    const read = async (readAhead: number, skip: string) => {
      const ctx = { ...context(source), readAhead };
      const tracker = new BudgetTracker(ctx.budgets, ctx.stats, ctx.request);
      const all = compileTagFilter([], 'tags');
      const seen: unknown[] = [];
      const found = streamSeries('m', { startMs: 0, endMs: 4 * HOUR }, all, ctx, tracker, [], (t) => t === 'number');
      for await (const series of found)
        if (series.tags['host'] !== skip) seen.push([series.tags['host'], await collect(series.slices)]);
      return seen;
    };
    const plain = await read(0, 'b');
    expect(plain.length).toBe(3);
    expect(await read(3, 'b')).toEqual(plain);
    expect(await read(100, 'b')).toEqual(plain);
  });

  it('reads nothing of a series whose stream is not read, and stops reading when its reader stops', async () => {
    const points: [number, number][] = Array.from({ length: 100 }, (_, i) => [i * 1000, i]);
    const source = await sourceWith([write('a', 'double', points), write('b', 'double', points)]);
    const ctx = context(source);
    const tracker = new BudgetTracker(ctx.budgets, ctx.stats, ctx.request);
    const found = streamSeries('m', { startMs: 0, endMs: HOUR }, compileTagFilter([], 'tags'), ctx, tracker, []);
    for await (const series of found) {
      if (series.tags['host'] === 'b') continue;
      // The first slice only (pages of 2 points): the merge waits for its reader.
      for await (const slice of series.slices) {
        expect(Array.from(slice.timestamps)).toEqual([0, 1000]);
        break;
      }
    }
    expect(ctx.stats.pointsRead).toBeLessThanOrEqual(4);
    expect(ctx.stats.seriesMatched).toBe(2);
  });

  it('passes only the series the filter passes, and fails over the points-read budget', async () => {
    const source = await sourceWith([
      write('a', 'double', [
        [1, 1],
        [2, 2],
        [3, 3],
      ]),
      write('b', 'double', [[1, 1]]),
    ]);
    const ctx = context(source, 2);
    const tracker = new BudgetTracker(ctx.budgets, ctx.stats, ctx.request);
    const matches = compileTagFilter([{ tag: 'host', in: ['a'] }], 'tags');
    const read = async () => {
      for await (const series of streamSeries('m', { startMs: 0, endMs: 10 }, matches, ctx, tracker, []))
        await collect(series.slices);
    };
    await expect(read()).rejects.toThrow('query exceeded its points read budget of 2 (MAX_POINTS_READ)');
    expect(ctx.stats.seriesMatched).toBe(1);
  });
});
