/**
 * Kairograph on a three-node Cassandra (127.0.0.1-3, NetworkTopologyStrategy RF 3, reads ONE and writes QUORUM as
 * KairosDB's defaults), driven over HTTP: a node crashes (kill -9) under a write loop and dashboard queries, two
 * nodes crash, the nodes come back, and two gateways share the cluster. The steps run in order on one cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { startCassandraCluster, type CassandraCluster } from '../support/cassandra-server.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { subscribe, type Subscription } from '../support/sse.js';
import { storeOptions } from '../../src/gateway/layer-options.js';

const KEYSPACE = 'kg_cluster';
const REPLICATION = "{'class': 'NetworkTopologyStrategy', 'datacenter1': 3}";
/** The gateway's deadline for a request: nothing may take longer, whatever a node does. */
const QUERY_TIMEOUT_MS = 8000;
/** Points of the write loop, one per second of data from here; old enough for the results cache to keep. */
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 6 * 3_600_000;

let cluster: CassandraCluster;
const opened: { gw: TestGateway; store: Store }[] = [];

beforeAll(async () => {
  cluster = await startCassandraCluster({ nodes: 3, heap: '512m' });
  console.log(`[cluster] 3 nodes on ${cluster.contactPoints.join(', ')}, all CQL-ready in ${cluster.bootMs} ms`);
});

afterAll(async () => {
  for (const { gw, store } of opened.splice(0)) {
    await gw.close();
    await store.close();
  }
  await cluster?.stop();
});

/** A gateway as gateway/start.ts builds one, from settings, on the cluster's keyspace. */
async function gateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const settings = {
    STORE: 'cassandra',
    CASSANDRA_CONTACT_POINTS: cluster.contactPoints.join(','),
    CASSANDRA_LOCAL_DC: cluster.localDataCenter,
    CASSANDRA_KEYSPACE: KEYSPACE,
    CASSANDRA_REPLICATION: REPLICATION,
    QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    ...env,
  };
  const store = await openStore(storeOptions(loadConfig(settings)));
  const gw = await startGateway(store, settings);
  opened.push({ gw, store });
  await waitFor('the gateway to connect', async () => (await ready(gw)).status === 200, 60_000);
  return gw;
}

interface Readiness {
  readonly status: number;
  readonly body: { status?: string; hosts?: { address: string; datacenter: string; up: boolean }[] };
}

async function ready(gw: TestGateway): Promise<Readiness> {
  const response = await fetch(`${gw.url}/ready`);
  const text = await response.text();
  return { status: response.status, body: response.status === 200 ? JSON.parse(text) : {} };
}

/** /ready's body with nodes `down` (1-based) down. */
function hostsWith(down: number[]): Readiness['body'] {
  const hosts = cluster.contactPoints.map((address, i) => ({
    address,
    datacenter: 'datacenter1',
    up: !down.includes(i + 1),
  }));
  return { status: down.length === 0 ? 'ready' : 'degraded', hosts };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function addPoints(metric: string, points: { host: string; epochMs: number; value: number }[]): string {
  const series = points.map(
    (p) =>
      `{ metric: "${metric}", tags: [{ name: "host", value: "${p.host}" }], type: LONG, points: [{ time: ${p.epochMs}, value: ${p.value} }] }`,
  );
  return `mutation { addPoints(series: [${series.join(', ')}]) { points } }`;
}

/** Every value of `metric` from T0 on, read through `gw`. */
async function valuesOf(gw: TestGateway, metric: string): Promise<number[]> {
  const response = await gw.graphql(
    `{ rawSeries(metric: "${metric}", from: ${T0}, to: ${T0 + 86_400_000}) { points { value } } }`,
  );
  expect(response.body.errors).toBeUndefined();
  const series = (response.body.data!['rawSeries'] as { points: { value: number }[] }[]) ?? [];
  return series.flatMap((s) => s.points.map((p) => p.value)).sort((a, b) => a - b);
}

interface Outcome {
  readonly ms: number;
  /** undefined when answered without errors. */
  readonly code: string | undefined;
  readonly message: string | undefined;
}

async function timed(
  send: () => Promise<{
    status: number;
    body: { errors?: { message: string; extensions?: Record<string, unknown> }[] };
  }>,
): Promise<Outcome> {
  const started = performance.now();
  const { status, body } = await send();
  const ms = performance.now() - started;
  const error = body.errors?.[0];
  if (error === undefined && status === 200) return { ms, code: undefined, message: undefined };
  return { ms, code: String(error?.extensions?.['code'] ?? `HTTP ${status}`), message: error?.message };
}

describe('one node down (kill -9) under writes and dashboard queries', () => {
  let gw: TestGateway;
  const acknowledged: number[] = [];

  it('loses no acknowledged write, keeps answering, stays ready and says which node is down, within the deadline', async () => {
    // No results cache: every dashboard query reads Cassandra, so every one of them meets the crash.
    gw = await gateway({ CACHE_MAX_BYTES: '0' });
    expect(await ready(gw)).toEqual({ status: 200, body: hostsWith([]) });

    const errors: Record<string, number> = {};
    const failedWrites: number[] = [];
    let answered = 0;
    let answeredWhileDown = 0;
    let acknowledgedWhileDown = 0;
    let longest = { ms: 0, what: '' };
    let down = false;
    let stop = false;
    const note = (what: string, outcome: Outcome): boolean => {
      if (outcome.ms > longest.ms) longest = { ms: Math.round(outcome.ms), what };
      if (outcome.code !== undefined) errors[outcome.code] = (errors[outcome.code] ?? 0) + 1;
      return outcome.code === undefined;
    };
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const outcome = await timed(() =>
          gw.graphql(addPoints('cluster.load', [{ host: `h${i % 4}`, epochMs: T0 + i * 1000, value: i }])),
        );
        if (note('a write', outcome)) {
          acknowledged.push(i);
          if (down) acknowledgedWhileDown++;
        } else failedWrites.push(i);
      }
    })();
    const dashboard = `{ series(metric: "cluster.load", from: ${T0}, to: ${T0 + 86_400_000}, groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { points { value } } }`;
    const reader = async () => {
      while (!stop) {
        if (note('a dashboard query', await timed(() => gw.graphql(dashboard)))) {
          answered++;
          if (down) answeredWhileDown++;
        }
      }
    };
    const readers = [reader(), reader()];

    await new Promise((resolve) => setTimeout(resolve, 3000));
    await cluster.kill(3);
    down = true;
    const noticedMs = await waitFor(
      '/ready to report node 3 down',
      async () => (await ready(gw)).body.status === 'degraded',
      5000,
    );
    expect(await ready(gw)).toEqual({ status: 200, body: hostsWith([3]) });
    await new Promise((resolve) => setTimeout(resolve, 8000));
    expect(await ready(gw)).toEqual({ status: 200, body: hostsWith([3]) });
    stop = true;
    await Promise.all([writer, ...readers]);

    const found = await valuesOf(gw, 'cluster.load');
    const foundAcknowledged = acknowledged.filter((i) => found.includes(i));
    console.log(
      `[cluster] node 3 killed: writes acknowledged ${acknowledged.length} (${acknowledgedWhileDown} while down), found afterwards ${foundAcknowledged.length}; ` +
        `queries answered ${answered} (${answeredWhileDown} while down); errors by code ${JSON.stringify(errors)}; ` +
        `longest request ${longest.ms} ms (${longest.what}); /ready said degraded ${noticedMs} ms after the kill`,
    );
    expect(foundAcknowledged).toEqual(acknowledged);
    // A write that failed was refused or timed out, never half-reported: what was found is what was acknowledged, or
    // a failed write Cassandra applied anyway (a timeout).
    expect(found.filter((i) => !acknowledged.includes(i)).every((i) => failedWrites.includes(i))).toBe(true);
    expect(acknowledgedWhileDown).toBeGreaterThan(10);
    expect(answeredWhileDown).toBeGreaterThan(10);
    expect(Object.keys(errors).filter((code) => code !== 'STORE_UNAVAILABLE')).toEqual([]);
    // Far under the deadline: no read waits on the dead replica (with SimpleSnitch one run took 7.7 s, tools/cassandra/README.md).
    expect(longest.ms).toBeLessThan(QUERY_TIMEOUT_MS / 2);
  });

  it('uses the node again once it is back, without a restart of the gateway', async () => {
    await cluster.restart();
    const backMs = await waitFor(
      '/ready to report every node up',
      async () => (await ready(gw)).body.status === 'ready',
      30_000,
    );
    console.log(`[cluster] node 3 restarted on its data; the gateway saw it up ${backMs} ms after it answered CQL`);
    expect(await ready(gw)).toEqual({ status: 200, body: hostsWith([]) });
  });

  describe('two nodes down', () => {
    const refused: number[] = [];
    const timedOut: number[] = [];
    let nextValue = 1_000_000;

    it('fails writes at once with STORE_UNAVAILABLE naming the consistency that cannot be met, and keeps reading from the node left', async () => {
      // Written with every node up: node 3, the one left, has it.
      const marker = nextValue++;
      expect(
        (await gw.graphql(addPoints('cluster.marker', [{ host: 'm', epochMs: T0, value: marker }]))).body.errors,
      ).toBeUndefined();
      await waitFor(
        'all three nodes to hold the marker',
        async () => (await valuesOf(await allGateway(), 'cluster.marker')).includes(marker),
        10_000,
      );

      await cluster.kill(1);
      await cluster.kill(2);
      await waitFor(
        '/ready to report nodes 1 and 2 down',
        async () =>
          (await ready(gw)).body.status === 'degraded' &&
          (await ready(gw)).body.hosts!.filter((h) => !h.up).length === 2,
        10_000,
      );
      expect(await ready(gw)).toEqual({ status: 200, body: hostsWith([1, 2]) });

      // Until node 3's gossip has convicted the other two (seconds after a kill -9), it still sends them the write and
      // waits out its write_request_timeout: a timeout, after which its own replica holds the write.
      const convictedMs = await waitFor(
        'a write refused as unavailable',
        async () => {
          const value = nextValue++;
          const outcome = await timed(() =>
            gw.graphql(addPoints('cluster.refused', [{ host: 'r', epochMs: T0 + value, value }])),
          );
          expect(outcome.code).toBe('STORE_UNAVAILABLE');
          expect(outcome.ms).toBeLessThan(QUERY_TIMEOUT_MS);
          if (/Not enough replicas/.test(outcome.message!)) refused.push(value);
          else {
            expect(outcome.message).toBe(
              'the cassandra store is unavailable: Server timeout during write query at consistency QUORUM (1 peer(s) acknowledged the write over 2 required)',
            );
            timedOut.push(value);
          }
          return refused.length > 0;
        },
        60_000,
      );

      const port = cluster.port;
      const expected = `the cassandra store is unavailable: Not enough replicas available for query at consistency QUORUM (2 required but only 1 alive) (said 127.0.0.3:${port})`;
      const value = nextValue++;
      const started = performance.now();
      const graphql = await gw.graphql(addPoints('cluster.refused', [{ host: 'r', epochMs: T0 + value, value }]));
      const graphqlMs = performance.now() - started;
      refused.push(value);
      expect(graphql.status).toBe(503);
      expect(graphql.body.errors).toEqual([
        {
          message: expected,
          path: ['addPoints'],
          locations: [{ line: 1, column: 12 }],
          extensions: { code: 'STORE_UNAVAILABLE' },
        },
      ]);
      const restValue = nextValue++;
      const rest = await fetch(`${gw.url}/api/v1/datapoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { name: 'cluster.refused', tags: { host: 'r' }, datapoints: [[T0 + restValue, restValue]] },
        ]),
      });
      refused.push(restValue);
      expect(rest.status).toBe(503);
      expect(await rest.json()).toEqual({ errors: [expected] });
      console.log(
        `[cluster] nodes 1 and 2 killed: ${timedOut.length} write(s) timed out before node 3 convicted them (${convictedMs} ms), ` +
          `then refused in ${Math.round(graphqlMs)} ms: ${expected}`,
      );
      expect(graphqlMs).toBeLessThan(1000);

      // Reads at ONE: node 3 answers alone.
      expect(await valuesOf(gw, 'cluster.marker')).toEqual([marker]);
    });

    it('after the nodes return: nothing of a refused write exists, a timed-out one may, and every replica agrees', async () => {
      await cluster.restart();
      await waitFor('/ready to report every node up', async () => (await ready(gw)).body.status === 'ready', 30_000);
      const atAll = await allGateway();
      await waitFor(
        'the ALL gateway to see every node up',
        async () => (await ready(atAll)).body.status === 'ready',
        30_000,
      );
      // ALL asks every replica: a value any of them holds is found.
      const everywhere = await valuesOf(await allGateway(), 'cluster.refused');
      console.log(
        `[cluster] after the return: refused ${JSON.stringify(refused)} -> found ${JSON.stringify(everywhere.filter((v) => refused.includes(v)))}; timed out ${JSON.stringify(timedOut)} -> found ${JSON.stringify(everywhere.filter((v) => timedOut.includes(v)))}`,
      );
      expect(everywhere.filter((v) => refused.includes(v))).toEqual([]);
      // A timed-out write is not rolled back: node 3 may have applied what it coordinated (its index rows, or all of it).
      expect(everywhere.filter((v) => !timedOut.includes(v))).toEqual([]);
      // And the write loop's acknowledged points are all still there, read at ALL.
      const all = await valuesOf(await allGateway(), 'cluster.load');
      expect(acknowledged.filter((i) => all.includes(i))).toEqual(acknowledged);
    });
  });
});

let all: TestGateway | undefined;
/** A gateway reading at ALL: an answer is every replica's, so it proves what a cluster holds (needs every node up). */
async function allGateway(): Promise<TestGateway> {
  all ??= await gateway({ CASSANDRA_READ_CONSISTENCY: 'ALL', CACHE_MAX_BYTES: '0' });
  return all;
}

describe('two gateways on one cluster', () => {
  it('reads through one what the other wrote, and sees its deletes within the documented bounds', async () => {
    const CACHE_TTL_MS = 8000;
    const LIVE_POLL_MS = 500;
    const settings = { CACHE_TTL_MS: String(CACHE_TTL_MS), LIVE_POLL_MS: String(LIVE_POLL_MS) };
    const a = await gateway(settings);
    const b = await gateway(settings);
    const points = Array.from({ length: 120 }, (_, i) => ({ host: `h${i % 2}`, epochMs: T0 + i * 10_000, value: i }));
    expect((await a.graphql(addPoints('shared.load', points))).body.errors).toBeUndefined();

    const sums = `{ series(metric: "shared.load", from: ${T0}, to: ${T0 + 3_600_000}, aggregators: [{ count: { sampling: { value: 10, unit: MINUTES } } }]) { points { value } } }`;
    const count = async (gw: TestGateway) =>
      ((await gw.graphql(sums)).body.data!['series'] as { points: { value: number }[] }[])
        .flatMap((s) => s.points.map((p) => p.value))
        .reduce((x, y) => x + y, 0);
    const writeSeenMs = await waitFor(
      'b to read what a wrote',
      async () => (await valuesOf(b, 'shared.load')).length === 120,
      2000,
    );
    // b's first aggregated answer puts its ranges in b's results cache, where they age from now.
    const cachedAt = performance.now();
    expect(await count(b)).toBe(120);
    // Now in b's results cache: the next answer comes from it.
    const cached = await b.graphql(sums);
    expect(
      (cached.extensions!['statistics'] as { queries: { cache: { hits: number } }[] }).queries[0]!.cache.hits,
    ).toBeGreaterThan(0);
    expect(await metricNames(b)).toContain('shared.load');

    const live: Subscription = await subscribe(
      b.url,
      `subscription { liveSeries(metric: "shared.load", from: ${T0}, to: ${T0 + 3_600_000}) { kind changes { from series { points { value } } } } }`,
    );
    expect((await live.next(10_000)).data).toMatchObject({ liveSeries: { kind: 'SNAPSHOT' } });

    // The first 30 of each series' points: a range delete, the series stay.
    const deleted = performance.now();
    const response = await a.graphql(
      `mutation { deletePoints(metric: "shared.load", from: ${T0}, to: ${T0 + 299_999}) { series } }`,
    );
    expect(response.body).toEqual({ data: { deletePoints: { series: 2 } } });

    // Nothing tells b. Raw points are read per request, so b sees the delete as soon as Cassandra has it.
    const rawMs = await waitFor(
      'b to read 90 raw points',
      async () => (await valuesOf(b, 'shared.load')).length === 90,
      2000,
    );
    // b's live subscription polls: its next run sees it, within LIVE_POLL_MS (raw points: nothing cached).
    const update = await live.next(LIVE_POLL_MS + 3000);
    const liveMs = performance.now() - deleted;
    live.close();
    expect(update.data).toMatchObject({ liveSeries: { kind: 'UPDATE' } });
    // b's cached ranges are stale until CACHE_TTL_MS after they were cached, then read again.
    expect(await count(b)).toBe(120);
    const cacheMs = await waitFor('b to count 90 points', async () => (await count(b)) === 90, CACHE_TTL_MS + 2000);
    const cachedFor = performance.now() - cachedAt;

    // A whole metric: its series and its name leave the index, which b reads per request, cache or not.
    const dropped = await fetch(`${a.url}/api/v1/metric/shared.load`, { method: 'DELETE' });
    expect(dropped.status).toBe(204);
    const namesMs = await waitFor(
      'b to list no such metric',
      async () => !(await metricNames(b)).includes('shared.load'),
      2000,
    );
    const goneMs = await waitFor('b to count nothing', async () => (await count(b)) === 0, 2000);
    console.log(
      `[cluster] two gateways: a write through a read through b after ${writeSeenMs} ms; after a's range delete b saw it in raw points after ${rawMs} ms, ` +
        `in its live subscription after ${Math.round(liveMs)} ms (LIVE_POLL_MS ${LIVE_POLL_MS}), in cached aggregates ${Math.round(cachedFor)} ms after caching them ` +
        `(CACHE_TTL_MS ${CACHE_TTL_MS}; ${cacheMs} ms after the delete was seen raw); after a's metric delete b saw no name after ${namesMs} ms and no series after ${goneMs} ms`,
    );
    expect(cachedFor).toBeLessThan(CACHE_TTL_MS + 2000);
    expect(liveMs).toBeLessThan(LIVE_POLL_MS + 2000);
  });
});

async function metricNames(gw: TestGateway): Promise<string[]> {
  return (await gw.graphql('{ metricNames }')).body.data!['metricNames'] as string[];
}
