/**
 * The tag index conformance suite: with TAG_INDEXED_METRICS on, every store plans the same series as it does through
 * row_keys alone, for any series and any tag filter, reads the index only where it is complete, and keeps it right
 * through deletes and a change of configuration. Run against the embedded store (unit run) and Cassandra (integration).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import type { TagCondition, TagFilter, TimeRange } from '../src/model/query.js';
import { compileTagFilter, type SeriesPredicate } from '../src/model/tag-filter.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import { planSeries, type IndexReader } from '../src/sources/kairosdb/plan.js';
import { encodeTagString } from '../src/store/format/index.js';
import type { RowKey, Store } from '../src/store/store.js';
import type { SeriesWrite } from '../src/model/write-batch.js';
import { parseTagIndexConfig, type TagIndexConfig } from '../src/store/tag-index.js';

export interface TagIndexStores {
  /** A fresh, empty store with a row width of 1000 ms. */
  fresh(tagIndexedMetrics: TagIndexConfig | undefined): Promise<Store>;
  /** Closes `store` and opens another over what it holds, with another configuration. */
  reopen(store: Store, tagIndexedMetrics: TagIndexConfig | undefined): Promise<Store>;
  /** Runs of the property; Cassandra's cost a keyspace each. */
  readonly runs: number;
}

const WIDTH = 1000;
const config = (json: unknown) => parseTagIndexConfig(json);

/** The series a plan finds, comparable across plans: row time, type and tag string, sorted. */
function ids(keys: readonly RowKey[]): string[] {
  return keys.map((k) => JSON.stringify([k.metric, k.rowTime, k.dataType, encodeTagString(k.tags)])).sort();
}

/** Finds the series of a metric in a range that pass a filter: the partitions to read. */
type Finder = (metric: string, range: TimeRange, matches: SeriesPredicate) => Promise<readonly RowKey[]>;

/** row_keys alone: a reader without the tag index, as the planner was before it. */
function plainReader(store: Store): Finder {
  const reader: IndexReader = {
    rowTimes: (metric, start, end) => store.rowTimes(metric, start, end),
    rowKeys: (metric, rowTime) => store.rowKeys(metric, rowTime),
    legacyRowKeys: (metric, start, end) => store.legacyRowKeys(metric, start, end),
  };
  return async (metric, range, matches) => (await planSeries(reader, metric, range, matches, WIDTH)).partitions;
}

/** Through the KairosDB layout and one request's loaders, as the engine finds series; `calls` counts every index read. */
function viaLoaders(store: Store): Finder & { calls(): Record<string, number> } {
  const source = new KairosdbSource('kairosdb', store);
  const loaders = new IndexLoaders();
  const find: Finder = async (metric, range, matches) =>
    (await source.findSeries(loaders, metric, range, matches)).partitions;
  return Object.assign(find, {
    calls: () =>
      Object.fromEntries(source.indexReads.map((read) => [read, loaders.calls.get('kairosdb')?.[read] ?? 0])),
  });
}

async function plan(
  find: Finder,
  metric: string,
  filter: TagFilter,
  startMs = 0,
  endMs = 10 * WIDTH,
): Promise<string[]> {
  return ids(await find(metric, { startMs, endMs }, compileTagFilter(filter, 'tags')));
}

const series = (
  metric: string,
  tags: Record<string, string>,
  timestamps: number[],
  type: SeriesWrite['type'] = 'double',
): SeriesWrite => ({
  metric,
  tags,
  type,
  ttlSeconds: 0,
  timestamps,
  values: timestamps.map((t) => (type === 'string' ? String(t) : t)),
});

// Random datasets: few values per tag, so filters often match; tags sometimes absent; two metrics, three row periods.
const HOSTS = ['a', 'b', 'c', 'd'];
const DCS = ['x', 'y'];
const SVCS = ['p', 'q', 'r=s'];
const seriesArb = fc
  .record({
    metric: fc.constantFrom('m', 'm', 'm', 'n'),
    host: fc.constantFrom(...HOSTS),
    dc: fc.option(fc.constantFrom(...DCS), { nil: undefined }),
    svc: fc.option(fc.constantFrom(...SVCS), { nil: undefined }),
    type: fc.constantFrom('double' as const, 'long' as const),
    times: fc.uniqueArray(fc.constantFrom(100, 900, 1100, 2500), { minLength: 1, maxLength: 3 }),
  })
  .map(({ metric, host, dc, svc, type, times }) => {
    const tags: Record<string, string> = { host };
    if (dc !== undefined) tags.dc = dc;
    if (svc !== undefined) tags.svc = svc;
    return series(metric, tags, times, type);
  });
const configArb = fc.constantFrom<unknown>(
  { m: ['host'] },
  { m: [] },
  ['*'],
  { m: ['host', 'dc'] },
  { m: ['svc'] },
  ['m'],
  { n: ['host'] },
  { m: ['*', 'dc'] },
);
const TAG_VALUES: Record<string, string[]> = {
  host: [...HOSTS, 'zz'],
  dc: [...DCS, 'zz'],
  svc: [...SVCS, 'r', 'zz'],
  zone: ['e'],
};
const conditionArb: fc.Arbitrary<TagCondition> = fc.constantFrom('host', 'dc', 'svc', 'zone').chain((tag) => {
  const values = fc.uniqueArray(fc.constantFrom(...TAG_VALUES[tag]!), { maxLength: 3 });
  return fc.oneof(
    values.map((v): TagCondition => ({ tag, in: v })),
    values.map((v): TagCondition => ({ tag, in: v })),
    fc.constantFrom('a|b', '.*', 'x', '[pq]', 'r=.*').map((regex): TagCondition => ({ tag, regex })),
    values.map((v): TagCondition => ({ tag, notIn: v })),
    fc.tuple(values, values).map(([i, n]): TagCondition => ({ tag, in: i, notIn: n })),
    fc.tuple(values, fc.constantFrom('a', 'y')).map(([i, regex]): TagCondition => ({ tag, in: i, regex })),
    fc.constant<TagCondition>({ tag }),
  );
});
const filterArb = fc.array(conditionArb, { maxLength: 3 });

export function describeTagIndexConformance(name: string, stores: TagIndexStores): void {
  describe(`${name} store tag index`, () => {
    const open: Store[] = [];
    const track = (store: Store) => {
      open.push(store);
      return store;
    };
    /** The store over what `store` holds, in its place among those the test closes. */
    const reopen = async (store: Store, json: unknown) => {
      open.splice(open.indexOf(store), 1);
      return track(await stores.reopen(store, json === undefined ? undefined : config(json)));
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('plans the same series with the index as through row_keys, for any series and filter', async () => {
      await fc.assert(
        fc.asyncProperty(
          configArb,
          fc.array(seriesArb, { minLength: 1, maxLength: 24 }),
          fc.array(filterArb, { minLength: 4, maxLength: 8 }),
          async (json, data, filters) => {
            const store = await stores.fresh(config(json));
            try {
              await store.write({ series: data });
              const loaders = viaLoaders(store);
              for (const metric of ['m', 'n']) {
                for (const filter of filters)
                  expect(await plan(loaders, metric, filter), JSON.stringify(filter)).toEqual(
                    await plan(plainReader(store), metric, filter),
                  );
                // A range inside one row period, its rows and the rows around it.
                expect(await plan(loaders, metric, filters[0]!, 1000, 1999)).toEqual(
                  await plan(plainReader(store), metric, filters[0]!, 1000, 1999),
                );
              }
            } finally {
              await store.close();
            }
          },
        ),
        { numRuns: stores.runs },
      );
    });

    it('reads the pinned tag=value partitions instead of row_keys, once per request, and checks every condition', async () => {
      const store = track(await stores.fresh(config({ m: ['host'] })));
      await store.write({
        series: [
          series('m', { host: 'a', dc: 'x' }, [100, 1100]),
          series('m', { host: 'a', dc: 'y' }, [100]),
          series('m', { host: 'b', dc: 'x' }, [100, 1100]),
          series('m', { host: 'a', dc: 'x' }, [200], 'long'),
        ],
      });
      const loaders = viaLoaders(store);
      const filter: TagFilter = [
        { tag: 'host', in: ['a'] },
        { tag: 'dc', in: ['x'] },
      ];
      const expected = [
        JSON.stringify(['m', 0, 'kairos_double', 'dc=x:host=a:']),
        JSON.stringify(['m', 0, 'kairos_long', 'dc=x:host=a:']),
        JSON.stringify(['m', 1000, 'kairos_double', 'dc=x:host=a:']),
      ];
      expect(await plan(loaders, 'm', filter)).toEqual(expected);
      // A second alias with the same pinned host reads nothing more.
      expect(await plan(loaders, 'm', [{ tag: 'host', in: ['a'] }])).toHaveLength(4);
      expect(loaders.calls()).toEqual({ rowTimes: 1, rowKeys: 0, legacyRowKeys: 1, tagIndexedRowKeys: 2 });
    });

    it('answers a filter on a tag that is not indexed from row_keys, where KairosDB finds nothing', async () => {
      const store = track(await stores.fresh(config({ m: ['host'] })));
      await store.write({
        series: [series('m', { host: 'a', dc: 'x' }, [100]), series('m', { host: 'b', dc: 'y' }, [100])],
      });
      const loaders = viaLoaders(store);
      expect(await plan(loaders, 'm', [{ tag: 'dc', in: ['x'] }])).toEqual([
        JSON.stringify(['m', 0, 'kairos_double', 'dc=x:host=a:']),
      ]);
      expect(loaders.calls()).toEqual({ rowTimes: 1, rowKeys: 1, legacyRowKeys: 1, tagIndexedRowKeys: 0 });
    });

    it('picks the most selective of several pinned tags', async () => {
      const store = track(await stores.fresh(config({ m: [] })));
      const many = Array.from({ length: 30 }, (_, i) => series('m', { host: `h${i}`, dc: 'x' }, [100]));
      await store.write({ series: [...many, series('m', { host: 'h0', dc: 'y' }, [100])] });
      const loaders = viaLoaders(store);
      expect(
        await plan(loaders, 'm', [
          { tag: 'dc', in: ['x'] },
          { tag: 'host', in: ['h0', 'h1'] },
        ]),
      ).toEqual([
        JSON.stringify(['m', 0, 'kairos_double', 'dc=x:host=h0:']),
        JSON.stringify(['m', 0, 'kairos_double', 'dc=x:host=h1:']),
      ]);
      // dc=x (30 series) and host=h0, host=h1 (3) are probed; the smaller group is used.
      expect(loaders.calls()['tagIndexedRowKeys']).toBe(3);
      expect(await store.tagIndexedRowKeys!('m', 0, 'dc', 'x', 10)).toMatchObject({ complete: false });
      expect((await store.tagIndexedRowKeys!('m', 0, 'dc', 'x', 30)).keys).toHaveLength(30);
      expect(await store.tagIndexedRowKeys!('m', 0, 'dc', 'x', 30)).toMatchObject({ complete: true });
    });

    it('forgets a deleted series in the index, also one written while other tags were indexed', async () => {
      let store = track(await stores.fresh(config({ m: ['host'] })));
      await store.write({
        series: [series('m', { host: 'a', dc: 'x' }, [100]), series('m', { host: 'a', dc: 'y' }, [100])],
      });
      // Indexed again with both tags: the series now has two rows in host=a, each with its own hash.
      store = await reopen(store, { m: ['host', 'dc'] });
      await store.write({ series: [series('m', { host: 'a', dc: 'x' }, [150])] });
      const [gone] = (await store.rowKeys('m', 0)).filter((k) => k.tags.dc === 'x');
      await store.deleteRange(gone!, 0, WIDTH - 1);
      const filter: TagFilter = [{ tag: 'host', in: ['a'] }];
      expect(await plan(viaLoaders(store), 'm', filter)).toEqual([
        JSON.stringify(['m', 0, 'kairos_double', 'dc=y:host=a:']),
      ]);
      expect((await store.tagIndexedRowKeys!('m', 0, 'host', 'a')).keys.map((k) => k.tags.dc)).toEqual(['y']);
    });

    it('still finds series written before their tags were indexed', async () => {
      let store = track(await stores.fresh(undefined));
      const before = [series('m', { host: 'a', dc: 'x' }, [100, 1100]), series('m', { host: 'b', dc: 'x' }, [100])];
      await store.write({ series: before });
      store = await reopen(store, { m: ['host'] });
      await store.write({ series: [series('m', { host: 'a', dc: 'y' }, [1200])] });
      const filter: TagFilter = [{ tag: 'host', in: ['a'] }];
      expect(await plan(viaLoaders(store), 'm', filter)).toEqual([
        JSON.stringify(['m', 0, 'kairos_double', 'dc=x:host=a:']),
        JSON.stringify(['m', 1000, 'kairos_double', 'dc=x:host=a:']),
        JSON.stringify(['m', 1000, 'kairos_double', 'dc=y:host=a:']),
      ]);
    });
  });
}
