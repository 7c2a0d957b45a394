/**
 * What the results cache reads and keeps, case by case: only the edges of a sliding dashboard window, grids of another
 * phase apart, nothing within the freshness window or covered in part, entries again after the TTL, and its ranges
 * through fresh writes but not through a write of an older point. The property that it changes no answer is
 * bucket-cache.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { answer, closeWorlds, DAY, HOUR, T0, world } from '../../test/support/results-cache-world.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';
import type { MetricQuery } from '../model/query.js';
import type { SeriesWrite } from '../model/write-batch.js';
import { newQueryStats } from './execute.js';

afterAll(removeTempDirs);
afterEach(closeWorlds);

describe('the results cache', () => {
  /** One series, a point every 10 s over two days from T0; the request clock 40 hours in. */
  const NOW = T0 + 40 * HOUR + 5_123;
  const steady = (): SeriesWrite => {
    const timestamps = Array.from({ length: (2 * DAY) / 10_000 }, (_, i) => T0 + i * 10_000);
    return {
      metric: 'm',
      tags: { host: 'a' },
      type: 'double',
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((t) => Math.cos(t / 1e7)),
    };
  };
  const avgPerMinute: MetricQuery = {
    metric: 'm',
    range: { startMs: NOW - 6 * HOUR, endMs: NOW },
    tags: [],
    aggregators: [{ name: 'avg', params: { sampling: { value: 1, unit: 'minutes' } } }],
    groupBy: [],
    timeZone: 'UTC',
    order: 'asc',
    excludeTags: false,
  };
  const at = (q: MetricQuery, startMs: number, endMs: number): MetricQuery => ({ ...q, range: { startMs, endMs } });

  it('reads only the edges of a sliding dashboard window once its middle is kept', async () => {
    const w = await world([steady()], NOW);
    const cold = newQueryStats();
    const first = await answer(w, avgPerMinute, NOW, true, cold);
    // Whole minutes from the first after the start to the last that ended a minute before now: 358 of them.
    expect([cold.cacheHits, cold.cacheMisses, cold.cachedPoints, cold.pointsRead]).toEqual([0, 358, 0, 2160]);
    expect(first).toEqual(await answer(w, avgPerMinute, NOW, false, newQueryStats()));

    // 55 seconds later the window starts in the next minute, and one more minute ended before the freshness window.
    const laterNow = NOW + 55_000;
    w.clockMs = laterNow;
    const later = at(avgPerMinute, laterNow - 6 * HOUR, laterNow);
    const warm = newQueryStats();
    const second = await answer(w, later, laterNow, true, warm);
    expect(second).toEqual(await answer(w, later, laterNow, false, newQueryStats()));
    // 357 minutes kept, 1 new one read; the partial head and the fresh tail read too, and nothing else.
    expect([warm.cacheHits, warm.cacheMisses, warm.cachedPoints]).toEqual([357, 1, 357 * 6]);
    const sampleSize = 'output' in second ? second.output.sampleSize : -1;
    expect([sampleSize, warm.pointsRead]).toEqual([2160, 2160 - 357 * 6]);

    const again = newQueryStats();
    await answer(w, later, laterNow, true, again);
    expect([again.cacheHits, again.cacheMisses]).toEqual([358, 0]);
  });

  it('keeps ranges of a grid apart from those of another phase: 7 minutes from one midnight are not 7 minutes from the next', async () => {
    const w = await world([steady()], T0 + 3 * DAY);
    const sevenMinutes: MetricQuery = {
      ...avgPerMinute,
      aggregators: [{ name: 'sum', params: { sampling: { value: 7, unit: 'minutes' } } }],
    };
    const fromFirstDay = at(sevenMinutes, T0, T0 + 2 * DAY - 1);
    const fromSecondDay = at(sevenMinutes, T0 + DAY, T0 + 2 * DAY - 1);
    await answer(w, fromFirstDay, T0 + 3 * DAY, true, newQueryStats());
    const stats = newQueryStats();
    const actual = await answer(w, fromSecondDay, T0 + 3 * DAY, true, stats);
    expect(actual).toEqual(await answer(w, fromSecondDay, T0 + 3 * DAY, false, newQueryStats()));
    expect(stats.cacheHits).toBe(0);
    // The same phase (a start two weeks of 7-minute ranges apart) is the same grid.
    const samePhase = newQueryStats();
    await answer(w, at(sevenMinutes, T0 + 2016 * 60_000, T0 + 2 * DAY - 1), T0 + 3 * DAY, true, samePhase);
    expect(samePhase.cacheMisses).toBe(0);
  });

  it('never keeps a range that ends within the freshness window, nor one the query covers in part', async () => {
    const w = await world([steady()], T0 + 10 * 60_000 + 5_000);
    const stats = newQueryStats();
    // From 30 s into a minute to now: the minute now is in, and the one before (it ended < 60 s ago), stay out.
    await answer(w, at(avgPerMinute, T0 + 30_000, T0 + 10 * 60_000 + 5_000), T0 + 10 * 60_000 + 5_000, true, stats);
    expect(stats.cacheMisses).toBe(8);
    const second = newQueryStats();
    await answer(w, at(avgPerMinute, T0, T0 + 10 * 60_000 + 5_000), T0 + 10 * 60_000 + 5_000, true, second);
    expect([second.cacheHits, second.cacheMisses, second.pointsRead]).toEqual([8, 1, 6 + 6 + 1]);
  });

  it('reads an entry again once it is older than the TTL', async () => {
    const w = await world([steady()], NOW);
    await answer(w, avgPerMinute, NOW, true, newQueryStats());
    w.clockMs += DAY - 1;
    const young = newQueryStats();
    await answer(w, avgPerMinute, NOW, true, young);
    expect(young.cacheMisses).toBe(0);
    w.clockMs += 1;
    const old = newQueryStats();
    await answer(w, avgPerMinute, NOW, true, old);
    expect([old.cacheHits, old.cacheMisses]).toEqual([0, 358]);
  });

  it('keeps its ranges through writes of fresh points (a live feed), and drops them for a write of an older point', async () => {
    const w = await world([steady()], NOW);
    await answer(w, avgPerMinute, NOW, true, newQueryStats());
    const point = (t: number): SeriesWrite => ({
      metric: 'm',
      tags: { host: 'a' },
      type: 'double',
      ttlSeconds: 0,
      timestamps: [t],
      values: [1e6],
    });
    // Within the freshness window of the wall clock: no kept range can hold it.
    await w.source.write({ series: [point(NOW - 59_000)] });
    const afterFresh = newQueryStats();
    expect(await answer(w, avgPerMinute, NOW, true, afterFresh)).toEqual(
      await answer(w, avgPerMinute, NOW, false, newQueryStats()),
    );
    expect([afterFresh.cacheHits, afterFresh.cacheMisses]).toEqual([358, 0]);
    // An hour old: in a kept range, which must be read again.
    await w.source.write({ series: [point(NOW - HOUR)] });
    const afterLate = newQueryStats();
    expect(await answer(w, avgPerMinute, NOW, true, afterLate)).toEqual(
      await answer(w, avgPerMinute, NOW, false, newQueryStats()),
    );
    expect([afterLate.cacheHits, afterLate.cacheMisses]).toEqual([0, 358]);
  });

  it('drops its ranges for a point a millisecond older than the freshness window, in the range that just ended before it', async () => {
    // The wall clock a minute past a minute boundary: the minute that ended at the boundary was just kept.
    const clock = T0 + 40 * HOUR + 60_000;
    const w = await world([steady()], clock);
    const q = at(avgPerMinute, clock - 6 * HOUR, clock);
    await answer(w, q, clock, true, newQueryStats());
    await w.source.write({
      series: [
        {
          metric: 'm',
          tags: { host: 'a' },
          type: 'double',
          ttlSeconds: 0,
          timestamps: [clock - 60_001],
          values: [1e6],
        },
      ],
    });
    expect(await answer(w, q, clock, true, newQueryStats())).toEqual(await answer(w, q, clock, false, newQueryStats()));
  });
});
