// The results cache changes no answer: random pipelines (qualifying and not), ranges and clocks, interleaved with
// writes and deletes through the invalidating source, answered with the cache and without it, bit for bit; and the
// statistics of what it saved. What it reads and keeps, case by case, is bucket-cache-reads.test.ts.
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { answer, closeWorlds, DAY, HOUR, T0, world } from '../../test/support/results-cache-world.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';
import { deletePoints } from '../app/delete-points.js';
import type { AggregatorSpec, GroupBySpec, MetricQuery, TagFilter } from '../model/query.js';
import { compileTagFilter } from '../model/tag-filter.js';
import type { SeriesWrite } from '../model/write-batch.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import { newQueryStats } from './execute.js';

afterAll(removeTempDirs);
afterEach(closeWorlds);

const SPAN = 4 * DAY;

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
});
