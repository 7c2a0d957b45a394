/**
 * The dashboard benchmark against a real Cassandra: a Grafana-like request (4 aliases over one metric, 20 series ×
 * 1 day at 10 s, 1-minute averages) under 1, 8 and 32 concurrent clients; store calls and CQL statements per
 * request with the per-request loaders and the naive way (one request per alias); and a 10M-point aggregation
 * end to end over HTTP against a bare cassandra-driver scan of the same partitions in the same run (the floor).
 *
 *   npm run bench:dashboard [-- --requests 200 --seconds 60 --series 100 --points 100000 --runs 3]
 */
import cassandra from 'cassandra-driver';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createGateway, listen } from '../src/server/create-gateway.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { encodeRowKey } from '../src/store/format/index.js';
import type { SeriesWrite } from '../src/store/store.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { partitionsOf } from '../test/support/store-reads.js';
import { describeShape, METRIC as BIG_METRIC, START_MS, shapeFromArgs, writeBatches } from './dataset.js';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const REQUESTS = Number(args.get('requests') ?? 200);
const SECONDS = Number(args.get('seconds') ?? 60);
const RUNS = Number(args.get('runs') ?? 3);
const big = shapeFromArgs(args);
const DASH_METRIC = 'bench.dashboard.cpu';
const DASH_HOSTS = 20;
const DASH_POINTS = 8640;
const DASH_STEP = 10_000;
const KEYSPACE = 'bench_dashboard';

const dashEnd = START_MS + DASH_POINTS * DASH_STEP - 1;
const host = (h: number) => `host-${String(h).padStart(2, '0')}`;
const alias = (a: number) =>
  `a${a}: series(metric: "${DASH_METRIC}", from: ${START_MS}, to: ${dashEnd}, where: [{ tag: "host", in: [${[0, 1, 2, 3, 4].map((k) => `"${host(a * 5 + k)}"`).join(', ')}] }],
    groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") points { t: epochMs value } }`;
const DASHBOARD = `query Dashboard { ${[0, 1, 2, 3].map(alias).join('\n')} }`;

console.log(`command: npm run bench:dashboard -- --requests ${REQUESTS} --seconds ${SECONDS} --series ${big.series} --points ${big.points} --runs ${RUNS}`);
const node = await startCassandra();
console.log(`cassandra: booted in ${(node.bootMs / 1000).toFixed(1)} s on ${node.contactPoint}`);
const store = await CassandraStore.open({ contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, keyspace: KEYSPACE, writeConsistency: 'ONE' });
const plain = new cassandra.Client({ contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, protocolOptions: { maxVersion: 4 } });
await plain.connect();
const config = loadConfig({ SEED_DEMO: 'false', MAX_POINTS_READ: '1000000000', QUERY_TIMEOUT_MS: '600000' });
const gateway = createGateway({ store, config, log: pino({ level: 'silent' }) });
const server = await listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
server.server.on('clientError', (error) => console.log(`server socket error: ${error.message}`));

async function post(query: string): Promise<{ ms: number; body: { data?: unknown; errors?: unknown[]; extensions?: { statistics: { storeCalls: Record<string, number> } } } }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const body = (await response.json()) as Awaited<ReturnType<typeof post>>['body'];
  if (response.status !== 200 || body.errors) throw new Error(`request failed: ${response.status} ${JSON.stringify(body.errors)}`);
  return { ms: performance.now() - started, body };
}

try {
  // The dashboard dataset: 20 hosts × 1 day at 10 s.
  let t = performance.now();
  for (let h = 0; h < DASH_HOSTS; h++) {
    const timestamps = Array.from({ length: DASH_POINTS }, (_, i) => START_MS + i * DASH_STEP);
    const series: SeriesWrite = { metric: DASH_METRIC, tags: { host: host(h), dc: h < 10 ? 'eu' : 'us' }, type: 'double', ttlSeconds: 0, timestamps, values: timestamps.map((_, i) => 40 + 10 * Math.sin(i / 360 + h) + (i % 7)) };
    await store.write({ series: [series] });
  }
  const dashPoints = DASH_HOSTS * DASH_POINTS;
  console.log(`\ndashboard dataset: ${DASH_HOSTS} series × ${DASH_POINTS} points (1 day at 10 s, ${dashPoints.toLocaleString('en')} points) written in ${((performance.now() - t) / 1000).toFixed(1)} s = ${(dashPoints / ((performance.now() - t) / 1000) / 1000).toFixed(0)} k points/s`);
  console.log('request: 4 aliases over one metric, 5 hosts each, group by host, avg per minute (20 series × 1,440 points out)');

  // Store calls and CQL statements of one request, and of the same four queries sent one request each.
  await post(DASHBOARD);
  const before = store.statements;
  const one = await post(DASHBOARD);
  const cqlOne = statementDelta(before, store.statements);
  let naiveCalls = 0;
  const beforeNaive = store.statements;
  for (let a = 0; a < 4; a++) naiveCalls += (await post(`{ ${alias(a)} }`)).body.extensions!.statistics.storeCalls['total']!;
  const cqlNaive = statementDelta(beforeNaive, store.statements);
  const calls = one.body.extensions!.statistics.storeCalls;
  console.log(`\nstore calls per request with per-request loaders: ${JSON.stringify(calls)}`);
  console.log(`  CQL statements: ${JSON.stringify(cqlOne)}`);
  console.log(`store calls for the same 4 queries as 4 requests (naive): total ${naiveCalls}`);
  console.log(`  CQL statements: ${JSON.stringify(cqlNaive)}`);

  // Latency under concurrency, bounded by a request count and a time limit per level.
  console.log(`\nlatency (bounded: ${REQUESTS} requests or ${SECONDS} s per level, after 5 warm-up requests)`);
  for (let w = 0; w < 5; w++) await post(DASHBOARD);
  for (const clients of [1, 8, 32]) {
    const latencies: number[] = [];
    const deadline = performance.now() + SECONDS * 1000;
    let issued = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (issued < REQUESTS && performance.now() < deadline) {
          issued++;
          latencies.push((await post(DASHBOARD)).ms);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`  ${String(clients).padStart(2)} clients: ${latencies.length} requests, median ${median(latencies).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms, ${(latencies.length / seconds).toFixed(1)} requests/s`);
  }

  // 10M points end to end against the bare driver scan of the same partitions.
  t = performance.now();
  let written = 0;
  for (const batch of writeBatches(big, 50_000)) {
    await store.write({ series: batch });
    written += batch.reduce((n, s) => n + s.timestamps.length, 0);
  }
  const ingestSeconds = (performance.now() - t) / 1000;
  console.log(`\nbig dataset: ${describeShape(big)}, written in ${ingestSeconds.toFixed(1)} s = ${(written / ingestSeconds / 1000).toFixed(0)} k points/s`);
  const bigEnd = START_MS + big.points * big.stepMs - 1;
  const partitions = await partitionsOf(store, BIG_METRIC, START_MS, bigEnd);
  const select = `SELECT column1, value FROM ${KEYSPACE}.data_points WHERE key = ?`;
  const bare = async (): Promise<number> => {
    let rows = 0;
    let next = 0;
    // The same fetch size and number of requests in flight as the store's defaults.
    await Promise.all(
      Array.from({ length: config.cassandraConcurrency }, async () => {
        while (next < partitions.length) {
          const key = Buffer.from(encodeRowKey(partitions[next++]!));
          let pageState: string | undefined;
          do {
            const page = await plain.execute(select, [key], { prepare: true, fetchSize: config.cassandraFetchSize, ...(pageState ? { pageState } : {}) });
            rows += page.rows.length;
            pageState = page.pageState ?? undefined;
          } while (pageState);
        }
      }),
    );
    if (rows !== written) throw new Error(`the bare scan read ${rows} rows, ${written} were written`);
    return rows;
  };
  const aggregate = `{ series(metric: "${BIG_METRIC}", from: ${START_MS}, to: ${bigEnd}, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { sampleSize points { value } } }`;
  const bareMs: number[] = [];
  const endToEndMs: number[] = [];
  await bare();
  await post(aggregate);
  for (let r = 0; r < RUNS; r++) {
    let started = performance.now();
    await bare();
    bareMs.push(performance.now() - started);
    started = performance.now();
    const result = await post(aggregate);
    endToEndMs.push(performance.now() - started);
    const [group] = (result.body.data as { series: { sampleSize: number }[] }).series;
    if (group!.sampleSize !== written) throw new Error(`the aggregation read ${group!.sampleSize} points, ${written} were written`);
  }
  const ratio = median(endToEndMs) / median(bareMs);
  console.log(`${partitions.length} partitions, avg per minute over all series (one group), medians of ${RUNS} runs after one warm-up each:`);
  console.log(`  bare driver scan (fetch size ${config.cassandraFetchSize}, ${config.cassandraConcurrency} in flight): ${median(bareMs).toFixed(0)} ms = ${(written / median(bareMs) / 1000).toFixed(2)} M points/s  (runs ${bareMs.map((m) => m.toFixed(0)).join(', ')})`);
  console.log(`  end to end over HTTP (GraphQL → engine → store):          ${median(endToEndMs).toFixed(0)} ms = ${(written / median(endToEndMs) / 1000).toFixed(2)} M points/s  (runs ${endToEndMs.map((m) => m.toFixed(0)).join(', ')})`);
  console.log(`  end to end / bare scan: ${ratio.toFixed(2)} (target ≤ 1.3)`);
  console.log(`\npeak RSS of this process (gateway and benchmark): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  await server.close();
  await store.close();
  await plain.shutdown();
  await node.stop();
}

function statementDelta(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, count] of Object.entries(after)) if (count !== (before[name] ?? 0)) delta[name] = count - (before[name] ?? 0);
  return delta;
}
