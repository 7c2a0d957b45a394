// The results cache changes no answer: random pipelines (qualifying and not), ranges and clocks, interleaved with
// writes and deletes through the invalidating source, answered with the cache and without it, bit for bit; and the
// statistics of what it saved.
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InvalidatingSource } from '../sharing/invalidating-source.js';
import { ResultsCache } from '../sharing/results-cache.js';
import { SharedScans } from '../sharing/shared-scans.js';
import { WriteGenerations } from '../sharing/write-generations.js';
import { KairographError } from '../model/errors.js';
import { deletePoints } from '../app/delete-points.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import type { AggregatorSpec, GroupBySpec, MetricQuery, TagFilter } from '../model/query.js';
import { compileTagFilter } from '../model/tag-filter.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import type { Source } from '../sources/source.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import type { SeriesWrite } from '../model/write-batch.js';
import type { Store } from '../store/store.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { executeQuery, newQueryStats, unlimitedRequest, type QueryOutput, type QueryStats } from './execute.js';

afterAll(removeTempDirs);
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The Saturday before Berlin's clocks went forward (2024-03-31): calendar ranges of 23 hours are in the data. */
const T0 = Date.UTC(2024, 2, 29);
const SPAN = 4 * DAY;

interface World {
  readonly source: Source;
  readonly cache: ResultsCache;
  clockMs: number;
}

/** `clockMs` is the wall clock the cache sees (it keeps nothing that ended within the freshness window of it either). */
async function world(initial: SeriesWrite[], clockMs: number): Promise<World> {
  const inner = await EmbeddedStore.open({ path: tempDir('kairograph-cache-'), rowWidth: 6 * HOUR });
  opened.push(inner);
  await inner.write({ series: initial });
  const generations = new WriteGenerations();
  const w: World = {
    source: new InvalidatingSource(new KairosdbSource('kairosdb', inner), generations, new SharedScans(generations)),
    clockMs,
    cache: undefined!,
  };
  return Object.assign(w, {
    cache: new ResultsCache({
      maxBytes: 32 * 1024 * 1024,
      freshnessMs: 60_000,
      ttlMs: DAY,
      generations,
      now: () => w.clockMs,
    }),
  });
}

/** A series of points every `step` ms (with a deterministic wobble) over the data's days. */
function series(
  host: string,
  dc: string,
  type: 'double' | 'long' | 'string',
  step: number,
  phase: number,
): SeriesWrite {
  const timestamps: number[] = [];
  for (let t = T0 + phase; t < T0 + SPAN; t += step + ((t / step) % 3) * 1000) timestamps.push(Math.round(t));
  const values = timestamps.map((t, i) =>
    type === 'string' ? `v${i % 5}` : type === 'long' ? (i % 11) * 7 - 30 : Math.sin(t / 7e6 + phase) * 10 ** (i % 4),
  );
  return { metric: 'm', tags: { host, dc }, type, ttlSeconds: 0, timestamps, values };
}

const INITIAL: SeriesWrite[] = [
  series('a', 'x', 'double', 45_000, 0),
  series('b', 'x', 'double', 61_000, 13_000),
  series('c', 'y', 'long', 120_000, 7_000),
  series('d', 'y', 'double', 300_000, 1),
  series('t', 'y', 'string', 240_000, 3_000),
];

async function answer(
  w: World,
  query: MetricQuery,
  nowMs: number,
  cached: boolean,
  stats: QueryStats,
): Promise<{ output: QueryOutput } | { error: string }> {
  try {
    const output = await executeQuery(query, {
      source: w.source,
      index: new IndexLoaders(),
      budgets: { maxSeries: 1000, maxPointsRead: 1e9, maxPointsReturned: 1e9, onExceed: 'error' },
      request: unlimitedRequest(),
      stats,
      nowMs,
      ...(cached ? { cache: w.cache } : {}),
    });
    return { output };
  } catch (error) {
    if (error instanceof KairographError) return { error: error.message };
    throw error;
  }
}

const sampling = fc.constantFrom(
  { value: 1, unit: 'minutes' },
  { value: 5, unit: 'minutes' },
  { value: 7, unit: 'minutes' },
  { value: 90, unit: 'seconds' },
  { value: 1, unit: 'hours' },
  { value: 5, unit: 'hours' },
  { value: 1, unit: 'days' },
  { value: 1, unit: 'weeks' },
  { value: 1500, unit: 'milliseconds' },
);

const rangeAggregator: fc.Arbitrary<AggregatorSpec> = fc
  .record({
    name: fc.constantFrom('avg', 'sum', 'count', 'min', 'max', 'first', 'last', 'dev', 'percentile', 'least_squares'),
    sampling,
    align: fc.constantFrom('sampling', 'sampling', 'none', 'start_time'),
    returned: fc.constantFrom('first point', 'start', 'end', 'start'),
    zone: fc.constantFrom(undefined, undefined, 'Europe/Berlin', '+05:30'),
    startTime: fc.integer({ min: T0 - DAY, max: T0 + DAY }),
  })
  .map(({ name, sampling, align, returned, zone, startTime }) => ({
    name,
    params: {
      sampling,
      ...(align === 'none' ? { align_sampling: false } : {}),
      ...(align === 'start_time' ? { align_sampling: false, start_time: startTime } : {}),
      ...(returned === 'start' ? { align_start_time: true } : returned === 'end' ? { align_end_time: true } : {}),
      ...(zone !== undefined ? { time_zone: zone } : {}),
      ...(name === 'percentile' ? { percentile: 0.9 } : {}),
    },
  }));

/** What may follow: stream aggregators that read earlier ranges (rate, diff, sma, trim, gaps) as well as point-wise ones. */
const after: fc.Arbitrary<AggregatorSpec[]> = fc.constantFrom<AggregatorSpec[]>(
  [],
  [],
  [{ name: 'rate', params: { unit: 'minutes' } }],
  [{ name: 'diff', params: {} }],
  [{ name: 'scale', params: { factor: -2.5 } }],
  [{ name: 'sma', params: { size: 3 } }],
  [{ name: 'filter', params: { filter_op: 'gt', threshold: 0 } }],
  [{ name: 'trim', params: { trim: 'both' } }],
  [{ name: 'gaps', params: { sampling: { value: 1, unit: 'hours' } } }],
  [{ name: 'max', params: { sampling: { value: 1, unit: 'hours' } } }],
);

const pipeline: fc.Arbitrary<AggregatorSpec[]> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(rangeAggregator, after).map(([first, rest]) => [first, ...rest]) },
  // Pipelines that never use the cache ride along: the answer must not change for them either.
  {
    weight: 1,
    arbitrary: fc.constantFrom<AggregatorSpec[]>(
      [],
      [{ name: 'rate', params: {} }],
      [{ name: 'gaps', params: { sampling: { value: 1, unit: 'hours' } } }],
    ),
  },
);

const groupBy: fc.Arbitrary<GroupBySpec[]> = fc.constantFrom<GroupBySpec[]>(
  [],
  [{ name: 'tag', params: { tags: ['host'] } }],
  [{ name: 'tag', params: { tags: ['dc', 'host'] } }],
  [{ name: 'value', params: { range_size: 5 } }],
  [{ name: 'time', params: { range_size: { value: 1, unit: 'hours' }, group_count: 6 } }],
);

const tags: fc.Arbitrary<TagFilter> = fc.constantFrom<TagFilter>(
  [],
  [],
  [{ tag: 'host', in: ['a', 'c', 'e'] }],
  [{ tag: 'dc', in: ['y'] }],
);

/** Ranges from a few starts and lengths, so that queries meet each other's extents; some start off any boundary. */
const range = fc
  .record({
    quarter: fc.integer({ min: -4, max: 4 * 96 }),
    jitter: fc.constantFrom(0, 0, 0, 1, 29_999, 61_234),
    length: fc.constantFrom(HOUR, 6 * HOUR, DAY, DAY + 7 * HOUR, 2 * DAY, 5 * DAY),
    endJitter: fc.constantFrom(-1, -1, 0, 4_321),
  })
  .map(({ quarter, jitter, length, endJitter }) => {
    const startMs = T0 + quarter * 15 * 60_000 + jitter;
    return { startMs, endMs: startMs + length + endJitter };
  });

/** Everything of a query but its range: a sequence asks a few of these over and over, over different ranges. */
const shape: fc.Arbitrary<Omit<MetricQuery, 'range'>> = fc
  .record({
    aggregators: pipeline,
    groupBy,
    tags,
    order: fc.constantFrom('asc' as const, 'asc' as const, 'desc' as const),
    zone: fc.constantFrom('UTC', 'UTC', 'Europe/Berlin'),
    limit: fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 0, 25),
  })
  .map(({ aggregators, groupBy, tags, order, zone, limit }) => ({
    metric: 'm',
    tags,
    aggregators,
    groupBy,
    timeZone: zone,
    order,
    excludeTags: false,
    ...(limit > 0 ? { limit } : {}),
  }));

type Command =
  | { kind: 'query'; shape: number; range: MetricQuery['range']; advanceMs: number }
  | { kind: 'write'; host: string; type: 'double' | 'long'; times: { at?: number; fromNow?: number }[]; value: number }
  | { kind: 'delete'; host: string; startMs: number; endMs: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      shape: fc.nat(),
      range,
      advanceMs: fc.constantFrom(0, 0, 10_000, 59_999, HOUR, 7 * HOUR),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      host: fc.constantFrom('a', 'c', 'e'),
      type: fc.constantFrom('double' as const, 'long' as const),
      // Anywhere in the data, or near the clock: around the freshness window, where a write may or may not change a kept range.
      times: fc.array(
        fc.oneof(
          fc.integer({ min: T0 - HOUR, max: T0 + SPAN }).map((at) => ({ at })),
          fc.integer({ min: -2 * HOUR, max: 60_000 }).map((fromNow) => ({ fromNow })),
          fc.integer({ min: -61_000, max: -59_000 }).map((fromNow) => ({ fromNow })),
        ),
        { minLength: 1, maxLength: 5 },
      ),
      value: fc.integer({ min: -1000, max: 1000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        kind: fc.constant('delete' as const),
        host: fc.constantFrom('a', 'b', 'c', 'e'),
        startMs: fc.integer({ min: T0, max: T0 + SPAN }),
        length: fc.integer({ min: 0, max: DAY }),
      })
      .map(({ kind, host, startMs, length }) => ({ kind, host, startMs, endMs: startMs + length })),
  },
);

describe('the results cache', () => {
  it('answers random pipelines, ranges and clocks with writes and deletes between them exactly as the store does', async () => {
    let hits = 0;
    let misses = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(shape, { minLength: 1, maxLength: 3 }),
        fc.array(command, { minLength: 4, maxLength: 16 }),
        fc.integer({ min: 0, max: 3 * DAY }),
        async (shapes, commands, firstNow) => {
          // The request clock starts inside the data, so the freshness window falls on it, and moves forward with the
          // wall clock: writes of points near it are fresh (they leave the cache alone), the others late.
          let nowMs = T0 + DAY + firstNow;
          const w = await world(INITIAL, nowMs);
          for (const c of commands) {
            if (c.kind === 'write') {
              const unique = [...new Set(c.times.map((t) => t.at ?? nowMs + t.fromNow!))].sort((x, y) => x - y);
              await w.source.write({
                series: [
                  {
                    metric: 'm',
                    tags: { host: c.host, dc: 'x' },
                    type: c.type,
                    ttlSeconds: 0,
                    timestamps: unique,
                    values: unique.map(() => c.value),
                  },
                ],
              });
            } else if (c.kind === 'delete') {
              const loaders = new IndexLoaders();
              await deletePoints(
                w.source,
                loaders,
                'm',
                { startMs: c.startMs, endMs: c.endMs },
                compileTagFilter([{ tag: 'host', in: [c.host] }], 'tags'),
              );
            } else {
              nowMs += c.advanceMs;
              w.clockMs += c.advanceMs;
              const q: MetricQuery = { ...shapes[c.shape % shapes.length]!, range: c.range };
              const warm = newQueryStats();
              const expected = await answer(w, q, nowMs, false, newQueryStats());
              const actual = await answer(w, q, nowMs, true, warm);
              expect(actual).toEqual(expected);
              // The same question again is answered from what the first kept, or the same way.
              const again = newQueryStats();
              expect(await answer(w, q, nowMs, true, again)).toEqual(expected);
              hits += warm.cacheHits + again.cacheHits;
              misses += warm.cacheMisses + again.cacheMisses;
            }
          }
        },
      ),
      { numRuns: 60 },
    );
    // A property that never met the cache would prove nothing.
    expect(hits).toBeGreaterThan(10_000);
    expect(misses).toBeGreaterThan(1000);
  }, 240_000);

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
