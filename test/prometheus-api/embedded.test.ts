/**
 * The Prometheus API suite on the KairosDB layout over the embedded store, served as the primary source and as a
 * second source of its own, and what names a source: an unknown one is a 404 in Prometheus's error body.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describePrometheusApi, PROM_SERIES, promClient } from './prometheus-suite.js';

let primary: EmbeddedStore;
let second: EmbeddedStore;
let gateway: TestGateway;

beforeAll(async () => {
  primary = await EmbeddedStore.open({ path: tempDir() });
  second = await EmbeddedStore.open({ path: tempDir() });
  for (const store of [primary, second])
    await new KairosdbSource('writer', store).write({
      series: PROM_SERIES.map((s) => ({
        metric: s.metric,
        tags: s.tags,
        type: s.type,
        ttlSeconds: 0,
        timestamps: s.points.map(([t]) => t),
        values: s.points.map(([, v]) => v),
      })),
    });
  gateway = await startGateway(primary, {}, { sources: { second } });
});

afterAll(async () => {
  await gateway?.close();
  await primary?.close();
  await second?.close();
  removeTempDirs();
});

describePrometheusApi('the KairosDB layout (primary source)', () => promClient(gateway.url, 'kairosdb'));
describePrometheusApi('the KairosDB layout (a second source)', () => promClient(gateway.url, 'second'));

it('answers an unknown source 404 not_found, naming the sources', async () => {
  const got = await promClient(gateway.url, 'nowhere').get('/query?query=1');
  expect([got.status, got.body]).toEqual([
    404,
    {
      status: 'error',
      errorType: 'not_found',
      error: 'no source is named "nowhere": the data source URL is /prometheus/<source>, one of kairosdb, second',
    },
  ]);
});

it('answers an unknown path 404 not_found', async () => {
  const got = await promClient(gateway.url, 'kairosdb').get('/targets');
  expect([got.status, got.body]).toEqual([
    404,
    {
      status: 'error',
      errorType: 'not_found',
      error: '/prometheus/kairosdb/api/v1/targets is not a path of the Prometheus API',
    },
  ]);
});

it("answers each result type in Prometheus's shape, special values as strings", async () => {
  const client = promClient(gateway.url, 'kairosdb');
  const answer = async (query: string) =>
    (await client.get(`/query?query=${encodeURIComponent(query)}&time=100.5`)).body as { data: unknown };
  expect((await answer('"text"')).data).toEqual({ resultType: 'string', result: [100.5, 'text'] });
  expect((await answer('time()')).data).toEqual({ resultType: 'scalar', result: [100.5, '100.5'] });
  expect((await answer('-1/0')).data).toEqual({ resultType: 'scalar', result: [100.5, '-Inf'] });
  expect((await answer('vector(0/0)')).data).toEqual({
    resultType: 'vector',
    result: [{ metric: {}, value: [100.5, 'NaN'] }],
  });
  expect((await answer('absent(no_such_metric{job="x"})')).data).toEqual({
    resultType: 'vector',
    result: [{ metric: { job: 'x' }, value: [100.5, '1'] }],
  });
  const range = await client.get(`/query?query=${encodeURIComponent('{"prom.mem"}[2m]')}&time=130`);
  expect((range.body as { data: unknown }).data).toEqual({
    resultType: 'matrix',
    result: [{ metric: { __name__: 'prom.mem', host: 'a' }, values: [[120, '7']] }],
  });
});
