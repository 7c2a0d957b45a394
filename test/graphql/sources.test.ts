/**
 * Sources over real HTTP: a gateway with two embedded stores, the primary one and "archive". `sources` lists them;
 * every field that reads or writes series goes to the source its `source` argument names (the stores themselves are
 * looked at to prove where writes landed); the results cache and the statistics keep the two apart; an unknown name
 * is a BAD_USER_INPUT naming it; the KairosDB REST API serves the primary source.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { partitionsOf, scanAll } from '../support/store-reads.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { callRest } from '../rest/rest-client.js';

afterAll(removeTempDirs);

/** On the hour, long ago: ranges of it are complete and old enough for the results cache. */
const T = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;

const ADD = `mutation ($series: [SeriesPointsInput!]!, $source: String) { addPoints(series: $series, source: $source) { series points } }`;

let primary: EmbeddedStore;
let archive: EmbeddedStore;
let gw: TestGateway;

beforeEach(async () => {
  primary = await EmbeddedStore.open({ path: tempDir() });
  archive = await EmbeddedStore.open({ path: tempDir() });
  gw = await startGateway(primary, {}, { sources: { archive } });
  // The same metric in both, with other hosts and values; and a metric only the archive has.
  const cpu = (host: string, values: number[]) => ({
    metric: 'cpu',
    tags: [{ name: 'host', value: host }],
    points: values.map((value, i) => ({ time: T + 1000 + i * 60_000, value })),
  });
  expect((await gw.graphql(ADD, { series: [cpu('a', [1, 3])] })).body).toEqual({
    data: { addPoints: { series: 1, points: 2 } },
  });
  expect(
    (
      await gw.graphql(ADD, {
        series: [
          cpu('b', [100, 300]),
          { metric: 'only.archive', tags: [{ name: 'host', value: 'b' }], points: [{ time: T, value: 7 }] },
        ],
        source: 'archive',
      })
    ).body,
  ).toEqual({
    data: { addPoints: { series: 2, points: 3 } },
  });
});
afterEach(async () => {
  await gw.close();
  await primary.close();
  await archive.close();
});

describe('sources', () => {
  it('lists the primary source first, then the others, with their layout', async () => {
    expect((await gw.graphql('{ sources { name layout writable primary } }')).body).toEqual({
      data: {
        sources: [
          { name: 'kairosdb', layout: 'kairosdb', writable: true, primary: true },
          { name: 'archive', layout: 'kairosdb', writable: true, primary: false },
        ],
      },
    });
  });

  it('writes into the store of the source named, and the primary one when none is', async () => {
    expect(await primary.metricNames('')).toEqual(['cpu']);
    expect(await archive.metricNames('')).toEqual(['cpu', 'only.archive']);
    const valuesIn = async (store: EmbeddedStore) => {
      const keys = await partitionsOf(store, 'cpu', 0, T + HOUR);
      return Promise.all(keys.map(async (key) => [key.tags, (await scanAll(store, key, 0, T + HOUR)).map((p) => p.v)]));
    };
    expect(await valuesIn(primary)).toEqual([[{ host: 'a' }, [1, 3]]]);
    expect(await valuesIn(archive)).toEqual([[{ host: 'b' }, [100, 300]]]);
  });

  it('reads metric names, tag names and values and series keys of the source named', async () => {
    const query = (source: string) => `{
      metricNames(source: ${source})
      tagNames(metric: "cpu", from: ${T}, to: ${T + HOUR}, source: ${source})
      tagValues(metric: "cpu", tag: "host", from: ${T}, to: ${T + HOUR}, source: ${source})
      seriesKeys(metric: "cpu", from: ${T}, to: ${T + HOUR}, source: ${source}) { host: tag(name: "host") type }
    }`;
    expect((await gw.graphql(query('"archive"'))).body).toEqual({
      data: {
        metricNames: ['cpu', 'only.archive'],
        tagNames: ['host'],
        tagValues: ['b'],
        seriesKeys: [{ host: 'b', type: 'DOUBLE' }],
      },
    });
    expect((await gw.graphql(query('"kairosdb"'))).body).toEqual({
      data: { metricNames: ['cpu'], tagNames: ['host'], tagValues: ['a'], seriesKeys: [{ host: 'a', type: 'DOUBLE' }] },
    });
    expect((await gw.graphql(query('null'))).body).toEqual({
      data: { metricNames: ['cpu'], tagNames: ['host'], tagValues: ['a'], seriesKeys: [{ host: 'a', type: 'DOUBLE' }] },
    });
  });

  it('reads points, series and rows of the source named, and says in the statistics which source each store call went to', async () => {
    const response = await gw.graphql(`{
      points(metric: "cpu", from: ${T}, to: ${T + HOUR}, source: "archive") { host: tag(name: "host") points { epochMs value } }
      rows(metric: "cpu", from: ${T}, to: ${T + HOUR}, source: "archive") { host: tag(name: "host") value }
      primary: points(metric: "cpu", from: ${T}, to: ${T + HOUR}) { host: tag(name: "host") points { value } }
    }`);
    expect(response.body).toEqual({
      data: {
        points: [
          {
            host: 'b',
            points: [
              { epochMs: T + 1000, value: 100 },
              { epochMs: T + 61_000, value: 300 },
            ],
          },
        ],
        rows: [
          { host: 'b', value: 100 },
          { host: 'b', value: 300 },
        ],
        primary: [{ host: 'a', points: [{ value: 1 }, { value: 3 }] }],
      },
    });
    const statistics = response.extensions!['statistics'] as {
      storeCalls: unknown;
      storeCallsBySource: unknown;
      queries: { path: string; source: string }[];
    };
    // points and rows of the archive share its index reads through the request's loaders; each reads its partition.
    expect(statistics.storeCallsBySource).toEqual({
      kairosdb: { rowTimes: 1, rowKeys: 1, legacyRowKeys: 1, tagIndexedRowKeys: 0, scans: 1, total: 4 },
      archive: { rowTimes: 1, rowKeys: 1, legacyRowKeys: 1, tagIndexedRowKeys: 0, scans: 2, total: 5 },
    });
    expect(statistics.storeCalls).toEqual({
      rowTimes: 2,
      rowKeys: 2,
      legacyRowKeys: 2,
      tagIndexedRowKeys: 0,
      scans: 3,
      total: 9,
    });
    expect(statistics.queries.map((q) => [q.path, q.source]).sort()).toEqual([
      ['points', 'archive'],
      ['primary', 'kairosdb'],
      ['rows', 'archive'],
    ]);
  });

  it('keeps the two sources apart in the results cache', async () => {
    const avg = (source: string) =>
      gw.graphql(
        `{ series(metric: "cpu", from: ${T}, to: ${T + HOUR - 1}, aggregators: [{ avg: { sampling: { value: 1, unit: HOURS } } }], source: ${source}) { tag(name: "host") points { value } } }`,
      );
    const cacheOf = (response: Awaited<ReturnType<typeof avg>>) =>
      (response.extensions!['statistics'] as { queries: { cache: unknown }[] }).queries[0]!.cache;
    const first = await avg('"kairosdb"');
    const again = await avg('"kairosdb"');
    const other = await avg('"archive"');
    expect([first.body, again.body, other.body]).toEqual([
      { data: { series: [{ tag: 'a', points: [{ value: 2 }] }] } },
      { data: { series: [{ tag: 'a', points: [{ value: 2 }] }] } },
      { data: { series: [{ tag: 'b', points: [{ value: 200 }] }] } },
    ]);
    // The same query of another source is not answered from the first one's ranges.
    expect([cacheOf(first), cacheOf(again), cacheOf(other)]).toEqual([
      { hits: 0, misses: 1, cachedPoints: 0 },
      { hits: 1, misses: 0, cachedPoints: 2 },
      { hits: 0, misses: 1, cachedPoints: 0 },
    ]);
  });

  it('deletes from the source named only', async () => {
    const deleted = await gw.graphql(
      `mutation { deletePoints(metric: "cpu", from: ${T}, to: ${T + HOUR}, source: "archive") { series partitionsDeleted rangesDeleted } }`,
    );
    expect(deleted.body).toEqual({ data: { deletePoints: { series: 1, partitionsDeleted: 0, rangesDeleted: 1 } } });
    const read = await gw.graphql(
      `{ archive: points(metric: "cpu", from: ${T}, source: "archive") { points { value } } primary: points(metric: "cpu", from: ${T}) { points { value } } }`,
    );
    // A part of a row period went, so the archive's series is still indexed, with no points left.
    expect(read.body).toEqual({
      data: { archive: [{ points: [] }], primary: [{ points: [{ value: 1 }, { value: 3 }] }] },
    });
  });

  it.each([
    ['metricNames', '{ metricNames(source: "nope") }'],
    ['tagNames', '{ tagNames(metric: "cpu", source: "nope") }'],
    ['tagValues', '{ tagValues(metric: "cpu", tag: "host", source: "nope") }'],
    ['seriesKeys', '{ seriesKeys(metric: "cpu", source: "nope") { metric } }'],
    ['points', '{ points(metric: "cpu", from: 0, source: "nope") { name } }'],
    ['series', '{ series(metric: "cpu", from: 0, source: "nope") { name } }'],
    ['rows', '{ rows(metric: "cpu", from: 0, source: "nope") { name } }'],
    [
      'addPoints',
      'mutation { addPoints(series: [{ metric: "new", tags: [], points: [{ time: 0, value: 1 }] }], source: "nope") { series } }',
    ],
    ['deletePoints', 'mutation { deletePoints(metric: "cpu", from: 0, to: 1, source: "nope") { series } }'],
  ])('refuses an unknown source in %s, naming it and the configured ones', async (_, query) => {
    const response = await gw.graphql(query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      data: null,
      errors: [
        {
          message: 'source must be one of the configured sources: kairosdb, archive (got "nope")',
          path: [query.match(/(\w+)\(/)![1]!],
          locations: expect.any(Array),
          extensions: { code: 'BAD_USER_INPUT', field: 'source' },
        },
      ],
    });
    expect(await primary.metricNames('')).toEqual(['cpu']);
    expect(await archive.metricNames('')).toEqual(['cpu', 'only.archive']);
  });

  it('serves the primary source on the KairosDB REST API', async () => {
    expect((await callRest(gw.url, 'GET', '/api/v1/metricnames')).json).toEqual({ results: ['cpu'] });
    const query = await callRest(gw.url, 'POST', '/api/v1/datapoints/query', {
      body: { start_absolute: T, end_absolute: T + HOUR, metrics: [{ name: 'cpu' }, { name: 'only.archive' }] },
    });
    expect(
      (query.json as { queries: { results: { tags: unknown; values: unknown }[] }[] }).queries.map((q) =>
        q.results.map((r) => [r.tags, r.values]),
      ),
    ).toEqual([
      [
        [
          { host: ['a'] },
          [
            [T + 1000, 1],
            [T + 61_000, 3],
          ],
        ],
      ],
      [],
    ]);
  });
});

describe('PRIMARY_SOURCE_NAME', () => {
  it('names the primary source', async () => {
    const named = await startGateway(primary, { PRIMARY_SOURCE_NAME: 'main' }, { sources: { archive } });
    try {
      expect((await named.graphql('{ sources { name primary } main: metricNames(source: "main") }')).body).toEqual({
        data: {
          sources: [
            { name: 'main', primary: true },
            { name: 'archive', primary: false },
          ],
          main: ['cpu'],
        },
      });
      expect((await named.graphql('{ metricNames(source: "kairosdb") }')).body.errors![0]!.message).toBe(
        'source must be one of the configured sources: main, archive (got "kairosdb")',
      );
    } finally {
      await named.close();
    }
  });
});
