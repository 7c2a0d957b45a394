/**
 * Remote write over HTTP into the gateway (embedded store), sent as Prometheus sends it (test/support/remote-write.ts):
 * 1.0 and 2.0 read back exactly through the Prometheus query API and GraphQL; each bad request answered with the
 * status a sender acts on and a message naming what is wrong, nothing of it written; /metrics counting both.
 */
import snappy from 'snappyjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_NAN } from '../../src/engine/promql/values.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, remoteWrite } from '../support/remote-write.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const STALE = STALE_NAN;

let store: EmbeddedStore;
let second: EmbeddedStore;
let gateway: TestGateway;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  second = await EmbeddedStore.open({ path: tempDir() });
  gateway = await startGateway(store, {}, { sources: { second } });
});

afterAll(async () => {
  await gateway?.close();
  await store?.close();
  await second?.close();
  removeTempDirs();
});

function post(path: string, body: Uint8Array | string, headers: Record<string, string>) {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: Buffer.from(body) });
}

const V1_HEADERS = {
  'content-encoding': 'snappy',
  'content-type': 'application/x-protobuf',
  'x-prometheus-remote-write-version': '0.1.0',
};
const V2_HEADERS = {
  'content-encoding': 'snappy',
  'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
  'x-prometheus-remote-write-version': '2.0.0',
};

async function answer(response: Response) {
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

async function promMatrix(source: string, query: string, time: number) {
  const response = await fetch(
    `${gateway.url}/prometheus/${source}/api/v1/query?query=${encodeURIComponent(query)}&time=${time / 1000}`,
  );
  return (await response.json()) as { status: string; data: { result: unknown[] } };
}

describe('remote write 1.0 and 2.0', () => {
  it('stores what each version sends and reads it back exactly through the query API and GraphQL', async () => {
    const summary = await remoteWrite(`${gateway.url}/prometheus/kairosdb`, [
      {
        labels: { __name__: 'rw_v1_gauge', job: 'node', instance: 'a:9100' },
        timestampsMs: [T0, T0 + 15_000, T0 + 30_000],
        values: [0.25, -3.75, 42],
      },
    ]);
    expect(summary).toEqual({ requests: 1, samples: 3 });
    // The 2.0 sender checks the written count itself; the staleness marker counts as written, but is not stored.
    await remoteWrite(
      `${gateway.url}/prometheus/second`,
      [
        {
          labels: { __name__: 'rw_v2_counter_total', job: 'node', 'odd.label': 'x y' },
          timestampsMs: [T0, T0 + 15_000, T0 + 30_000],
          values: [1, 2.5, STALE],
        },
      ],
      { version: 2 },
    );

    expect((await promMatrix('kairosdb', 'rw_v1_gauge[1m]', T0 + 30_000)).data.result).toEqual([
      {
        metric: { __name__: 'rw_v1_gauge', instance: 'a:9100', job: 'node' },
        values: [
          [T0 / 1000, '0.25'],
          [T0 / 1000 + 15, '-3.75'],
          [T0 / 1000 + 30, '42'],
        ],
      },
    ]);
    expect((await promMatrix('second', 'rw_v2_counter_total[1m]', T0 + 30_000)).data.result).toEqual([
      {
        metric: { __name__: 'rw_v2_counter_total', job: 'node', 'odd.label': 'x y' },
        values: [
          [T0 / 1000, '1'],
          [T0 / 1000 + 15, '2.5'],
        ],
      },
    ]);
    const rest = await fetch(`${gateway.url}/api/v1/datapoints/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ start_absolute: T0, metrics: [{ name: 'rw_v1_gauge' }] }),
    });
    expect(await rest.json()).toEqual({
      queries: [
        {
          sample_size: 3,
          results: [
            {
              name: 'rw_v1_gauge',
              group_by: [{ name: 'type', type: 'number' }],
              tags: { instance: ['a:9100'], job: ['node'] },
              values: [
                [T0, 0.25],
                [T0 + 15_000, -3.75],
                [T0 + 30_000, 42],
              ],
            },
          ],
        },
      ],
    });
    const graphql = await gateway.graphql(
      `{ points(metric: "rw_v1_gauge", from: ${T0}) { tag(name: "instance") points { epochMs value type } } }`,
    );
    expect(graphql.body).toEqual({
      data: {
        points: [
          {
            tag: 'a:9100',
            points: [
              { epochMs: T0, value: 0.25, type: 'DOUBLE' },
              { epochMs: T0 + 15_000, value: -3.75, type: 'DOUBLE' },
              { epochMs: T0 + 30_000, value: 42, type: 'DOUBLE' },
            ],
          },
        ],
      },
    });
  });

  it('answers 2.0 with the written counts and 1.0 without them, both 204', async () => {
    const series = [{ labels: { __name__: 'rw_counts', h: 'a' }, timestampsMs: [T0, T0 + 1], values: [1, Infinity] }];
    const v2 = await post(
      '/prometheus/kairosdb/api/v1/write',
      snappy.compress(encodeWriteRequestV2(series)),
      V2_HEADERS,
    );
    expect([v2.status, v2.headers.get('x-prometheus-remote-write-samples-written')]).toEqual([204, '2']);
    expect(v2.headers.get('x-prometheus-remote-write-histograms-written')).toBe('0');
    expect(v2.headers.get('x-prometheus-remote-write-exemplars-written')).toBe('0');
    const v1 = await post(
      '/prometheus/kairosdb/api/v1/write',
      snappy.compress(encodeWriteRequestV1(series)),
      V1_HEADERS,
    );
    expect([v1.status, v1.headers.get('x-prometheus-remote-write-samples-written')]).toEqual([204, null]);
  });
});

describe('bad requests', () => {
  const good = { labels: { __name__: 'rw_never', h: 'a' }, timestampsMs: [T0], values: [1] };

  it('refuses bad snappy, bad protobuf and invalid series with 400 naming the fault, writing nothing', async () => {
    const block = Buffer.from(snappy.compress(encodeWriteRequestV1([good, good])));
    const cases: [Uint8Array, string][] = [
      [block.subarray(0, block.length - 4), 'snappy: the body is truncated inside the element at byte 41\n'],
      [
        snappy.compress(Buffer.from('0a05ffff', 'hex')),
        'protobuf: timeseries[0] declares 5 bytes, past the end of its enclosing message by 3\n',
      ],
      [
        snappy.compress(
          encodeWriteRequestV1([good, { labels: { __name__: 'rw_never', h: 'b' }, timestampsMs: [9e15], values: [1] }]),
        ),
        'timeseries[1].samples[0].timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 9000000000000000)\n',
      ],
    ];
    for (const [body, message] of cases)
      expect(await answer(await post('/prometheus/kairosdb/api/v1/write', body, V1_HEADERS))).toEqual({
        status: 400,
        type: 'text/plain; charset=utf-8',
        body: message,
      });
    expect((await promMatrix('kairosdb', 'rw_never[1h]', T0)).data.result).toEqual([]);
  });

  it('answers 415 for a message, type or encoding remote write does not send', async () => {
    const body = snappy.compress(encodeWriteRequestV1([good]));
    const refused = async (headers: Record<string, string>) =>
      answer(await post('/prometheus/kairosdb/api/v1/write', body, headers));
    expect(
      await refused({ ...V1_HEADERS, 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v3.Request' }),
    ).toEqual({
      status: 415,
      type: 'text/plain; charset=utf-8',
      body: 'proto=io.prometheus.write.v3.Request is not supported: this receiver takes prometheus.WriteRequest and io.prometheus.write.v2.Request\n',
    });
    expect((await refused({ ...V1_HEADERS, 'content-type': 'application/json' })).body).toBe(
      'Content-Type application/json is not supported: remote write sends application/x-protobuf\n',
    );
    expect(await refused({ ...V1_HEADERS, 'content-encoding': 'gzip' })).toEqual({
      status: 415,
      type: 'text/plain; charset=utf-8',
      body: 'Content-Encoding gzip is not supported: remote write bodies are snappy-compressed (Content-Encoding: snappy)\n',
    });
  });

  it('answers 404 for a source that is none, 405 for another method and 413 for a body that inflates too far', async () => {
    const body = snappy.compress(encodeWriteRequestV1([good]));
    expect(await answer(await post('/prometheus/nowhere/api/v1/write', body, V1_HEADERS))).toEqual({
      status: 404,
      type: 'text/plain; charset=utf-8',
      body: 'no source is named "nowhere": remote write goes to /prometheus/<source>/api/v1/write, one of kairosdb, second\n',
    });
    const get = await fetch(`${gateway.url}/prometheus/kairosdb/api/v1/write`);
    expect([get.status, get.headers.get('allow'), await get.text()]).toEqual([
      405,
      'POST',
      'GET is not allowed on /prometheus/{source}/api/v1/write (POST)\n',
    ]);
    // A preamble declaring 64 MiB, over REST_MAX_BODY_BYTES (16 MiB).
    expect(
      await answer(await post('/prometheus/kairosdb/api/v1/write', Buffer.from([0x80, 0x80, 0x80, 0x20]), V1_HEADERS)),
    ).toEqual({
      status: 413,
      type: 'text/plain; charset=utf-8',
      body: 'snappy: the body declares 67108864 bytes uncompressed, over the limit of 16777216 (REST_MAX_BODY_BYTES)\n',
    });
  });
});

it('counts points written and samples left out per protocol on /metrics', async () => {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const line = (name: string) => text.split('\n').find((l) => l.startsWith(name));
  // Written: 3 + 2 (the first test), 1 + 1 (the counts test). Left out: 1 stale marker, 2 infinities.
  expect(line('kairograph_ingest_points_written_total{protocol="remote_write"}')).toBe(
    'kairograph_ingest_points_written_total{protocol="remote_write"} 7',
  );
  expect(line('kairograph_ingest_rejected_total{protocol="remote_write",reason="stale_marker"}')).toBe(
    'kairograph_ingest_rejected_total{protocol="remote_write",reason="stale_marker"} 1',
  );
  expect(line('kairograph_ingest_rejected_total{protocol="remote_write",reason="infinite"}')).toBe(
    'kairograph_ingest_rejected_total{protocol="remote_write",reason="infinite"} 2',
  );
  expect(line('kairograph_ingest_rejected_total{protocol="remote_write",reason="invalid"}')).toBe(
    'kairograph_ingest_rejected_total{protocol="remote_write",reason="invalid"} 2',
  );
  expect(line('kairograph_ingest_rejected_total{protocol="remote_write",reason="undecodable"}')).toBe(
    'kairograph_ingest_rejected_total{protocol="remote_write",reason="undecodable"} 2',
  );
  expect(text).toContain(
    'kairograph_http_requests_total{api="ingest",route="/prometheus/{source}/api/v1/write",method="POST",status="204",source="kairosdb"}',
  );
});
