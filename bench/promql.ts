/**
 * Kairograph's PromQL against real Prometheus on the same data in the same run (issue #41): five range queries (rate,
 * sum by, avg_over_time, histogram_quantile, a binary operation) over bench/promql-dataset.ts's 2,000,000 points,
 * written into Prometheus by remote write and into a gateway on the embedded store and one on Cassandra. Each query's
 * answers from both servers are compared first (the same series and steps, values within 1e-9 relative), then each
 * server is timed in turn (which goes first rotates) over several runs after a warm-up: its time ends when its whole
 * answer has arrived, inflated and decoded to text. On Cassandra each query's floor is timed in turn with them: a bare
 * read of the partitions the query reads with the project's own page decoder (bench/floor-read.ts). Peak RSS is each
 * process's high-water mark over the query's runs, reset before them.
 *
 *   npm run bench:promql [-- --runs 5 --points 20000 --stores embedded,cassandra --read-ahead 8 --only <part of a name>
 *                            --profile <dir> --cassandra-pid <JVM of a reused node>]
 *
 * --points is per series (100 series); --profile runs the gateways under `node --cpu-prof` into <dir> and prints where
 * their CPU went (the profiler costs time of its own: take the timings from a run without it).
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import type { RowKey } from '../src/store/store.js';
import { type Answer, askPrometheus, compareAnswers, type Query } from '../test/prometheus/oracle-compare.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { startPrometheus } from '../test/support/prometheus-server.js';
import { remoteWrite } from '../test/support/remote-write.js';
import { partitionsOf } from '../test/support/store-reads.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { post } from './answer-client.js';
import { formatProfileSummary, summarizeCpuProfile } from './cpu-profile.js';
import { type LeanFloor, openLeanFloor, settleCassandra, warmReads } from './floor-read.js';
import { buildGateway, cpuSeconds, type GatewayProcess, memoryKb, startGateway } from './gateway-process.js';
import { median, parseArgs } from './measure.js';
import {
  asWriteSeries,
  BUCKETS,
  COUNTER,
  GAUGE,
  promqlDataset,
  SERIES_TOTAL,
  START_MS,
  STEP_MS,
  storeBatches,
} from './promql-dataset.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.get('runs') ?? 5);
const POINTS = Number(args.get('points') ?? 20_000);
const STORES = (args.get('stores') ?? 'embedded,cassandra').split(',').filter((s) => s !== '');
const READ_AHEAD = args.get('read-ahead') ?? '8';
/** Runs only the queries whose name contains this (a profile of one query, say). */
const ONLY = args.get('only');
const PROFILE_DIR = args.get('profile');
const KEYSPACE = 'bench_promql';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The issue's tolerance: tighter than the compliance tester's 1e-5, since both servers sum the same doubles. */
const TOLERANCE = 1e-9;
/** A step Grafana would ask for over this span on a wide panel, well under Prometheus's 11,000 steps. */
const QUERY_STEP_MS = 60_000;
const END_MS = START_MS + (POINTS - 1) * STEP_MS;
const TARGETS = { prometheus: 2, floor: 1.3 };
/**
 * Limits that a whole-dataset query does not reach, and no results cache: cold reads are what is measured. The time
 * limit is Prometheus's own default (`--query.timeout`), so that a stuck query ends the run on either server alike.
 */
const GATEWAY_ENV = {
  SEED_DEMO: 'false',
  CACHE_MAX_BYTES: '0',
  QUERY_TIMEOUT_MS: '120000',
  MAX_REQUEST_POINTS: '1000000000',
  MAX_QUERY_POINTS: '1000000000',
  MAX_RESPONSE_BYTES: '4294967296',
};

interface BenchQuery {
  readonly name: string;
  readonly promql: string;
  /** The metrics it reads, whose partitions its floor reads. */
  readonly metrics: readonly string[];
}

const QUERIES: readonly BenchQuery[] = [
  { name: 'rate', promql: `rate(${COUNTER}[5m])`, metrics: [COUNTER] },
  { name: 'sum by', promql: `sum by (host) (${GAUGE})`, metrics: [GAUGE] },
  { name: 'avg_over_time', promql: `avg_over_time(${GAUGE}[5m])`, metrics: [GAUGE] },
  {
    name: 'histogram_quantile',
    promql: `histogram_quantile(0.9, sum by (le) (rate(${BUCKETS}[5m])))`,
    metrics: [BUCKETS],
  },
  { name: 'binary operation', promql: `rate(${COUNTER}[5m]) / ${GAUGE}`, metrics: [COUNTER, GAUGE] },
].filter((q) => ONLY === undefined || q.name.includes(ONLY));

type Who = 'prometheus' | 'kairograph' | 'floor';

interface Measured {
  readonly store: string;
  readonly query: BenchQuery;
  readonly answers: string;
  readonly ms: Readonly<Record<Who, number | undefined>>;
  readonly rssMb: { readonly kairograph: number; readonly prometheus: number };
  /** Each process's RSS when its high-water mark was reset, before the query's first run. */
  readonly rssBeforeMb: { readonly kairograph: number; readonly prometheus: number };
}

console.log(
  `load average (1, 5, 15 min) at the start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
console.log(
  `command: npm run bench:promql -- --runs ${RUNS} --points ${POINTS} --stores ${STORES.join(',')} --read-ahead ${READ_AHEAD}${ONLY ? ` --only "${ONLY}"` : ''}`,
);
const dataset = promqlDataset(POINTS);
console.log(
  `dataset: ${SERIES_TOTAL} series (${COUNTER}, ${GAUGE}: 20 each; ${BUCKETS}: 5 hosts × 12 le) × ${POINTS.toLocaleString('en-US')} samples 10 s apart = ${(SERIES_TOTAL * POINTS).toLocaleString('en-US')} points from ${new Date(START_MS).toISOString()}; queries over all of it, step ${QUERY_STEP_MS / 1000} s`,
);

const prometheus = await startPrometheus();
const results: Measured[] = [];
let failed = false;
try {
  console.log(`prometheus: ${prometheus.version}, pid ${prometheus.pid || 'reused'}, ${prometheus.url}`);
  if (prometheus.pid === 0) throw new Error('bench:promql needs a Prometheus of its own (unset KAIROGRAPH_PROMETHEUS)');
  let started = performance.now();
  const written = await remoteWrite(prometheus.url, asWriteSeries(dataset));
  console.log(
    `prometheus: ${written.samples.toLocaleString('en-US')} samples remote-written in ${written.requests} requests, ${((performance.now() - started) / 1000).toFixed(1)} s; its TSDB quiet (head compacted into blocks) after ${(
      (await quiet(prometheus.pid)) / 1000
    ).toFixed(1)} s more`,
  );
  buildGateway(ROOT);

  if (STORES.includes('embedded')) {
    const dir = tempDir('kairograph-bench-promql-');
    const store = await EmbeddedStore.open({ path: dir });
    started = performance.now();
    for (const batch of storeBatches(dataset, 10_000)) await store.write({ series: batch });
    await store.close();
    console.log(
      `embedded: the dataset written through the store in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const gateway = await startBenchGateway({ STORE: 'embedded', DATA_DIR: dir });
    try {
      for (const query of QUERIES) results.push(await measure('embedded', query, gateway));
    } finally {
      await gateway.stop();
      printProfile();
    }
  }

  if (STORES.includes('cassandra')) {
    const node = await startCassandra();
    console.log(
      `cassandra: ${node.contactPoint}${node.pid ? ` (pid ${node.pid}, booted in ${(node.bootMs / 1000).toFixed(1)} s)` : ' (reused)'}`,
    );
    // A node the benchmark booted has its pid; a reused one (KAIROGRAPH_CASSANDRA) is named on the command line.
    const cassandraPid = node.pid || Number(args.get('cassandra-pid') ?? 0);
    const store = await CassandraStore.open({
      contactPoints: [node.contactPoint],
      localDataCenter: node.localDataCenter,
      keyspace: KEYSPACE,
      writeConsistency: 'ONE',
    });
    let floor: LeanFloor | undefined;
    let gateway: GatewayProcess | undefined;
    try {
      const partitions = await ensureCassandraDataset(store);
      floor = await openLeanFloor({
        contactPoint: node.contactPoint,
        localDataCenter: node.localDataCenter,
        keyspace: KEYSPACE,
        spec: await store.spec(),
      });
      const settledMs = await settleCassandra(floor.client);
      const passes = await warmReads(floor, [...partitions.values()].flat());
      console.log(
        `cassandra: no flush or compaction under way or queued after ${(settledMs / 1000).toFixed(1)} s; every partition read bare ${passes.length} times first: ${passes.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`,
      );
      gateway = await startBenchGateway({
        STORE: 'cassandra',
        CASSANDRA_CONTACT_POINTS: node.contactPoint,
        CASSANDRA_LOCAL_DC: node.localDataCenter,
        CASSANDRA_KEYSPACE: KEYSPACE,
        CASSANDRA_READ_AHEAD: READ_AHEAD,
      });
      for (const query of QUERIES) {
        const keys = query.metrics.flatMap((m) => partitions.get(m)!);
        results.push(await measure('cassandra', query, gateway, { floor, keys, pid: cassandraPid }));
      }
    } finally {
      await gateway?.stop();
      await floor?.close();
      await store.close();
      await node.stop();
      if (gateway) printProfile();
    }
  }
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await prometheus.stop();
  removeTempDirs();
}
summarize();
console.log(
  `load average (1, 5, 15 min) at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
if (failed || results.some((r) => r.answers.startsWith('DIFFERENT'))) process.exitCode = 1;

/** A gateway process of the built dist/, on 127.0.0.1, with the benchmark's limits. */
async function startBenchGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const gateway = await startGateway(ROOT, { ...GATEWAY_ENV, ...env }, undefined, [
    ...(PROFILE_DIR !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
  ]);
  console.log(`kairograph (${env['STORE']}): ${gateway.command}, pid ${gateway.pid}, ${gateway.url}`);
  return gateway;
}

/**
 * One query on one store: the answers compared, then RUNS timed runs after a warm-up, Prometheus, Kairograph and (on
 * Cassandra) the floor in turn, who goes first rotating so that none always meets the others' leftovers.
 */
async function measure(
  store: string,
  query: BenchQuery,
  gateway: GatewayProcess,
  cassandra?: { readonly floor: LeanFloor; readonly keys: readonly RowKey[]; readonly pid: number },
): Promise<Measured> {
  const q: Query = { kind: 'range', query: query.promql, startMs: START_MS, endMs: END_MS, stepMs: QUERY_STEP_MS };
  const kairograph = `${gateway.url}/prometheus/kairosdb`;
  const [ref, test] = await Promise.all([askPrometheus(prometheus.url, q), askPrometheus(kairograph, q)]);
  const answers = agreement(ref, test);
  const form = new URLSearchParams({
    query: query.promql,
    start: String(START_MS / 1000),
    end: String(END_MS / 1000),
    step: String(QUERY_STEP_MS / 1000),
  }).toString();
  const expected = cassandra ? pointsOf(query) : 0;
  const who: Who[] = cassandra ? ['prometheus', 'kairograph', 'floor'] : ['prometheus', 'kairograph'];
  const times: Record<Who, number[]> = { prometheus: [], kairograph: [], floor: [] };
  /** CPU seconds of each run: the server's own process, the floor's is this one's (its driver and decoding). */
  const cpu: Record<Who, number[]> = { prometheus: [], kairograph: [], floor: [] };
  const cassandraCpu: Record<Who, number[]> = { prometheus: [], kairograph: [], floor: [] };
  resetPeak(gateway.pid);
  resetPeak(prometheus.pid);
  const rssBeforeMb = {
    kairograph: memoryKb(gateway.pid, 'VmRSS') / 1024,
    prometheus: memoryKb(prometheus.pid, 'VmRSS') / 1024,
  };
  for (let run = 0; run <= RUNS; run++) {
    for (const one of who.map((_, i) => who[(i + run) % who.length]!)) {
      const pid = one === 'prometheus' ? prometheus.pid : one === 'kairograph' ? gateway.pid : process.pid;
      const c0 = cpuSeconds(pid);
      const k0 = cassandra?.pid ? cpuSeconds(cassandra.pid) : 0;
      const t0 = performance.now();
      if (one === 'floor') {
        const points = await cassandra!.floor.readAll(cassandra!.keys);
        if (points !== expected) throw new Error(`the floor of ${query.name} read ${points} points, not ${expected}`);
      } else {
        const base = one === 'prometheus' ? prometheus.url : kairograph;
        const { status, text } = await post(`${base}/api/v1/query_range`, form, 'application/x-www-form-urlencoded');
        if (status !== 200) throw new Error(`${one} answered ${query.promql} with ${status}: ${text.slice(0, 300)}`);
      }
      if (run > 0) {
        times[one].push(performance.now() - t0);
        cpu[one].push(cpuSeconds(pid) - c0);
        if (cassandra?.pid) cassandraCpu[one].push(cpuSeconds(cassandra.pid) - k0);
      }
    }
  }
  const ms = {
    prometheus: median(times.prometheus),
    kairograph: median(times.kairograph),
    floor: cassandra ? median(times.floor) : undefined,
  };
  const measured: Measured = {
    store,
    query,
    answers,
    ms,
    rssMb: { kairograph: memoryKb(gateway.pid, 'VmHWM') / 1024, prometheus: memoryKb(prometheus.pid, 'VmHWM') / 1024 },
    rssBeforeMb,
  };
  console.log(
    `${store} | ${query.name}: ${query.promql} | Prometheus ${seconds(ms.prometheus)}, Kairograph ${seconds(ms.kairograph)}, ×Prometheus ${(ms.kairograph / ms.prometheus).toFixed(2)}${
      ms.floor !== undefined
        ? ` | floor (${cassandra!.keys.length} partitions bare) ${seconds(ms.floor)}, ×floor ${(ms.kairograph / ms.floor).toFixed(2)} (${spread(times.kairograph, times.floor)})`
        : ''
    } | peak RSS Kairograph ${measured.rssMb.kairograph.toFixed(0)} MB (${rssBeforeMb.kairograph.toFixed(0)} before), Prometheus ${measured.rssMb.prometheus.toFixed(0)} MB (${rssBeforeMb.prometheus.toFixed(0)} before) | CPU s (median): Prometheus ${median(cpu.prometheus).toFixed(2)}, Kairograph ${median(cpu.kairograph).toFixed(2)}${
      cassandra
        ? `, the floor's client ${median(cpu.floor).toFixed(2)}${cassandra.pid ? `; Cassandra under Kairograph ${median(cassandraCpu.kairograph).toFixed(2)}, under the floor ${median(cassandraCpu.floor).toFixed(2)}` : ''}`
        : ''
    } | answers: ${answers}`,
  );
  return measured;
}

/** "agree (...)" or "DIFFERENT: what differs first". */
function agreement(ref: Answer, test: Answer): string {
  const difference = compareAnswers(ref, test, false, TOLERANCE);
  if (difference !== undefined) return `DIFFERENT: ${difference}`;
  if (!ref.ok || !test.ok) return 'DIFFERENT: a server failed';
  const values = ref.series.reduce((n, s) => n + s.points.length, 0);
  const exact = ref.series.every((r, s) => r.points.every(([, v], k) => Object.is(v, test.series[s]!.points[k]![1])));
  return `agree within ${TOLERANCE} relative (${ref.series.length} series, ${values.toLocaleString('en-US')} values${exact ? ', every one identical' : ''})`;
}

/** The points a query's floor reads: every sample of every series of its metrics. */
function pointsOf(query: BenchQuery): number {
  return dataset.filter((s) => query.metrics.includes(s.metric)).length * POINTS;
}

/** Writes the dataset unless the keyspace holds all of it already; returns each metric's partitions. */
async function ensureCassandraDataset(store: CassandraStore): Promise<Map<string, RowKey[]>> {
  const metrics = [COUNTER, GAUGE, BUCKETS];
  const partitions = async () =>
    new Map(await Promise.all(metrics.map(async (m) => [m, await partitionsOf(store, m, START_MS, END_MS)] as const)));
  let present = 0;
  for (const keys of (await partitions()).values())
    for (const key of keys)
      for await (const slice of store.scan(key, START_MS, END_MS)) present += slice.timestamps.length;
  if (present === SERIES_TOTAL * POINTS) {
    console.log(`cassandra: the dataset is in keyspace ${KEYSPACE} already`);
  } else {
    if (present > 0)
      throw new Error(`keyspace ${KEYSPACE} holds ${present} of the dataset's points, not all: drop it and run again`);
    const started = performance.now();
    for (const batch of storeBatches(dataset, 10_000)) await store.write({ series: batch });
    console.log(
      `cassandra: the dataset written through the store in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  return partitions();
}

/**
 * Resolves, with the time it took, once Prometheus has used under 2% of a core over two 2-second spans in a row:
 * remote write leaves the head to compact into blocks behind it, whose CPU would count against the first queries.
 */
async function quiet(pid: number): Promise<number> {
  const started = performance.now();
  for (let calm = 0; calm < 2; ) {
    const c0 = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    calm = cpuSeconds(pid) - c0 < 0.04 ? calm + 1 : 0;
    if (performance.now() - started > 300_000) throw new Error('Prometheus was still busy 5 minutes after the write');
  }
  return performance.now() - started;
}

/** Starts a new high-water mark of the process's RSS (VmHWM), as `clear_refs` value 5 does since Linux 4.0. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/** The lowest and highest of the runs' own Kairograph/floor ratios (each run measures both, one after the other). */
function spread(kairograph: readonly number[], floor: readonly number[]): string {
  const ratios = kairograph.map((ms, run) => ms / floor[run]!);
  return `runs ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
}

/** The gateway writes its profile as it exits; the newest one in the directory is that gateway's. */
function printProfile(): void {
  if (PROFILE_DIR === undefined) return;
  const newest = readdirSync(PROFILE_DIR)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(PROFILE_DIR, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest !== undefined)
    console.log(`profile of the gateway (${newest}):\n${formatProfileSummary(summarizeCpuProfile(newest))}`);
}

/** The figures as a Markdown table, the targets checked. */
function summarize(): void {
  console.log(
    '\n| store | query | Prometheus | Kairograph | × Prometheus | floor | × floor | peak RSS Kairograph | peak RSS Prometheus | answers |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const vsProm = r.ms.kairograph! / r.ms.prometheus!;
    const vsFloor = r.ms.floor !== undefined ? r.ms.kairograph! / r.ms.floor : undefined;
    const met =
      r.store === 'embedded'
        ? vsProm <= TARGETS.prometheus
          ? ''
          : ' (over 2×)'
        : vsFloor !== undefined && vsFloor > TARGETS.floor
          ? ' (over 1.3×)'
          : '';
    console.log(
      `| ${r.store} | ${r.query.name} | ${seconds(r.ms.prometheus!)} | ${seconds(r.ms.kairograph!)} | ${vsProm.toFixed(2)}${r.store === 'embedded' ? met : ''} | ${r.ms.floor !== undefined ? seconds(r.ms.floor) : ''} | ${vsFloor !== undefined ? `${vsFloor.toFixed(2)}${met}` : ''} | ${r.rssMb.kairograph.toFixed(0)} MB | ${r.rssMb.prometheus.toFixed(0)} MB | ${r.answers.startsWith('agree') ? 'agree' : r.answers} |`,
    );
  }
}
