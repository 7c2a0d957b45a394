/**
 * The ingest protocols into KairosDB's tables on the real Cassandra of the integration run: remote write 1.0 and 2.0
 * (Prometheus's messages, test/support/remote-write.ts) and InfluxDB's client library, read back exactly; a refused
 * request leaves nothing behind.
 */
import { InfluxDB, Point } from '@influxdata/influxdb-client';
import snappy from 'snappyjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { encodeWriteRequestV1, remoteWrite } from '../support/remote-write.js';
import { KeyspacePool } from './cassandra-stores.js';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const pool = new KeyspacePool('kg_ingest');
let store: CassandraStore;
let gateway: TestGateway;

beforeAll(async () => {
  store = await pool.store();
  gateway = await startGateway(store);
});

afterAll(async () => {
  await gateway?.close();
  await store?.close();
  await pool.shutdown();
});

async function promValues(query: string, timeS: number): Promise<unknown> {
  const response = await fetch(
    `${gateway.url}/prometheus/kairosdb/api/v1/query?query=${encodeURIComponent(query)}&time=${timeS}`,
  );
  return ((await response.json()) as { data: { result: unknown } }).data.result;
}

it('stores remote write 1.0 and 2.0 in Cassandra and reads it back exactly', async () => {
  const timestampsMs = Array.from({ length: 120 }, (_, i) => T0 + i * 15_000);
  for (const version of [1, 2] as const)
    await remoteWrite(
      `${gateway.url}/prometheus/kairosdb`,
      [
        {
          labels: { __name__: `cass_rw_v${version}`, job: 'node', instance: 'a:9100' },
          timestampsMs,
          values: timestampsMs.map((_, i) => i * 0.5),
        },
      ],
      { version, maxSamplesPerRequest: 50 },
    );
  for (const version of [1, 2])
    expect(await promValues(`cass_rw_v${version}[30m]`, (T0 + 119 * 15_000) / 1000)).toEqual([
      {
        metric: { __name__: `cass_rw_v${version}`, instance: 'a:9100', job: 'node' },
        values: timestampsMs.map((t, i) => [t / 1000, String(i * 0.5)]),
      },
    ]);
});

it("stores what InfluxDB's client writes in Cassandra, every type", async () => {
  const api = new InfluxDB({ url: gateway.url }).getWriteApi('o', 'kairosdb', 'ms', { maxRetries: 0 });
  api.writePoint(
    new Point('cass_lp')
      .tag('host', 'h 1')
      .floatField('f', 0.5)
      .intField('i', -7)
      .stringField('s', 'text')
      .booleanField('b', false)
      .timestamp(new Date(T0)),
  );
  await api.close();
  const read = async (metric: string) =>
    (
      await gateway.graphql(
        `{ points(metric: "${metric}", from: 0) { tag(name: "host") points { epochMs value long text type } } }`,
      )
    ).body;
  const one = (point: Record<string, unknown>) => ({
    data: { points: [{ tag: 'h 1', points: [{ epochMs: T0, value: null, long: null, text: null, ...point }] }] },
  });
  expect(await read('cass_lp.f')).toEqual(one({ value: 0.5, type: 'DOUBLE' }));
  expect(await read('cass_lp.i')).toEqual(one({ value: -7, long: -7, type: 'LONG' }));
  expect(await read('cass_lp.s')).toEqual(one({ text: 'text', type: 'STRING' }));
  expect(await read('cass_lp.b')).toEqual(one({ value: 0, long: 0, type: 'LONG' }));
});

it('leaves nothing of a refused remote write in Cassandra', async () => {
  const body = encodeWriteRequestV1([
    { labels: { __name__: 'cass_never', h: 'a' }, timestampsMs: [T0], values: [1] },
    { labels: { __name__: 'cass_never', h: 'b' }, timestampsMs: [9e15], values: [1] },
  ]);
  const response = await fetch(`${gateway.url}/prometheus/kairosdb/api/v1/write`, {
    method: 'POST',
    headers: { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' },
    body: Buffer.from(snappy.compress(body)),
  });
  expect([response.status, await response.text()]).toEqual([
    400,
    'timeseries[1].samples[0].timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 9000000000000000)\n',
  ]);
  expect((await gateway.graphql('{ metricNames(prefix: "cass_never") }')).body).toEqual({ data: { metricNames: [] } });
});
