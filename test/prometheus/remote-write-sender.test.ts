/**
 * A real Prometheus as the remote-write sender: it scrapes a target of this test and remote-writes what it scraped
 * into the gateway with docs/ingest.md's remote_write block, taken from the docs at run time: protocol 2.0 into one
 * source and, as the block's comment says, 1.0 into another. Every sample the gateway holds must be one Prometheus
 * holds, with the same labels, time and value, read through the gateway's query API and GraphQL; Prometheus must count
 * no failed or retried sample; when the target goes away, the staleness markers Prometheus sends are counted and left
 * out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { docsBlock, fill } from '../support/docs-config.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { type PrometheusServer, startPrometheus } from '../support/prometheus-server.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const EXPOSITION = [
  '# TYPE ingest_demo_gauge gauge',
  'ingest_demo_gauge{room="a b",kind="x"} 21.5',
  'ingest_demo_gauge{room="c",kind="y"} -0.125',
  '# TYPE ingest_demo_counter_total counter',
  'ingest_demo_counter_total 7',
  '',
].join('\n');
/** Prometheus writes with a token that may only write; the test reads with one that may read and scrape /metrics. */
const WRITER = 'prometheus-remote-write-token';
const READER = { authorization: 'Bearer test-reader-token' };
const METRICS = ['ingest_demo_gauge', 'ingest_demo_counter_total', 'up', 'scrape_duration_seconds'];

let store: EmbeddedStore;
let second: EmbeddedStore;
let gateway: TestGateway;
let target: Server;
let prometheus: PrometheusServer;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  second = await EmbeddedStore.open({ path: tempDir() });
  const credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [
        { name: 'prometheus', hash: tokenHash(WRITER), scopes: ['write'] },
        { name: 'test', hash: tokenHash('test-reader-token'), scopes: ['read', 'admin'] },
      ],
    }),
  );
  gateway = await startGateway(store, { CREDENTIALS_FILE: credentials }, { sources: { second } });
  target = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(EXPOSITION),
  );
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const config = join(tempDir(), 'prometheus.yml');
  writeFileSync(config, prometheusConfig(gateway.url, (target.address() as AddressInfo).port));
  prometheus = await startPrometheus({ configFile: config, reuse: '' });
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await new Promise((resolve) => target?.close(resolve));
  await gateway?.close();
  await store?.close();
  await second?.close();
  removeTempDirs();
});

/**
 * The scrape is the test's own (1 s, so the test is quick); the remote_write queues are docs/ingest.md's block as it
 * stands, with the gateway's URL and the writer's token put in: the docs' queue (protocol 2.0) into the primary
 * source, and the same queue as the docs' comment says for 1.0 (its `protobuf_message` line left out) into `second`.
 */
function prometheusConfig(gatewayUrl: string, targetPort: number): string {
  const block = fill(docsBlock('ingest.md', 'prometheus-remote-write'), {
    'http://kairograph:4000': gatewayUrl,
    '<a token with the write scope>': WRITER,
  });
  const v1 = block
    .split('\n')
    .filter((line) => !line.includes('protobuf_message') && !line.includes('# protocol 2.0'))
    .join('\n')
    .replace('/prometheus/kairosdb/', '/prometheus/second/');
  const queues = [block, v1].flatMap((text) => (parse(text) as { remote_write: unknown[] }).remote_write);
  return stringify({
    global: { scrape_interval: '1s' },
    scrape_configs: [{ job_name: 'ingest-target', static_configs: [{ targets: [`127.0.0.1:${targetPort}`] }] }],
    remote_write: queues,
  });
}

type Matrix = { metric: Record<string, string>; values: [number, string][] }[];

async function matrix(url: string, query: string, timeS: number): Promise<Matrix> {
  const headers = url.startsWith(gateway.url) ? READER : {};
  const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}&time=${timeS}`, { headers });
  const body = (await response.json()) as { status: string; data: { result: Matrix } };
  if (body.status !== 'success') throw new Error(`${url}: ${JSON.stringify(body)}`);
  return body.data.result.sort((a, b) => (JSON.stringify(a.metric) < JSON.stringify(b.metric) ? -1 : 1));
}

/** Prometheus's own samples of `metric`, each series cut to the times the gateway's copy reaches. */
function cutTo(oracle: Matrix, copy: Matrix): Matrix {
  return oracle.map((series) => {
    const mine = copy.find((s) => JSON.stringify(s.metric) === JSON.stringify(series.metric));
    const last = mine?.values.at(-1)?.[0] ?? Number.NEGATIVE_INFINITY;
    return { metric: series.metric, values: series.values.filter(([t]) => t <= last) };
  });
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The first line of `url`'s /metrics that starts with `prefix` and holds `label` too. */
async function metricLine(url: string, prefix: string, label = ''): Promise<string | undefined> {
  const headers = url === gateway.url ? READER : {};
  return (await (await fetch(`${url}/metrics`, { headers })).text())
    .split('\n')
    .find((line) => line.startsWith(prefix) && line.includes(label));
}

it('stores exactly what Prometheus scraped, through 1.0 and 2.0, readable by PromQL and GraphQL', async () => {
  const sources = { kairosdb: '', second: '' };
  const at = () => Date.now() / 1000;
  // Five scrapes in both copies.
  for (const source of Object.keys(sources))
    await until(
      `${source} holds 5 scrapes`,
      () => matrix(`${gateway.url}/prometheus/${source}`, 'ingest_demo_counter_total[10m]', at()),
      (m) => (m[0]?.values.length ?? 0) >= 5,
    );
  const now = at();
  for (const source of Object.keys(sources))
    for (const metric of METRICS) {
      const copy = await matrix(`${gateway.url}/prometheus/${source}`, `${metric}[10m]`, now);
      const oracle = await matrix(prometheus.url, `${metric}[10m]`, now);
      expect(copy.length, `${source} ${metric}`).toBe(oracle.length);
      expect(copy, `${source} ${metric}`).toEqual(cutTo(oracle, copy));
    }
  const gauge = (await matrix(prometheus.url, 'ingest_demo_gauge{room="a b"}[10m]', now))[0]!;
  const graphql = await gateway.graphql(
    `{ points(metric: "ingest_demo_gauge", from: 0, where: [{ tag: "room", eq: "a b" }], limit: 3) { tags { name values } points { epochMs value type } } }`,
    {},
    READER,
  );
  const instance = gauge.metric['instance']!;
  expect(graphql.body).toEqual({
    data: {
      points: [
        {
          tags: [
            { name: 'instance', values: [instance] },
            { name: 'job', values: ['ingest-target'] },
            { name: 'kind', values: ['x'] },
            { name: 'room', values: ['a b'] },
          ],
          points: gauge.values
            .slice(0, 3)
            .map(([t]) => ({ epochMs: Math.round(t * 1000), value: 21.5, type: 'DOUBLE' })),
        },
      ],
    },
  });
  // The sender saw every request succeed: nothing failed, nothing retried, for both protocols.
  // The docs' queues have no `name`, so Prometheus's metrics tell them apart by URL.
  for (const source of ['kairosdb', 'second']) {
    const queue = `url="${gateway.url}/prometheus/${source}/api/v1/write"`;
    for (const counter of ['samples_failed_total', 'samples_retried_total'])
      expect(
        await metricLine(prometheus.url, `prometheus_remote_storage_${counter}{`, queue),
        `${source} ${counter}`,
      ).toMatch(/ 0$/);
  }
});

it('leaves out the staleness markers Prometheus sends when the target goes away, and counts them', async () => {
  await new Promise((resolve) => target.close(resolve));
  target.closeAllConnections();
  // Three series of the target each go stale once, sent by both queues.
  const line = await until(
    'stale markers counted',
    () => metricLine(gateway.url, 'kairograph_ingest_rejected_total{protocol="remote_write",reason="stale_marker"}'),
    (l) => l !== undefined && Number(l.split(' ')[1]) >= 6,
  );
  expect(line).toBe('kairograph_ingest_rejected_total{protocol="remote_write",reason="stale_marker"} 6');
  // The scrapes that fail go on writing up = 0, through both protocols.
  for (const source of ['kairosdb', 'second'])
    await until(
      `${source}: up is 0`,
      () => matrix(`${gateway.url}/prometheus/${source}`, 'up[1m]', Date.now() / 1000),
      (m) => m.length === 1 && m[0]!.values.at(-1)?.[1] === '0',
    );
});
