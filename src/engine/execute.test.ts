// executeQuery beyond the golden files: statistics, answers independent of layout and concurrency, no store call
// for an invalid query, and cancellation.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../model/errors.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import type { MetricQuery } from '../model/query.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import type { SeriesWrite } from '../model/write-batch.js';
import type { Store } from '../store/store.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { executeQuery, newQueryStats, unlimitedRequest, type EngineContext, type QueryStats } from './execute.js';

afterAll(removeTempDirs);

const open: Store[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function storeWith(series: SeriesWrite[], rowWidth?: number): Promise<EmbeddedStore> {
  const store = await EmbeddedStore.open({ path: tempDir(), ...(rowWidth !== undefined ? { rowWidth } : {}) });
  open.push(store);
  await store.write({ series });
  return store;
}

function query(overrides: Partial<MetricQuery> = {}): MetricQuery {
  return {
    metric: 'm',
    range: { startMs: 0, endMs: 10_000 },
    tags: [],
    aggregators: [],
    groupBy: [],
    timeZone: 'UTC',
    order: 'asc',
    excludeTags: false,
    ...overrides,
  };
}

function context(store: Store, extra: Partial<EngineContext> = {}): EngineContext & { stats: QueryStats } {
  return {
    source: new KairosdbSource('kairosdb', store),
    index: new IndexLoaders(),
    budgets: { maxSeries: 1e6, maxPointsRead: 1e9, maxPointsReturned: 1e9, onExceed: 'error' },
    request: unlimitedRequest(),
    stats: newQueryStats(),
    nowMs: 10_000,
    ...extra,
  };
}

/** Deterministic doubles that no order of addition sums exactly. */
function noisy(series: number, points: number): SeriesWrite[] {
  return Array.from({ length: series }, (_, s) => ({
    metric: 'm',
    tags: { host: `h${s}` },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps: Array.from({ length: points }, (_, i) => i * 7 + s),
    values: Array.from({ length: points }, (_, i) => Math.sin(s * 1000 + i) * 10 ** ((i % 7) - 3)),
  }));
}

describe('executeQuery', () => {
  it('fills the request statistics', async () => {
    const store = await storeWith(noisy(3, 100), 100);
    const ctx = context(store);
    const out = await executeQuery(
      query({ aggregators: [{ name: 'sum', params: { sampling: { value: 100, unit: 'milliseconds' } } }] }),
      ctx,
    );
    expect(out.sampleSize).toBe(300);
    expect(ctx.stats).toMatchObject({
      seriesMatched: 3,
      pointsRead: 300,
      pointsReturned: out.groups[0]!.points.length,
      partitionsRead: 3 * 7,
      scans: 3 * 7,
    });
    expect(ctx.stats.planMs).toBeGreaterThanOrEqual(0);
    expect(ctx.stats.fetchAggregateMs).toBeGreaterThan(0);
  });

  it('gives bit-identical sums, averages and deviations whatever the row width, page size and concurrency', async () => {
    const aggregators = ['sum', 'avg', 'dev', 'percentile'].map((name) => ({
      name,
      params: { sampling: { value: 50, unit: 'milliseconds' }, ...(name === 'percentile' ? { percentile: 0.9 } : {}) },
    }));
    const answers: unknown[] = [];
    for (const [rowWidth, pageSize, concurrency] of [
      [undefined, undefined, undefined],
      [10, 1, 1],
      [33, 7, 3],
    ] as const) {
      const store = await storeWith(noisy(5, 300), rowWidth);
      const runs = await Promise.all(
        aggregators.map((a) =>
          executeQuery(
            query({ aggregators: [a] }),
            context(store, { ...(pageSize ? { pageSize } : {}), ...(concurrency ? { concurrency } : {}) }),
          ),
        ),
      );
      answers.push(runs.map((r) => r.groups.map((g) => [g.points.timestamps, g.points.values])));
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('reads ahead across row groups: grouped by host, the next hosts are read while the first is aggregated', async () => {
    const inner = await storeWith(noisy(4, 50));
    const log: string[] = [];
    const logged: Store = Object.assign(Object.create(inner) as Store, {
      readAhead: 2,
      scan: (...args: Parameters<Store['scan']>) => {
        const host = args[0].tags['host']!;
        log.push(`scan ${host}`);
        return (async function* () {
          yield* inner.scan(...args);
          log.push(`done ${host}`);
        })();
      },
    });
    const q = query({
      groupBy: [{ name: 'tag', params: { tags: ['host'] } }],
      aggregators: [{ name: 'avg', params: { sampling: { value: 100, unit: 'milliseconds' } } }],
    });
    const ahead = await executeQuery(q, context(logged));
    // h1 and h2 were asked for before h0 was done; h3 once the engine opened h1.
    expect(log.indexOf('scan h1')).toBeLessThan(log.indexOf('done h0'));
    expect(log.indexOf('scan h2')).toBeLessThan(log.indexOf('done h0'));
    expect(log.filter((entry) => entry.startsWith('scan')).sort()).toEqual([
      'scan h0',
      'scan h1',
      'scan h2',
      'scan h3',
    ]);
    const alone = await executeQuery(q, context(inner, { readAhead: 0 }));
    expect(ahead.groups.map((g) => [g.tags, g.points.timestamps, g.points.values])).toEqual(
      alone.groups.map((g) => [g.tags, g.points.timestamps, g.points.values]),
    );
    expect(ahead.groups).toHaveLength(4);
  });

  it('aggregates a row group of one series as a stream, with the answers of the merged order, ascending and descending', async () => {
    // A row width of 33 ms puts ranges of 50 ms across partitions; a limit no query reaches turns series-major off.
    const store = await storeWith(noisy(3, 300), 33);
    const aggregators = ['avg', 'sum', 'count', 'min', 'max', 'first', 'last', 'dev', 'percentile'].map((name) => ({
      name,
      params: { sampling: { value: 50, unit: 'milliseconds' }, ...(name === 'percentile' ? { percentile: 0.5 } : {}) },
    }));
    const byHost = [{ name: 'tag', params: { tags: ['host'] } }];
    for (const order of ['asc', 'desc'] as const) {
      // dev's last bits follow the order points arrive in, and a desc query's series-major read goes ascending.
      for (const aggregator of [
        ...aggregators,
        { ...aggregators[0]!, params: { ...aggregators[0]!.params, align_sampling: true } },
      ].filter((a) => order === 'asc' || a.name !== 'dev')) {
        const q = query({ order, groupBy: byHost, aggregators: [aggregator] });
        const streamed = await executeQuery(q, context(store));
        const merged = await executeQuery({ ...q, limit: 1e9 }, context(store));
        const answer = (out: typeof streamed) =>
          out.groups.map((g) => [g.tags, g.points.timestamps, g.points.kinds, g.points.values]);
        expect(answer(streamed), `${order} ${aggregator.name}`).toEqual(answer(merged));
        expect(streamed.groups).toHaveLength(3);
        expect(streamed.groups[0]!.points.length).toBeGreaterThan(40);
      }
    }
  });

  it('validates the whole query before it touches the store', async () => {
    const calls: string[] = [];
    const store = await storeWith(noisy(1, 10));
    const spy = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function'
          ? (...args: unknown[]) => {
              calls.push(String(prop));
              return value.apply(target, args);
            }
          : value;
      },
    });
    const bad = query({
      aggregators: [
        { name: 'avg', params: {} },
        { name: 'percentile', params: { percentile: 2 } },
      ],
    });
    await expect(executeQuery(bad, context(spy))).rejects.toThrow(
      new InputError('aggregators[1].percentile', 2, 'must be greater than 0 and at most 1'),
    );
    expect(calls).toEqual([]);
  });

  it('stops reading when the request is aborted', async () => {
    const store = await storeWith(noisy(2, 100), 10);
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await expect(executeQuery(query(), context(store, { signal: controller.signal }))).rejects.toThrow(
      'client went away',
    );
  });

  it('answers a series group per stored series, even one without points in the range', async () => {
    const store = await storeWith([
      { metric: 'm', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [1, 2], values: [1, 2] },
      { metric: 'm', tags: { host: 'b' }, type: 'long', ttlSeconds: 0, timestamps: [50], values: [3] },
    ]);
    const out = await executeQuery(
      query({ range: { startMs: 0, endMs: 10 }, groupBy: [{ name: 'series', params: {} }] }),
      context(store),
    );
    expect(out.groups.map((g) => [g.tags, g.points.values])).toEqual([
      [{ host: ['a'] }, [1, 2]],
      [{ host: ['b'] }, []],
    ]);
  });
});
