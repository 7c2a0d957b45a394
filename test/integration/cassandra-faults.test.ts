/**
 * Faults between the gateway and Cassandra, through a TCP proxy in front of the test node: the gateway starts while
 * Cassandra is unreachable, answers 503 on /ready and STORE_UNAVAILABLE on queries within a bounded time, recovers
 * by itself when Cassandra is back, fails requests Cassandra does not answer, and a query past QUERY_TIMEOUT_MS fails
 * with QUERY_TIMEOUT and leaves no request to Cassandra behind.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { emptyKeyspace, plainClient, storeOptions, testNode, waitFor } from './cassandra-stores.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { storeOptions as gatewayStoreOptions } from '../../src/gateway/layer-options.js';

const KEYSPACE = 'kg_faults';
const T0 = 1_714_557_600_000;
const WRITE = `mutation { addPoints(series: [{ metric: "up", tags: [{ name: "host", value: "a" }], type: LONG, points: [{ time: ${T0}, value: 1 }] }]) { points } }`;
const READ = `{ points(metric: "up", from: ${T0 - 1000}, to: ${T0 + 1000}) { points { epochMs value } } }`;

let cql: cassandra.Client;
const opened: { gw?: TestGateway; store?: Store; proxy?: TcpProxy }[] = [];

beforeAll(async () => {
  cql = await plainClient();
  // The keyspace must exist before a store reaches it through a proxy that may be down.
  await (await CassandraStore.open(storeOptions(KEYSPACE))).close();
});
afterEach(async () => {
  for (const { gw, store, proxy } of opened.splice(0)) {
    await gw?.close();
    await store?.close();
    await proxy?.close();
  }
});
afterAll(async () => {
  await cql?.shutdown();
});

async function ready(gw: TestGateway): Promise<number> {
  return (await fetch(`${gw.url}/ready`)).status;
}

/** The gateway as gateway/start.ts builds it: configuration from the environment, then openStore. */
async function gatewayThrough(
  proxy: TcpProxy,
  env: Record<string, string> = {},
): Promise<{ gw: TestGateway; store: Store }> {
  const node = testNode();
  const settings = {
    STORE: 'cassandra',
    CASSANDRA_CONTACT_POINTS: `127.0.0.1:${proxy.port}`,
    CASSANDRA_LOCAL_DC: node.localDataCenter,
    CASSANDRA_KEYSPACE: KEYSPACE,
    CASSANDRA_WRITE_CONSISTENCY: 'ONE',
    ...env,
  };
  const store = await openStore(gatewayStoreOptions(loadConfig(settings)));
  const gw = await startGateway(store, settings);
  opened.push({ gw, store, proxy });
  return { gw, store };
}

function target(): { host: string; port: number } {
  const [host, port] = testNode().contactPoint.split(':');
  return { host: host!, port: Number(port) };
}

describe('Cassandra unreachable, then back', () => {
  it('starts without Cassandra, answers 503 and STORE_UNAVAILABLE at once, and recovers by itself', async () => {
    await emptyKeyspace(cql, KEYSPACE);
    const proxy = await startTcpProxy(target(), { startDown: true });
    const started = performance.now();
    const { gw, store } = await gatewayThrough(proxy);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await ready(gw)).toBe(503);

    const asked = performance.now();
    const failed = await gw.graphql(READ);
    expect(performance.now() - asked).toBeLessThan(3000);
    expect(failed.status).toBe(503);
    expect(failed.body.errors).toEqual([
      {
        message: `the cassandra store is unavailable: no Cassandra host answered (127.0.0.1:${proxy.port}: connect ECONNREFUSED 127.0.0.1:${proxy.port})`,
        path: ['points'],
        locations: [{ line: 1, column: 3 }],
        extensions: { code: 'STORE_UNAVAILABLE' },
      },
    ]);

    await proxy.up();
    // Nobody asks meanwhile: the store's background attempts (every second) find Cassandra on their own, and
    // reading the spec is the last step of connecting.
    const cassandraStore = store as CassandraStore;
    expect(cassandraStore.statements['spec.select']).toBeUndefined();
    await waitFor('a background connection', () => cassandraStore.statements['spec.select'] === 2, 15_000);
    expect(await ready(gw)).toBe(200);
    // The driver's view of the nodes, here the one behind the proxy (test/cluster/ has a node down among three).
    const readiness = await fetch(`${gw.url}/ready`);
    expect(readiness.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await readiness.json()).toEqual({
      status: 'ready',
      hosts: [{ address: `127.0.0.1:${proxy.port}`, datacenter: testNode().localDataCenter, up: true }],
    });
    expect((await gw.graphql(WRITE)).body).toEqual({ data: { addPoints: { points: 1 } } });
    expect((await gw.graphql(READ)).body).toEqual({ data: { points: [{ points: [{ epochMs: T0, value: 1 }] }] } });
  });

  it('answers STORE_UNAVAILABLE while a connected Cassandra is gone and serves again when it is back', async () => {
    await emptyKeyspace(cql, KEYSPACE);
    const proxy = await startTcpProxy(target());
    const { gw } = await gatewayThrough(proxy);
    await waitFor('first connection', async () => (await ready(gw)) === 200, 15_000);
    expect((await gw.graphql(WRITE)).body).toEqual({ data: { addPoints: { points: 1 } } });

    await proxy.down();
    const asked = performance.now();
    const failed = await gw.graphql(READ);
    expect(performance.now() - asked).toBeLessThan(3000);
    expect(failed.status).toBe(503);
    expect(failed.body.errors![0]!.extensions).toEqual({ code: 'STORE_UNAVAILABLE' });
    expect(failed.body.errors![0]!.message).toMatch(/^the cassandra store is unavailable: /);
    expect(await ready(gw)).toBe(503);

    await proxy.up();
    await waitFor('readiness after Cassandra came back', async () => (await ready(gw)) === 200, 20_000);
    await waitFor(
      'a query answered after Cassandra came back',
      async () => (await gw.graphql(READ)).status === 200,
      20_000,
    );
    expect((await gw.graphql(READ)).body).toEqual({ data: { points: [{ points: [{ epochMs: T0, value: 1 }] }] } });
  });

  it('fails a request Cassandra does not answer after CASSANDRA_REQUEST_TIMEOUT_MS, then serves again', async () => {
    await emptyKeyspace(cql, KEYSPACE);
    const proxy = await startTcpProxy(target());
    const { gw } = await gatewayThrough(proxy, { CASSANDRA_REQUEST_TIMEOUT_MS: '1000' });
    await waitFor('first connection', async () => (await ready(gw)) === 200, 15_000);
    expect((await gw.graphql(WRITE)).body).toEqual({ data: { addPoints: { points: 1 } } });

    proxy.stall();
    const asked = performance.now();
    const failed = await gw.graphql(READ);
    const waited = performance.now() - asked;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(4000);
    expect(failed.body.errors![0]!.extensions).toEqual({ code: 'STORE_UNAVAILABLE' });
    expect(failed.body.errors![0]!.message).toBe(
      `the cassandra store is unavailable: no Cassandra host answered (127.0.0.1:${proxy.port}: The host 127.0.0.1:${proxy.port} did not reply before timeout 1000 ms)`,
    );

    await proxy.up();
    await waitFor('a query answered after the stall', async () => (await gw.graphql(READ)).status === 200, 20_000);
    expect((await gw.graphql(READ)).body).toEqual({ data: { points: [{ points: [{ epochMs: T0, value: 1 }] }] } });
  });
});

describe('a query past QUERY_TIMEOUT_MS', () => {
  it('fails with QUERY_TIMEOUT and leaves no request to Cassandra in flight', async () => {
    await emptyKeyspace(cql, KEYSPACE);
    // Small pages make a query of 100,000 points a thousand requests: far more than 300 ms of work.
    const store = await CassandraStore.open(storeOptions(KEYSPACE, { fetchSize: 100 }));
    const gw = await startGateway(store, { QUERY_TIMEOUT_MS: '300' });
    opened.push({ gw, store });
    const timestamps = Array.from({ length: 10_000 }, (_, i) => T0 + i);
    await store.write({
      series: Array.from({ length: 10 }, (_, s) => ({
        metric: 'big',
        tags: { host: `h${s}` },
        type: 'long' as const,
        ttlSeconds: 0,
        timestamps,
        values: timestamps.map((t) => t - T0),
      })),
    });

    const asked = performance.now();
    const response = await gw.graphql(
      `{ points(metric: "big", from: ${T0}, to: ${T0 + 10_000}) { points { epochMs } } }`,
    );
    expect(performance.now() - asked).toBeLessThan(2000);
    expect(response.status).toBe(504);
    expect(response.body.errors![0]!.extensions).toEqual({ code: 'QUERY_TIMEOUT' });
    expect(response.body.errors![0]!.message).toBe('query exceeded its time limit of 300 ms');

    // A page already sent runs to its end (the driver cannot cancel it); nothing is sent after it.
    await waitFor('no request in flight', () => store.inFlight === 0, 2000);
    const pages = store.statements['data_points.select']!;
    expect(pages).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(store.statements['data_points.select']).toBe(pages);
    expect(store.inFlight).toBe(0);
  });
});
