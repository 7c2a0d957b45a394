/**
 * findTags reads a bounded number of index rows whatever the range, counted by the request loaders' own counters,
 * and answers the tags of the series that pass the filter in the row periods it reads.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import { DEFAULT_TIME_ZONE, type MetricQuery, type TagFilter } from '../model/query.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { validateWrite } from '../sources/write-validation.js';
import { findTags } from './find-tags.js';
import { OPEN_END_MS } from '../kairos-json/parse-query.js';

afterAll(removeTempDirs);

let store: EmbeddedStore;
let source: KairosdbSource;
beforeEach(async () => {
  store = await EmbeddedStore.open({ path: tempDir(), rowWidth: 1000 });
  source = new KairosdbSource('kairosdb', store);
  // Twelve row periods; period k holds host h<k> and, in even periods, a second series in dc "even".
  const series = Array.from({ length: 12 }, (_, k) => [
    { metric: 'm', tags: { host: `h${k}` }, type: 'long' as const, points: [{ timestamp: k * 1000 + 1, value: k }] },
    ...(k % 2 === 0
      ? [
          {
            metric: 'm',
            tags: { host: `h${k}`, dc: 'even' },
            type: 'long' as const,
            points: [{ timestamp: k * 1000 + 2, value: k }],
          },
        ]
      : []),
  ]).flat();
  await store.write(validateWrite(series, 'points', { maxPoints: 1000, keys: store.limits }));
});
afterEach(async () => {
  await store.close();
});

const query = (startMs: number, endMs: number, tags: TagFilter = []): MetricQuery => ({
  metric: 'm',
  range: { startMs, endMs },
  tags,
  aggregators: [],
  groupBy: [],
  timeZone: DEFAULT_TIME_ZONE,
  order: 'asc',
  excludeTags: false,
});

describe('findTags', () => {
  it('reads one row-time lookup, the latest N row periods and one legacy slice for a start of 0', async () => {
    const loaders = new IndexLoaders();
    expect(await findTags(source, loaders, query(0, OPEN_END_MS), 3)).toEqual({
      tags: { dc: ['even'], host: ['h10', 'h11', 'h9'] },
      warnings: [],
    });
    expect(loaders.calls.get('kairosdb')).toEqual({ rowTimes: 1, rowKeys: 3, legacyRowKeys: 1 });
  });

  it('keeps the row periods within the range, and all of them when there are few', async () => {
    const loaders = new IndexLoaders();
    expect(await findTags(source, loaders, query(2500, 5500), 3)).toEqual({
      tags: { dc: ['even'], host: ['h3', 'h4', 'h5'] },
      warnings: [],
    });
    expect(loaders.calls.get('kairosdb')).toEqual({ rowTimes: 1, rowKeys: 3, legacyRowKeys: 1 });
    const few = new IndexLoaders();
    expect(await findTags(source, few, query(10_000, 20_000), 3)).toEqual({
      tags: { dc: ['even'], host: ['h10', 'h11'] },
      warnings: [],
    });
    expect(few.calls.get('kairosdb')).toEqual({ rowTimes: 1, rowKeys: 2, legacyRowKeys: 1 });
  });

  it('answers only the series that pass the filter, and nothing for an unknown metric', async () => {
    const loaders = new IndexLoaders();
    expect(await findTags(source, loaders, query(0, OPEN_END_MS, [{ tag: 'dc', in: ['even'] }]), 4)).toEqual({
      tags: { dc: ['even'], host: ['h10', 'h8'] },
      warnings: [],
    });
    expect(await findTags(source, loaders, { ...query(0, OPEN_END_MS), metric: 'other' }, 4)).toEqual({
      tags: {},
      warnings: [],
    });
  });

  it("finds the series of KairosDB's unaligned negative rows just after a negative start, as every query does", async () => {
    // Width 1000: -999 is stored in row -1998, before rowTimeOf(-1001) = -1002 where KairosDB's own lookup starts.
    await store.write(
      validateWrite(
        [{ metric: 'neg', tags: { host: 'late' }, type: 'long', points: [{ timestamp: -999, value: 1 }] }],
        'points',
        { maxPoints: 1, keys: store.limits },
      ),
    );
    const loaders = new IndexLoaders();
    expect(await findTags(source, loaders, { ...query(-1001, -900), metric: 'neg' }, 3)).toEqual({
      tags: { host: ['late'] },
      warnings: [],
    });
    expect(loaders.calls.get('kairosdb')).toEqual({ rowTimes: 1, rowKeys: 1, legacyRowKeys: 1 });
  });
});
