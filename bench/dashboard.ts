/**
 * The dashboard benchmarks. First, Grafana refreshes, on the embedded store and on a real Cassandra: N viewers each
 * refresh a dashboard of 4 panels (one request each, 5 hosts per panel, grouped by host) over now-6h with 1-minute
 * averages every 10 s for 60 s, while a collector writes every host's next point through the gateway every 10 s;
 * p50/p99 latency per refresh (all 4 panels answered) and per panel, points read per refresh (cold and warm) and the
 * results cache's hit ratio, with the cache and then without it in the same run. Then, on Cassandra and without the
 * cache (they measure reads): store calls of one 4-alias request against 4 requests, latency of a fixed request under
 * 1, 8 and 32 clients, and a 10M-point aggregation end to end against a bare cassandra-driver scan (the floor).
 * On the embedded store, tracing on against off (bench/tracing-cost.ts).
 *
 *   npm run bench:dashboard [-- --stores embedded,cassandra --viewers 32 --seconds 60 --refresh-only
 *                              --requests 200 --series 100 --points 100000 --runs 3 --cassandra-pid <JVM of a reused node>]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import cassandra from 'cassandra-driver';
import { pino } from 'pino';
import { loadConfig, type Config } from '../src/gateway/config.js';
import { createGateway, listen, type ListeningGateway } from '../src/gateway/create-gateway.js';
import { primaryOnly } from '../src/sources/open-sources.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import { encodeRowKey } from '../src/store/format/index.js';
import type { SeriesWrite } from '../src/model/write-batch.js';
import type { Store } from '../src/store/store.js';
import { startCassandra, type CassandraServer } from '../test/support/cassandra-server.js';
import { partitionsOf } from '../test/support/store-reads.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { describeShape, METRIC as BIG_METRIC, START_MS, shapeFromArgs, writeBatches } from './dataset.js';
import { median, parseArgs, percentile } from './measure.js';
import { tracingCost } from './tracing-cost.js';

const args = parseArgs(process.argv.slice(2));
const STORES = (args.get('stores') ?? 'embedded,cassandra').split(',').filter((s) => s !== '');
const VIEWERS = Number(args.get('viewers') ?? 32);
const SECONDS = Number(args.get('seconds') ?? 60);
const REFRESH_ONLY = args.has('refresh-only');
const REQUESTS = Number(args.get('requests') ?? 200);
const RUNS = Number(args.get('runs') ?? 3);
const big = shapeFromArgs(args);
/** The JVM of a Cassandra the benchmark reuses (KAIROGRAPH_CASSANDRA), whose CPU it reports; one it boots it knows. */
let cassandraPid = Number(args.get('cassandra-pid') ?? 0);

console.log(
  `load average (1, 5, 15 min) at the start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
console.log(
  `command: npm run bench:dashboard -- --stores ${STORES.join(',')} --viewers ${VIEWERS} --seconds ${SECONDS}${REFRESH_ONLY ? ' --refresh-only' : ` --requests ${REQUESTS} --series ${big.series} --points ${big.points} --runs ${RUNS}`}`,
);

// ------------------------------------------------------------------------------------------------------------------
// Grafana refreshes

const LIVE_METRIC = 'bench.refresh.cpu';
const HOSTS = 20;
const STEP_MS = 10_000;
const WINDOW_MS = 6 * 3_600_000;
const REFRESH_MS = 10_000;
const TARGET_P99_MS: Record<string, number> = { embedded: 100, cassandra: 300 };
const host = (h: number) => `host-${String(h).padStart(2, '0')}`;

/** One panel's request, as the Wild GraphQL data source sends it after Grafana resolved the time range. */
const panel = (p: number, fromMs: number, toMs: number) =>
  `query Panel${p} { cpu: series(metric: "${LIVE_METRIC}", from: ${fromMs}, to: ${toMs}, where: [{ tag: "host", in: [${[0, 1, 2, 3, 4].map((k) => `"${host(p * 5 + k)}"`).join(', ')}] }],
     groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") points { t: epochMs value } } }`;

interface QueryStatistics {
  readonly pointsRead: number;
  readonly cache: { readonly hits: number; readonly misses: number; readonly cachedPoints: number };
  readonly ms: { readonly total: number };
}

interface Refresh {
  readonly ms: number;
  readonly panelMs: readonly number[];
  readonly pointsRead: number;
  readonly hits: number;
  readonly misses: number;
  /** The gateway's own time in the engine for the 4 queries (statistics), without HTTP, GraphQL and the clients. */
  readonly engineMs: number;
}

async function postGraphQL(url: string, query: string): Promise<{ ms: number; statistics: QueryStatistics }> {
  const started = performance.now();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as {
    errors?: unknown[];
    extensions: { statistics: { queries: QueryStatistics[] } };
  };
  if (response.status !== 200 || body.errors)
    throw new Error(`request failed: ${response.status} ${JSON.stringify(body.errors)}`);
  return { ms: performance.now() - started, statistics: body.extensions.statistics.queries[0]! };
}

/** All four panels of one viewer's refresh, sent together as Grafana sends them. */
async function refresh(url: string): Promise<Refresh> {
  const toMs = Date.now();
  const fromMs = toMs - WINDOW_MS;
  const started = performance.now();
  const panels = await Promise.all([0, 1, 2, 3].map((p) => postGraphQL(url, panel(p, fromMs, toMs))));
  return {
    ms: performance.now() - started,
    panelMs: panels.map((p) => p.ms),
    pointsRead: panels.reduce((n, p) => n + p.statistics.pointsRead, 0),
    hits: panels.reduce((n, p) => n + p.statistics.cache.hits, 0),
    misses: panels.reduce((n, p) => n + p.statistics.cache.misses, 0),
    engineMs: panels.reduce((n, p) => n + p.statistics.ms.total, 0),
  };
}

async function startGateway(store: Store, env: Record<string, string>): Promise<ListeningGateway> {
  const config = loadConfig({ SEED_DEMO: 'false', QUERY_TIMEOUT_MS: '600000', ...env });
  const gateway = createGateway({
    sources: primaryOnly(config.primarySourceName, store),
    config,
    log: pino({ level: 'silent' }),
  });
  return listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
}

/** Seven hours of every host up to now, so that now-6h finds whole minutes from its first one on. */
async function seedLive(store: Store): Promise<number> {
  const end = Math.floor(Date.now() / STEP_MS) * STEP_MS;
  const count = (7 * 3_600_000) / STEP_MS;
  for (let h = 0; h < HOSTS; h++) {
    const timestamps = Array.from({ length: count }, (_, i) => end - (count - 1 - i) * STEP_MS);
    const series: SeriesWrite = {
      metric: LIVE_METRIC,
      tags: { host: host(h) },
      type: 'double',
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((t) => 40 + 10 * Math.sin(t / 3.6e6 + h) + ((t / STEP_MS) % 7)),
    };
    await store.write({ series: [series] });
  }
  return HOSTS * count;
}

/** The collector: every 10 s, each host's point for now, through the gateway's REST API as collectors post them. */
function startFeed(urlOf: () => string): () => Promise<void> {
  let stopped = false;
  let pending: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    const t = Date.now();
    const body = Array.from({ length: HOSTS }, (_, h) => ({
      name: LIVE_METRIC,
      tags: { host: host(h) },
      datapoints: [[t, 40 + (t % 17)]],
    }));
    pending = fetch(`${urlOf()}/api/v1/datapoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => {
      if (r.status !== 204) throw new Error(`the feed's write failed: ${r.status} ${await r.text()}`);
    });
  };
  const timer = setInterval(tick, REFRESH_MS);
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await pending;
  };
}

/** N viewers, their first refreshes spread over the first 10 s, each refreshing every 10 s until `seconds` passed. */
/** CPU time (ms) a process has used, from /proc; undefined where there is none. */
function processCpuMs(pid: number): number | undefined {
  try {
    // Fields 14 and 15 (utime, stime) in clock ticks, counted after the command's closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function viewers(
  url: string,
): Promise<{ refreshes: Refresh[]; skipped: number; seconds: number; cpuMs: number; storeCpuMs: number | undefined }> {
  const refreshes: Refresh[] = [];
  let skipped = 0;
  const cpu = process.cpuUsage();
  const storeCpu = cassandraPid > 0 ? processCpuMs(cassandraPid) : undefined;
  const started = performance.now();
  const end = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: VIEWERS }, async (_, v) => {
      let next = started + (v * REFRESH_MS) / VIEWERS;
      while (next < end) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
        refreshes.push(await refresh(url));
        next += REFRESH_MS;
        // Grafana does not stack refreshes of one dashboard: a tick that passed while one ran is skipped.
        while (next < performance.now()) {
          next += REFRESH_MS;
          skipped++;
        }
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const storeCpuAfter = cassandraPid > 0 ? processCpuMs(cassandraPid) : undefined;
  const storeCpuMs = storeCpu !== undefined && storeCpuAfter !== undefined ? storeCpuAfter - storeCpu : undefined;
  return {
    refreshes,
    skipped,
    seconds: (performance.now() - started) / 1000,
    cpuMs: (used.user + used.system) / 1000,
    storeCpuMs,
  };
}

async function refreshBenchmark(storeName: string, store: Store): Promise<void> {
  const t = performance.now();
  const seeded = await seedLive(store);
  console.log(`\n## Grafana refreshes, ${storeName} store`);
  console.log(
    `dataset: ${HOSTS} hosts × 7 h at 10 s (${seeded.toLocaleString('en')} points) written in ${((performance.now() - t) / 1000).toFixed(1)} s, then each host's next point every 10 s through REST`,
  );
  console.log(
    `dashboard: 4 panels (requests) × 5 hosts, now-6h, 1-minute averages grouped by host; ${VIEWERS} viewers refreshing every 10 s for ${SECONDS} s, first refreshes spread over 10 s, after 20 unmeasured refreshes on each path`,
  );
  // Both paths once through the JIT on a throwaway gateway each, so that the first measured run does not pay for it.
  for (const env of [{}, { CACHE_MAX_BYTES: '0' }] as Record<string, string>[]) {
    const server = await startGateway(store, env);
    for (let i = 0; i < 20; i++) await refresh(server.url);
    server.server.closeAllConnections();
    await server.close();
  }
  const results: [string, Awaited<ReturnType<typeof viewers>>, number][] = [];
  for (const [label, env] of [
    ['with the results cache', {}],
    ['without the results cache', { CACHE_MAX_BYTES: '0' }],
  ] as const) {
    const server = await startGateway(store, env);
    const stopFeed = startFeed(() => server.url);
    try {
      // One refresh on the fresh gateway: what a cold refresh reads.
      const cold = await refresh(server.url);
      const run = await viewers(server.url);
      results.push([label, run, cold.pointsRead]);
    } finally {
      await stopFeed();
      server.server.closeAllConnections();
      await server.close();
    }
  }
  const [withCache] = results;
  for (const [label, { refreshes, skipped, seconds, cpuMs, storeCpuMs }, cold] of results) {
    const ms = refreshes.map((r) => r.ms);
    const panelMs = refreshes.flatMap((r) => r.panelMs);
    const points = refreshes.map((r) => r.pointsRead);
    const hits = refreshes.reduce((n, r) => n + r.hits, 0);
    const misses = refreshes.reduce((n, r) => n + r.misses, 0);
    console.log(
      `${label}: ${refreshes.length} refreshes in ${seconds.toFixed(0)} s (${skipped} ticks skipped: a refresh still running)`,
    );
    const engineMs = refreshes.map((r) => r.engineMs);
    console.log(
      `  latency per refresh (4 panels): p50 ${median(ms).toFixed(0)} ms, p99 ${percentile(ms, 0.99).toFixed(0)} ms; per panel: p50 ${median(panelMs).toFixed(0)} ms, p99 ${percentile(panelMs, 0.99).toFixed(0)} ms`,
    );
    console.log(
      `  engine time per refresh (the 4 queries' statistics, waits for the thread included): p50 ${median(engineMs).toFixed(1)} ms, p99 ${percentile(engineMs, 0.99).toFixed(1)} ms`,
    );
    console.log(
      `  CPU of this process (gateway, clients and collector) per refresh: ${(cpuMs / refreshes.length).toFixed(1)} ms (${((cpuMs / 1000 / seconds) * 100).toFixed(0)}% of a core)`,
    );
    if (storeCpuMs !== undefined)
      console.log(
        `  CPU of Cassandra's JVM per refresh: ${(storeCpuMs / refreshes.length).toFixed(1)} ms (${((storeCpuMs / 1000 / seconds) * 100).toFixed(0)}% of a core)`,
      );
    console.log(
      `  points read per refresh: cold ${cold.toLocaleString('en')}, during the run median ${median(points).toLocaleString('en')}, p99 ${percentile(points, 0.99).toLocaleString('en')} (${((median(points) / cold) * 100).toFixed(1)}% of cold)`,
    );
    console.log(
      `  cache hit ratio: ${hits + misses === 0 ? 'n/a' : `${((hits / (hits + misses)) * 100).toFixed(1)}% of ${(hits + misses).toLocaleString('en')} cacheable minutes`}`,
    );
  }
  console.log(`load average (1 min) after the runs: ${loadavg()[0]!.toFixed(2)}`);
  const [, run, cold] = withCache!;
  const p99 = percentile(
    run.refreshes.map((r) => r.ms),
    0.99,
  );
  const warm = median(run.refreshes.map((r) => r.pointsRead));
  console.log(
    `targets: p99 per refresh ≤ ${TARGET_P99_MS[storeName]} ms with the cache: ${p99 <= TARGET_P99_MS[storeName]! ? 'met' : 'missed'} (${p99.toFixed(0)} ms); points read per warm refresh ≤ 5% of a cold one: ${warm <= 0.05 * cold ? 'met' : 'missed'} (${((warm / cold) * 100).toFixed(1)}%)`,
  );
}

// ------------------------------------------------------------------------------------------------------------------
// Reads on Cassandra, without the cache (issue 11's measurements)

const DASH_METRIC = 'bench.dashboard.cpu';
const DASH_HOSTS = 20;
const DASH_POINTS = 8640;
const DASH_STEP = 10_000;
const dashEnd = START_MS + DASH_POINTS * DASH_STEP - 1;
const alias = (a: number) =>
  `a${a}: series(metric: "${DASH_METRIC}", from: ${START_MS}, to: ${dashEnd}, where: [{ tag: "host", in: [${[0, 1, 2, 3, 4].map((k) => `"${host(a * 5 + k)}"`).join(', ')}] }],
    groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") points { t: epochMs value } }`;
const DASHBOARD = `query Dashboard { ${[0, 1, 2, 3].map(alias).join('\n')} }`;

async function post(
  url: string,
  query: string,
): Promise<{
  ms: number;
  body: { data?: unknown; errors?: unknown[]; extensions?: { statistics: { storeCalls: Record<string, number> } } };
}> {
  const started = performance.now();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as Awaited<ReturnType<typeof post>>['body'];
  if (response.status !== 200 || body.errors)
    throw new Error(`request failed: ${response.status} ${JSON.stringify(body.errors)}`);
  return { ms: performance.now() - started, body };
}

async function cassandraReads(
  node: CassandraServer,
  store: CassandraStore,
  keyspace: string,
  config: Config,
): Promise<void> {
  const plain = new cassandra.Client({
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    protocolOptions: { maxVersion: 4 },
  });
  await plain.connect();
  // These measure what reads cost: the cache (and identical work in flight) would answer the repeated requests.
  const server = await startGateway(store, { CACHE_MAX_BYTES: '0', MAX_POINTS_READ: '1000000000' });
  server.server.on('clientError', (error) => console.log(`server socket error: ${error.message}`));
  try {
    console.log('\n## Reads on Cassandra, without the results cache');
    let t = performance.now();
    for (let h = 0; h < DASH_HOSTS; h++) {
      const timestamps = Array.from({ length: DASH_POINTS }, (_, i) => START_MS + i * DASH_STEP);
      const series: SeriesWrite = {
        metric: DASH_METRIC,
        tags: { host: host(h), dc: h < 10 ? 'eu' : 'us' },
        type: 'double',
        ttlSeconds: 0,
        timestamps,
        values: timestamps.map((_, i) => 40 + 10 * Math.sin(i / 360 + h) + (i % 7)),
      };
      await store.write({ series: [series] });
    }
    const dashPoints = DASH_HOSTS * DASH_POINTS;
    console.log(
      `dashboard dataset: ${DASH_HOSTS} series × ${DASH_POINTS} points (1 day at 10 s, ${dashPoints.toLocaleString('en')} points) written in ${((performance.now() - t) / 1000).toFixed(1)} s = ${(dashPoints / ((performance.now() - t) / 1000) / 1000).toFixed(0)} k points/s`,
    );
    console.log(
      'request: 4 aliases over one metric, 5 hosts each, group by host, avg per minute (20 series × 1,440 points out)',
    );

    await post(server.url, DASHBOARD);
    const before = store.statements;
    const one = await post(server.url, DASHBOARD);
    const cqlOne = statementDelta(before, store.statements);
    let naiveCalls = 0;
    const beforeNaive = store.statements;
    for (let a = 0; a < 4; a++)
      naiveCalls += (await post(server.url, `{ ${alias(a)} }`)).body.extensions!.statistics.storeCalls['total']!;
    const cqlNaive = statementDelta(beforeNaive, store.statements);
    console.log(
      `\nstore calls per request with per-request loaders: ${JSON.stringify(one.body.extensions!.statistics.storeCalls)}`,
    );
    console.log(`  CQL statements: ${JSON.stringify(cqlOne)}`);
    console.log(`store calls for the same 4 queries as 4 requests (naive): total ${naiveCalls}`);
    console.log(`  CQL statements: ${JSON.stringify(cqlNaive)}`);

    console.log(
      `\nlatency (bounded: ${REQUESTS} requests or ${SECONDS} s per level, after 5 warm-up requests; identical requests running together are read once)`,
    );
    for (let w = 0; w < 5; w++) await post(server.url, DASHBOARD);
    for (const clients of [1, 8, 32]) {
      const latencies: number[] = [];
      const deadline = performance.now() + SECONDS * 1000;
      let issued = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (issued < REQUESTS && performance.now() < deadline) {
            issued++;
            latencies.push((await post(server.url, DASHBOARD)).ms);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `  ${String(clients).padStart(2)} clients: ${latencies.length} requests, median ${median(latencies).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms, ${(latencies.length / seconds).toFixed(1)} requests/s`,
      );
    }

    t = performance.now();
    let written = 0;
    for (const batch of writeBatches(big, 50_000)) {
      await store.write({ series: batch });
      written += batch.reduce((n, s) => n + s.timestamps.length, 0);
    }
    const ingestSeconds = (performance.now() - t) / 1000;
    console.log(
      `\nbig dataset: ${describeShape(big)}, written in ${ingestSeconds.toFixed(1)} s = ${(written / ingestSeconds / 1000).toFixed(0)} k points/s`,
    );
    const bigEnd = START_MS + big.points * big.stepMs - 1;
    const partitions = await partitionsOf(store, BIG_METRIC, START_MS, bigEnd);
    const select = `SELECT column1, value FROM ${keyspace}.data_points WHERE key = ?`;
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
              const page = await plain.execute(select, [key], {
                prepare: true,
                fetchSize: config.cassandraFetchSize,
                ...(pageState ? { pageState } : {}),
              });
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
    await post(server.url, aggregate);
    for (let r = 0; r < RUNS; r++) {
      let started = performance.now();
      await bare();
      bareMs.push(performance.now() - started);
      started = performance.now();
      const result = await post(server.url, aggregate);
      endToEndMs.push(performance.now() - started);
      const [group] = (result.body.data as { series: { sampleSize: number }[] }).series;
      if (group!.sampleSize !== written)
        throw new Error(`the aggregation read ${group!.sampleSize} points, ${written} were written`);
    }
    const ratio = median(endToEndMs) / median(bareMs);
    console.log(
      `${partitions.length} partitions, avg per minute over all series (one group), medians of ${RUNS} runs after one warm-up each:`,
    );
    console.log(
      `  bare driver scan (fetch size ${config.cassandraFetchSize}, ${config.cassandraConcurrency} in flight): ${median(bareMs).toFixed(0)} ms = ${(written / median(bareMs) / 1000).toFixed(2)} M points/s  (runs ${bareMs.map((m) => m.toFixed(0)).join(', ')})`,
    );
    console.log(
      `  end to end over HTTP (GraphQL → engine → store):          ${median(endToEndMs).toFixed(0)} ms = ${(written / median(endToEndMs) / 1000).toFixed(2)} M points/s  (runs ${endToEndMs.map((m) => m.toFixed(0)).join(', ')})`,
    );
    console.log(`  end to end / bare scan: ${ratio.toFixed(2)} (target ≤ 1.3)`);
  } finally {
    server.server.closeAllConnections();
    await server.close();
    await plain.shutdown();
  }
}

function statementDelta(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, count] of Object.entries(after))
    if (count !== (before[name] ?? 0)) delta[name] = count - (before[name] ?? 0);
  return delta;
}

// ------------------------------------------------------------------------------------------------------------------

try {
  if (STORES.includes('embedded')) {
    const store = await EmbeddedStore.open({ path: tempDir('kairograph-bench-dashboard-') });
    try {
      await refreshBenchmark('embedded', store);
      await tracingCost(store, refresh);
    } finally {
      await store.close();
    }
  }
  if (STORES.includes('cassandra')) {
    const node = await startCassandra();
    if (node.pid > 0) cassandraPid = node.pid;
    console.log(
      `\ncassandra: ${node.bootMs > 0 ? `booted in ${(node.bootMs / 1000).toFixed(1)} s` : 'reused'} on ${node.contactPoint}`,
    );
    try {
      const config = loadConfig({ SEED_DEMO: 'false' });
      const open = (keyspace: string) =>
        CassandraStore.open({
          contactPoints: [node.contactPoint],
          localDataCenter: node.localDataCenter,
          keyspace,
          writeConsistency: 'ONE',
        });
      const live = await open(`bench_refresh_${Date.now().toString(36)}`);
      try {
        await refreshBenchmark('cassandra', live);
      } finally {
        await live.close();
      }
      if (!REFRESH_ONLY) {
        const keyspace = `bench_dashboard_${Date.now().toString(36)}`;
        const store = await open(keyspace);
        try {
          await cassandraReads(node, store, keyspace, config);
        } finally {
          await store.close();
        }
      }
    } finally {
      await node.stop();
    }
  }
  console.log(
    `\npeak RSS of this process (gateway, clients and benchmark): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  );
} finally {
  removeTempDirs();
}
