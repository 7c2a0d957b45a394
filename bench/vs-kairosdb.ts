/**
 * Kairograph against real KairosDB 1.3.0-1 on one Cassandra keyspace: the same points (20 series at 10 s, 2,000,000 by
 * default), the five aggregated queries of the cold-read issue, raw points of one series and a dashboard (GraphQL
 * aliases on Kairograph, as point objects, as columns and as fifemon's rows; the same metrics in one REST body on
 * KairosDB), sent to each server in turn (which goes first alternates), medians of several runs after a warm-up. Every
 * answer is compared; the CPU seconds of each process (the gateway, KairosDB's JVM, Cassandra's JVM) are taken over
 * each query; and each query's floor is measured in turn with the two servers (the three rotate who goes first): a bare
 * read of the partitions that query reads with the project's own page decoder, 20 at a time, no engine, no HTTP (the
 * line gives the ratio of the medians, and the range of the runs' own ratios: each run measures both in turn). A
 * server's time ends when its whole answer has arrived, inflated and decoded to text as curl and Go's client do it (all
 * bytes, then one call each): parsing the JSON is this client's work, which the floor does not do. With Cassandra's CPU
 * known, each line also gives the least time the machine's cores allow for the gateway's and its Cassandra's CPU
 * seconds together, and that bound's ratio to the floor.
 *
 *   npm run bench:vs-kairosdb [-- --runs 5 --series 20 --points 100000 --read-ahead 8 --cassandra-pid <JVM of a reused node>
 *                                 --profile <dir> --node-args "<options for the gateway's node>" --only <part of a query's name>]
 *
 * --profile runs the gateway under `node --cpu-prof` into <dir> and prints where its CPU went (the profiler costs
 * time of its own: take the timings from a run without it).
 */
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import type { RowKey } from '../src/store/store.js';
import type { SeriesWrite } from '../src/model/write-batch.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { startKairosDB } from '../test/support/kairosdb-server.js';
import { partitionsOf } from '../test/support/store-reads.js';
import { post } from './answer-client.js';
import { formatProfileSummary, summarizeCpuProfile } from './cpu-profile.js';
import { openLeanFloor, settleCassandra, warmReads } from './floor-read.js';
import { buildGateway, cpuSeconds, startGateway } from './gateway-process.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.get('runs') ?? 5);
const SERIES = Number(args.get('series') ?? 20);
const POINTS = Number(args.get('points') ?? 100_000);
const READ_AHEAD = args.get('read-ahead') ?? '8';
const PROFILE_DIR = args.get('profile');
/** Runs only the queries whose name contains this (a profile of one query, say). */
const ONLY = args.get('only');
const NODE_ARGS = (args.get('node-args') ?? '').split(' ').filter((arg) => arg !== '');
const KEYSPACE = 'bench_vs_kairosdb';
const METRIC = 'bench.vs.cpu';
const STEP_MS = 10_000;
const START_MS = Date.UTC(2026, 0, 1);
const END_MS = START_MS + POINTS * STEP_MS - 1;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const host = (s: number) => `h${String(s).padStart(2, '0')}`;
const dc = (s: number) => (s < SERIES / 2 ? 'a' : 'b');

const range = { start_absolute: START_MS, end_absolute: END_MS };
const aggregated = (aggregator: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ...range,
  metrics: [{ name: METRIC, aggregators: [{ align_sampling: true, ...aggregator }], ...extra }],
});
/** Queries sent to both servers as KairosDB REST bodies; `graphql` is what Kairograph is sent instead, where given. */
interface BenchQuery {
  readonly name: string;
  readonly rest: unknown;
  readonly graphql?: string;
  /** Why the answers may differ, when they may. */
  readonly differs?: string;
  /** The partitions it reads, which its floor reads bare; all of the metric's when absent. */
  readonly reads?: (key: RowKey) => boolean;
}
const DASHBOARD_PANELS = [0, 1, 2, 3].map((p) => ({
  hosts: [0, 1, 2, 3, 4].map((k) => host((p * 5 + k) % SERIES)),
}));
/**
 * The dashboard's four panels as one GraphQL request: `series` with each series' points in `shape` (`points { … }` or
 * `columns { … }`), or `rows` as Grafana's fifemon GraphQL data source asks for them (`shape` undefined).
 */
const dashboardGraphql = (shape?: string) =>
  `query Dashboard { ${DASHBOARD_PANELS.map(
    (
      panel,
      p,
    ) => `p${p}: ${shape === undefined ? 'rows' : 'series'}(metric: "${METRIC}", from: ${START_MS}, to: ${END_MS}, where: [{ tag: "host", in: ${JSON.stringify(panel.hosts)} }],
        groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES }, alignSampling: true } }]) ${shape === undefined ? '{ Time: time value host: tag(name: "host") }' : `{ host: tag(name: "host") ${shape} }`}`,
  ).join('\n')} }`;
const DASHBOARD_REST = {
  ...range,
  metrics: DASHBOARD_PANELS.map((panel) => ({
    name: METRIC,
    tags: { host: panel.hosts },
    group_by: [{ name: 'tag', tags: ['host'] }],
    aggregators: [{ name: 'avg', align_sampling: true, sampling: { value: 1, unit: 'minutes' } }],
  })),
};
const QUERIES: readonly BenchQuery[] = [
  {
    name: 'avg per hour, all series in one group',
    rest: aggregated({ name: 'avg', sampling: { value: 1, unit: 'hours' } }),
  },
  {
    name: 'max per day, grouped by host',
    rest: aggregated(
      { name: 'max', sampling: { value: 1, unit: 'days' } },
      { group_by: [{ name: 'tag', tags: ['host'] }] },
    ),
  },
  {
    name: 'percentile 0.95 per hour',
    rest: aggregated({ name: 'percentile', percentile: 0.95, sampling: { value: 1, unit: 'hours' } }),
    differs: 'KairosDB samples a random reservoir of 1,028 values per range (SEMANTICS.md, percentile)',
  },
  {
    name: 'sum per 10 min, one tag value',
    rest: aggregated({ name: 'sum', sampling: { value: 10, unit: 'minutes' } }, { tags: { dc: ['a'] } }),
    reads: (key) => key.tags['dc'] === 'a',
  },
  {
    name: 'count per minute, grouped by a tag',
    rest: aggregated(
      { name: 'count', sampling: { value: 1, unit: 'minutes' } },
      { group_by: [{ name: 'tag', tags: ['dc'] }] },
    ),
  },
  {
    name: 'raw points of one series',
    rest: { ...range, metrics: [{ name: METRIC, tags: { host: [host(0)] } }] },
    reads: (key) => key.tags['host'] === host(0),
  },
  {
    name: 'dashboard: 4 panels of 5 hosts, 1-minute averages, as points',
    rest: DASHBOARD_REST,
    graphql: dashboardGraphql('points { t: epochMs value }'),
  },
  {
    name: 'dashboard: 4 panels of 5 hosts, 1-minute averages, as columns',
    rest: DASHBOARD_REST,
    graphql: dashboardGraphql('columns { epochMs value }'),
  },
  {
    name: "dashboard: 4 panels of 5 hosts, 1-minute averages, as fifemon's rows",
    rest: DASHBOARD_REST,
    graphql: dashboardGraphql(),
  },
];

console.log(
  `command: npm run bench:vs-kairosdb -- --runs ${RUNS} --series ${SERIES} --points ${POINTS} --read-ahead ${READ_AHEAD}`,
);
console.log(
  `dataset: ${METRIC}, ${SERIES} series (host × dc) × ${POINTS} doubles at 10 s = ${(SERIES * POINTS).toLocaleString('en-US')} points from ${new Date(START_MS).toISOString()}`,
);
const node = await startCassandra();
console.log(
  `cassandra: ${node.contactPoint}${node.pid ? ` (pid ${node.pid}, booted in ${(node.bootMs / 1000).toFixed(1)} s)` : ' (reused)'}`,
);
const store = await CassandraStore.open({
  contactPoints: [node.contactPoint],
  localDataCenter: node.localDataCenter,
  keyspace: KEYSPACE,
  writeConsistency: 'ONE',
});
const partitions = await ensureDataset();
const kairosdb = await startKairosDB({ cassandra: node.contactPoint, keyspace: KEYSPACE, heap: '1g' });
buildGateway(ROOT);
const gateway = await startGateway(
  ROOT,
  {
    STORE: 'cassandra',
    CASSANDRA_CONTACT_POINTS: node.contactPoint,
    CASSANDRA_LOCAL_DC: node.localDataCenter,
    CASSANDRA_KEYSPACE: KEYSPACE,
    CASSANDRA_READ_AHEAD: READ_AHEAD,
    SEED_DEMO: 'false',
    // Cold reads are the point: no results cache, and limits that a 2M-point answer does not reach.
    CACHE_MAX_BYTES: '0',
    QUERY_TIMEOUT_MS: '600000',
    MAX_REQUEST_POINTS: '1000000000',
    MAX_QUERY_POINTS: '1000000000',
    MAX_RESPONSE_BYTES: '4294967296',
  },
  undefined,
  [...NODE_ARGS, ...(PROFILE_DIR !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])],
);
console.log(
  `kairosdb: ${kairosdb.version}, pid ${kairosdb.pid}, 1g heap; kairograph: ${gateway.command}, pid ${gateway.pid}, CASSANDRA_READ_AHEAD=${READ_AHEAD}`,
);
// A node the benchmark booted has its pid; a reused one (KAIROGRAPH_CASSANDRA) is named on the command line.
const cassandraPid = node.pid || Number(args.get('cassandra-pid') ?? 0) || undefined;
try {
  const floor = await openLeanFloor({
    contactPoint: node.contactPoint,
    localDataCenter: node.localDataCenter,
    keyspace: KEYSPACE,
    spec: await store.spec(),
  });
  // Both servers and the floor then read the same sstables of a Cassandra whose JIT has compiled its read path: the
  // first query's numbers no longer carry the write's compactions, and every query's carry less of the warm-up.
  const settledMs = await settleCassandra(floor.client);
  const passes = await warmReads(floor, partitions);
  console.log(
    `cassandra: no flush or compaction under way or queued after ${(settledMs / 1000).toFixed(1)} s; every partition read bare ${passes.length} times first: ${passes.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`,
  );
  for (const query of QUERIES.filter((q) => ONLY === undefined || q.name.includes(ONLY))) {
    const keys = partitions.filter(query.reads ?? (() => true));
    const expected = new Set(keys.map((key) => JSON.stringify(key.tags))).size * POINTS;
    const times = { kairosdb: [] as number[], kairograph: [] as number[], floor: [] as number[] };
    const cpu = {
      kairosdb: [] as number[],
      kairograph: [] as number[],
      cassandraK: [] as number[],
      cassandraG: [] as number[],
      cassandraF: [] as number[],
    };
    let compared = '';
    const participants = ['kairosdb', 'kairograph', 'floor'] as const;
    for (let run = 0; run <= RUNS; run++) {
      // Run 0 is the warm-up; who goes first rotates so that none always reads a cold page cache, and the floor is
      // measured between the servers' reads, under the same conditions (Cassandra's speed drifts across a run).
      const order = participants.map((_, i) => participants[(i + run) % participants.length]!);
      const answers: Record<string, () => unknown> = {};
      const parsed: Record<string, unknown> = {};
      for (const who of order) {
        const pid = who === 'kairosdb' ? kairosdb.pid : who === 'kairograph' ? gateway.pid : process.pid;
        const c0 = cpuSeconds(pid);
        const k0 = cassandraPid ? cpuSeconds(cassandraPid) : 0;
        const t0 = performance.now();
        if (who === 'floor') {
          const points = await floor.readAll(keys);
          if (points !== expected) throw new Error(`the floor read ${points} points, not ${expected}`);
        } else {
          // The clock stops when the whole answer has arrived: parsing it is this client's work, which the floor does not do.
          answers[who] =
            who === 'kairosdb'
              ? await rest(kairosdb.url, query.rest)
              : query.graphql
                ? await graphql(gateway.url, query.graphql)
                : await rest(gateway.url, query.rest);
        }
        const ms = performance.now() - t0;
        if (run > 0) {
          times[who].push(ms);
          if (who !== 'floor') cpu[who].push(cpuSeconds(pid) - c0);
          if (cassandraPid)
            cpu[who === 'kairosdb' ? 'cassandraK' : who === 'kairograph' ? 'cassandraG' : 'cassandraF'].push(
              cpuSeconds(cassandraPid) - k0,
            );
        }
        // Every answer is parsed (a GraphQL error fails the run), after the clocks.
        if (who !== 'floor') parsed[who] = answers[who]!();
      }
      if (run === 0) compared = compare(query, parsed['kairosdb'], parsed['kairograph']);
    }
    const k = median(times.kairosdb);
    const g = median(times.kairograph);
    const f = median(times.floor);
    const line =
      `${query.name}: KairosDB ${(k / 1000).toFixed(2)} s, Kairograph ${(g / 1000).toFixed(2)} s, ratio ${(g / k).toFixed(2)}; ` +
      `floor (${keys.length} partitions bare) ${(f / 1000).toFixed(2)} s, Kairograph/floor ${(g / f).toFixed(2)} (${spread(times.kairograph, times.floor)}) | ` +
      `CPU s (median): KairosDB JVM ${median(cpu.kairosdb).toFixed(2)}, its Cassandra ${cassandraPid ? median(cpu.cassandraK).toFixed(2) : 'n/a'}; ` +
      `Kairograph ${median(cpu.kairograph).toFixed(2)}, its Cassandra ${cassandraPid ? median(cpu.cassandraG).toFixed(2) : 'n/a'}; ` +
      `the floor's Cassandra ${cassandraPid ? median(cpu.cassandraF).toFixed(2) : 'n/a'}${cassandraPid ? cpuBound(median(cpu.kairograph) + median(cpu.cassandraG), f) : ''} | answers: ${compared}`;
    console.log(line);
  }
  await floor.close();
} finally {
  await gateway.stop();
  await kairosdb.stop();
  await store.close();
  await node.stop();
}
if (PROFILE_DIR !== undefined) {
  // The gateway writes its profile as it exits; the newest one in the directory is this run's.
  const newest = readdirSync(PROFILE_DIR)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(PROFILE_DIR, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest === undefined) throw new Error(`no .cpuprofile was written to ${PROFILE_DIR}`);
  console.log(
    `profile of the gateway over the whole run (${newest}):\n${formatProfileSummary(summarizeCpuProfile(newest))}`,
  );
}

/** Writes the dataset through the store unless the keyspace already holds all of it; returns the metric's partitions. */
async function ensureDataset(): Promise<RowKey[]> {
  const present = (await store.metricNames(METRIC, 1)).includes(METRIC) ? await countPoints() : 0;
  if (present !== SERIES * POINTS) {
    if (present > 0)
      throw new Error(
        `keyspace ${KEYSPACE} holds ${present} points of ${METRIC}, not ${SERIES * POINTS}: drop it and run again`,
      );
    const started = performance.now();
    const batch = 10_000;
    for (let s = 0; s < SERIES; s++) {
      for (let from = 0; from < POINTS; from += batch) {
        const timestamps = Array.from(
          { length: Math.min(batch, POINTS - from) },
          (_, i) => START_MS + (from + i) * STEP_MS,
        );
        const series: SeriesWrite = {
          metric: METRIC,
          tags: { host: host(s), dc: dc(s) },
          type: 'double',
          ttlSeconds: 0,
          timestamps,
          values: timestamps.map((_, i) => valueAt(s, from + i)),
        };
        await store.write({ series: [series] });
      }
    }
    console.log(`wrote the dataset through the store in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    console.log(`the dataset is in keyspace ${KEYSPACE} already`);
  }
  return partitionsOf(store, METRIC, START_MS, END_MS);
}

/** Deterministic values with a fractional part, so sums exercise floating point. */
function valueAt(series: number, i: number): number {
  return ((series * 7919 + i * 104729) % 10007) / 100;
}

async function countPoints(): Promise<number> {
  const keys = await partitionsOf(store, METRIC, START_MS, END_MS);
  let total = 0;
  for (const key of keys) for await (const slice of store.scan(key, START_MS, END_MS)) total += slice.timestamps.length;
  return total;
}

/** The answer's text as it arrived; the returned function parses it. */
async function rest(url: string, body: unknown): Promise<() => unknown> {
  const { status, text } = await post(`${url}/api/v1/datapoints/query`, JSON.stringify(body));
  if (status !== 200) throw new Error(`${url}: ${status} ${text.slice(0, 300)}`);
  return () => JSON.parse(text);
}

async function graphql(url: string, query: string): Promise<() => unknown> {
  const { status, text } = await post(`${url}/graphql`, JSON.stringify({ query }));
  return () => {
    const body = JSON.parse(text) as { data?: unknown; errors?: unknown };
    if (status !== 200 || body.errors) throw new Error(`${url}: ${status} ${JSON.stringify(body.errors)}`);
    return body.data;
  };
}

interface Series {
  readonly key: string;
  readonly values: readonly (readonly [number, number])[];
}

/** Both answers as series keyed by their group, values as [time, value] pairs. */
function seriesOf(answer: unknown, fromGraphql: boolean): Series[] {
  if (fromGraphql) {
    type Panel = {
      host: string;
      points?: { t: number; value: number }[];
      columns?: { epochMs: number[]; value: number[] };
    }[];
    type Rows = { Time: string; value: number; host: string }[];
    return Object.values(answer as Record<string, Panel | Rows>).flatMap((panel) => {
      if (panel.length > 0 && 'Time' in panel[0]!) {
        // One row per point, series after series: each host's rows are its series.
        const byHost = new Map<string, [number, number][]>();
        for (const row of panel as Rows) {
          let values = byHost.get(row.host);
          if (values === undefined) byHost.set(row.host, (values = []));
          values.push([Date.parse(row.Time), row.value]);
        }
        return [...byHost].map(([key, values]) => ({ key, values }));
      }
      return (panel as Panel).map((s) => ({
        key: s.host,
        values: s.columns
          ? s.columns.epochMs.map((t, i) => [t, s.columns!.value[i]!] as const)
          : s.points!.map((p) => [p.t, p.value] as const),
      }));
    });
  }
  const queries = (
    answer as {
      queries: {
        results: {
          tags: Record<string, string[]>;
          group_by?: { name: string; group?: Record<string, string> }[];
          values: [number, number][];
        }[];
      }[];
    }
  ).queries;
  return queries.flatMap((q) =>
    q.results.map((r) => ({
      key: JSON.stringify(r.group_by?.find((g) => g.name === 'tag')?.group ?? {}).replace(/^\{"host":"(.*)"\}$/, '$1'),
      values: r.values,
    })),
  );
}

/** "identical", "equal within 1e-12 relative (...)", or the first difference. */
function compare(query: BenchQuery, kairosdbAnswer: unknown, kairographAnswer: unknown): string {
  const k = seriesOf(kairosdbAnswer, false).sort((a, b) => a.key.localeCompare(b.key));
  const g = seriesOf(kairographAnswer, query.graphql !== undefined).sort((a, b) => a.key.localeCompare(b.key));
  const points = k.reduce((n, s) => n + s.values.length, 0);
  if (k.length !== g.length) return `DIFFERENT: ${k.length} series on KairosDB, ${g.length} on Kairograph`;
  let worst = 0;
  let different = 0;
  for (let s = 0; s < k.length; s++) {
    const a = k[s]!;
    const b = g[s]!;
    if (a.key !== b.key || a.values.length !== b.values.length)
      return `DIFFERENT: series ${a.key} has ${a.values.length} points on KairosDB, ${b.key} ${b.values.length} on Kairograph`;
    for (let i = 0; i < a.values.length; i++) {
      const [ta, va] = a.values[i]!;
      const [tb, vb] = b.values[i]!;
      if (ta !== tb) return `DIFFERENT: series ${a.key} point ${i} at ${ta} on KairosDB, ${tb} on Kairograph`;
      if (va !== vb) {
        different++;
        worst = Math.max(worst, Math.abs(va - vb) / Math.max(Math.abs(va), Math.abs(vb)));
      }
    }
  }
  if (different === 0) return `identical (${k.length} series, ${points} points)`;
  if (query.differs)
    return `${different} of ${points} values differ, by up to ${(worst * 100).toFixed(2)}% (expected: ${query.differs})`;
  if (worst <= 1e-12)
    return `${different} of ${points} values differ in the last bits (up to ${worst.toExponential(1)} relative: Kairograph sums with compensation, KairosDB plainly)`;
  return `DIFFERENT: ${different} of ${points} values, by up to ${worst.toExponential(2)} relative`;
}

/**
 * The lowest and highest of the runs' own Kairograph/floor ratios (each run measures both, one after the other): how
 * far one run's ratio strays from the ratio of the medians on this node.
 */
function spread(kairograph: readonly number[], floor: readonly number[]): string {
  const ratios = kairograph.map((ms, run) => ms / floor[run]!);
  return `runs ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
}

/**
 * The least time the machine's cores allow for Kairograph's CPU seconds and its Cassandra's together, against the
 * floor: when this alone is over 1.2× the floor, no overlap of the gateway's work with the reads can meet the target.
 */
function cpuBound(cpuSecondsTotal: number, floorMs: number): string {
  const cores = availableParallelism();
  const bound = cpuSecondsTotal / cores;
  return `; on ${cores} cores they need at least ${bound.toFixed(2)} s, ${((bound * 1000) / floorMs).toFixed(2)}× the floor`;
}
