/**
 * Prometheus's API over the layouts that live on Cassandra: the whole suite (test/prometheus-api/prometheus-suite.ts) on
 * Heroic's `metrics` table (ng keys; Heroic holds no text, so its source has no text series), and the requests
 * Grafana sends on a user's table, whose tags are its columns (`host`) and whose metrics are its value columns.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import { clientSettings } from '../../src/gateway/layer-options.js';
import { openHeroicSource } from '../../src/sources/heroic/open-heroic-source.js';
import type { Source } from '../../src/sources/source.js';
import { openTableSource } from '../../src/sources/table/open-table-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describePrometheusApi, PROM_SERIES, promClient, promSeriesFor } from '../prometheus-api/prometheus-suite.js';
import { plainClient, testNode } from './cassandra-stores.js';

const HOUR = 3_600_000;
const HEROIC = 'kg_prom_heroic';
const TABLES = 'kg_prom_tables';

let client: cassandra.Client;
let primary: EmbeddedStore;
let gateway: TestGateway;

const place = (keyspace: string) => {
  const node = testNode();
  return { contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, keyspace };
};

beforeAll(async () => {
  client = await plainClient();
  for (const keyspace of [HEROIC, TABLES]) {
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await client.execute(
      `CREATE KEYSPACE ${keyspace} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
  }
  // Heroic's tables.cql, as Heroic creates the table.
  await client.execute(
    `CREATE TABLE ${HEROIC}.metrics (metric_key blob, data_timestamp_offset int, data_value double, PRIMARY KEY(metric_key, data_timestamp_offset)) WITH COMPACT STORAGE`,
  );
  await client.execute(
    `CREATE TABLE ${TABLES}.readings (host text, bucket bigint, t timestamp, cpu double, mem bigint, note text, PRIMARY KEY ((host, bucket), t))`,
  );
  const connection = clientSettings(loadConfig({ SEED_DEMO: 'false', CASSANDRA_WRITE_CONSISTENCY: 'ONE' }));
  const heroic = openHeroicSource(
    connection,
    {
      name: 'heroic',
      layout: 'heroic',
      schema: 'ng',
      cassandra: place(HEROIC),
      configure: false,
      catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 600_000 },
    },
    undefined,
  );
  const table = await openTableSource(
    connection,
    {
      name: 'readings',
      layout: 'table',
      mapping: {
        keyspace: TABLES,
        table: 'readings',
        time: 't',
        bucket: { column: 'bucket', kind: 'fixed', zone: 'UTC', widthMs: HOUR },
        tags: ['host'],
        metrics: { 'prom.cpu': 'cpu', 'prom.mem': 'mem', 'prom.text': 'note' },
      },
      cassandra: place(TABLES),
      writable: true,
      maxBuckets: 100_000,
      catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 600_000 },
    },
    undefined,
  );
  await writeAll(heroic, promSeriesFor({ text: false }));
  // A table's tags are its columns, and a metric is one column of one type: `host` only, prom.cpu in doubles.
  await writeAll(
    table,
    PROM_SERIES.map((s) => ({
      ...s,
      tags: { host: s.tags.host },
      type: s.metric === 'prom.cpu' ? 'double' : s.type,
    })),
  );
  primary = await EmbeddedStore.open({ path: tempDir() });
  gateway = await startGateway(primary, {}, { layouts: [heroic, table] });
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await primary?.close();
  await client?.shutdown();
  removeTempDirs();
});

interface Written {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly type: string;
  readonly points: readonly (readonly [number, number | string])[];
}

async function writeAll(source: Source, series: readonly Written[]): Promise<void> {
  await source.write({
    series: series.map((s) => ({
      metric: s.metric,
      tags: s.tags,
      type: s.type as 'long' | 'double' | 'string',
      ttlSeconds: 0,
      timestamps: s.points.map(([t]) => t),
      values: s.points.map(([, v]) => v),
    })),
  });
}

describePrometheusApi("Heroic's table", () => promClient(gateway.url, 'heroic'), { text: false });

describe("Prometheus's API on a user's table", () => {
  const table = () => promClient(gateway.url, 'readings');
  const success = (data: unknown, extra: Record<string, unknown> = {}) => ({ status: 'success', data, ...extra });

  it("answers Grafana's Save & test and an instant query of a value column", async () => {
    expect((await table().post('/query', 'query=1%2B1&time=4')).body).toEqual(
      success({ resultType: 'scalar', result: [4, '2'] }),
    );
    const got = await table().post('/query', `query=${encodeURIComponent('{"prom.cpu"}')}&time=200`);
    expect(got.body).toEqual(
      success({
        resultType: 'vector',
        result: [
          { metric: { __name__: 'prom.cpu', host: 'a' }, value: [200, '4'] },
          { metric: { __name__: 'prom.cpu', host: 'b' }, value: [200, '30'] },
        ],
      }),
    );
  });

  it('answers a POST form range query over the mapped metrics, skipping the text column with a warning', async () => {
    const query = encodeURIComponent('{__name__=~"prom\\\\..*", host="a"}');
    const got = await table().post('/query_range', `query=${query}&start=120&end=180&step=60`);
    expect(got.body).toEqual(
      success(
        {
          resultType: 'matrix',
          result: [
            {
              metric: { __name__: 'prom.cpu', host: 'a' },
              values: [
                [120, '2.5'],
                [180, '4'],
              ],
            },
            {
              metric: { __name__: 'prom.mem', host: 'a' },
              values: [
                [120, '7'],
                [180, '7'],
              ],
            },
          ],
        },
        { warnings: ['series of "prom.text" with text values were skipped: PromQL reads long and double values only'] },
      ),
    );
  });

  it('lists labels, label values and series as the metric browser asks', async () => {
    expect((await table().get('/labels?start=0&end=300')).body).toEqual(success(['__name__', 'host']));
    expect((await table().get('/label/host/values?start=0&end=300')).body).toEqual(success(['a', 'b']));
    expect((await table().get('/label/__name__/values')).body).toEqual(success(['prom.cpu', 'prom.mem', 'prom.text']));
    const match = `match%5B%5D=${encodeURIComponent('{"prom.cpu"}')}`;
    expect((await table().post('/series', `${match}&start=0&end=300`)).body).toEqual(
      success([
        { __name__: 'prom.cpu', host: 'a' },
        { __name__: 'prom.cpu', host: 'b' },
      ]),
    );
  });
});
