/**
 * High cardinality: one metric with hosts × containers series (1,000,000 by default), one point each in the last hour,
 * on the embedded store and on Cassandra, with TAG_INDEXED_METRICS indexing `host`. A query for one host's last hour
 * (its 1,000 series, raw points) runs through executeQuery with the tag index, then the same query through plain
 * row_keys (a reader that never uses the index) in the same run, on the same data: latency (median, p99), the store
 * calls by table, and the plan's share (finding the series) apart from reading them.
 *
 *   npm run bench:cardinality [-- --hosts 1000 --containers 1000 --runs 20 --plain-runs 3 --store both]
 *   (plain row_keys reads every series of the row period per query: seconds each at a million, hence fewer runs)
 *   (KAIROGRAPH_CASSANDRA=127.0.0.1:<port> reuses a running node; otherwise one is booted)
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../src/model/errors.js';
import { executeQuery, newQueryStats, unlimitedRequest, type QueryStats } from '../src/engine/execute.js';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import type { MetricQuery } from '../src/model/query.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import type { SeriesWrite } from '../src/model/write-batch.js';
import type { Store } from '../src/store/store.js';
import { parseTagIndexConfig } from '../src/store/tag-index.js';
import { startCassandra, type CassandraServer } from '../test/support/cassandra-server.js';
import { delegatingStore } from '../test/support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const HOSTS = Number(args.get('hosts') ?? 1000);
const CONTAINERS = Number(args.get('containers') ?? 1000);
const RUNS = Number(args.get('runs') ?? 20);
const PLAIN_RUNS = Number(args.get('plain-runs') ?? 3);
const STORES = (args.get('store') ?? 'both') === 'both' ? ['embedded', 'cassandra'] : [args.get('store')!];
const METRIC = 'bench.cardinality';
const SERIES_PER_WRITE = 20_000;
const WRITES_IN_FLIGHT = 4;
const HOUR_MS = 3_600_000;
const TAG_INDEX = parseTagIndexConfig({ [METRIC]: ['host'] });
const NOW = Date.now();

const pad = (n: number) => String(n).padStart(4, '0');
/** Series `i`'s one point: somewhere in the hour before NOW, the same in every run of the benchmark. */
const pointTime = (i: number) => NOW - 1000 - ((i * 7919) % (HOUR_MS - 60_000));

function* writes(): Generator<SeriesWrite[]> {
  let batch: SeriesWrite[] = [];
  for (let h = 0; h < HOSTS; h++) {
    for (let c = 0; c < CONTAINERS; c++) {
      const i = h * CONTAINERS + c;
      batch.push({
        metric: METRIC,
        tags: { host: `h${pad(h)}`, container: `c${pad(c)}` },
        type: 'double',
        ttlSeconds: 0,
        timestamps: [pointTime(i)],
        values: [i],
      });
      if (batch.length === SERIES_PER_WRITE) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

interface Run {
  readonly ms: number;
  readonly planMs: number;
  readonly calls: Record<string, number>;
  readonly points: number;
}

/** One request: fresh loaders (its own batching), one query for host h0042's last hour. */
async function queryOnce(store: Store, host: string): Promise<Run> {
  const source = new KairosdbSource('kairosdb', store);
  const loaders = new IndexLoaders();
  const stats: QueryStats = newQueryStats();
  const query: MetricQuery = {
    metric: METRIC,
    range: { startMs: NOW - HOUR_MS, endMs: NOW },
    tags: [{ tag: 'host', in: [host] }],
    aggregators: [],
    groupBy: [],
    timeZone: 'UTC',
    order: 'asc',
    excludeTags: false,
  };
  const started = performance.now();
  const out = await executeQuery(query, {
    source,
    index: loaders,
    budgets: { maxSeries: 1e7, maxPointsRead: 1e12, maxPointsReturned: 1e12, onExceed: 'error' },
    request: unlimitedRequest(),
    stats,
    nowMs: NOW,
  });
  const ms = performance.now() - started;
  const calls = Object.fromEntries(
    source.indexReads.map((read) => [read, loaders.calls.get(source.name)?.[read] ?? 0]),
  );
  return { ms, planMs: stats.planMs, calls: { ...calls, scans: stats.scans }, points: out.sampleSize };
}

async function measure(label: string, store: Store, runs: number, warmUp: boolean): Promise<Run[]> {
  const results: Run[] = [];
  if (warmUp) await queryOnce(store, `h${pad(HOSTS - 1)}`); // another host
  for (let r = 0; r < runs; r++) {
    const run = await queryOnce(store, `h${pad((r * 37) % HOSTS)}`);
    if (run.points !== CONTAINERS) throw new Error(`${label}: read ${run.points} points, expected ${CONTAINERS}`);
    results.push(run);
  }
  const ms = results.map((r) => r.ms);
  const calls = Object.entries(results[0]!.calls)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  console.log(
    `  ${label.padEnd(20)} median ${median(ms).toFixed(1).padStart(8)} ms   p99 ${percentile(ms, 0.99).toFixed(1).padStart(8)} ms   ` +
      `plan median ${median(results.map((r) => r.planMs)).toFixed(1)} ms   (${runs} runs; store calls per query: ${calls})`,
  );
  return results;
}

async function bench(name: string, store: Store, ingest: () => Promise<number>): Promise<void> {
  const ingestMs = await ingest();
  console.log(
    `\n${name}: ingest ${(HOSTS * CONTAINERS).toLocaleString('en')} series in ${(ingestMs / 1000).toFixed(1)} s`,
  );
  // The plain runs follow the indexed ones, whose warm-up ran the engine's code already.
  const indexed = await measure('with the tag index', store, RUNS, true);
  // A wrapped store passes no tag index on: every plan reads row_keys, as the planner did before the tag index.
  const plain = await measure('plain row_keys', delegatingStore(store), PLAIN_RUNS, false);
  console.log(
    `  speed-up (medians): ${(median(plain.map((r) => r.ms)) / median(indexed.map((r) => r.ms))).toFixed(0)}x`,
  );
}

let retries = 0;

/**
 * A shared 2-core node answers some of a million one-partition batches with a write timeout; a write is idempotent,
 * so the batch is written again after a pause (counted and printed, not hidden).
 */
async function writeWithRetries(store: Store, series: SeriesWrite[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.write({ series });
      return;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || attempt === 5) throw error;
      retries++;
      console.log(
        `  ... a write failed (${error.message}); writing its ${series.length} series again (retry ${retries})`,
      );
      await new Promise((resolve) => setTimeout(resolve, 2000 * attempt));
    }
  }
}

async function writeAll(store: Store): Promise<number> {
  const started = performance.now();
  let written = 0;
  let reported = 0;
  // Batches are made as writers ask for them: a million series never sit in memory at once.
  const batches = writes();
  await Promise.all(
    Array.from({ length: WRITES_IN_FLIGHT }, async () => {
      for (let next = batches.next(); !next.done; next = batches.next()) {
        await writeWithRetries(store, next.value);
        written += next.value.length;
        if (written - reported >= 200_000) {
          reported = written;
          console.log(
            `  ... ${written.toLocaleString('en')} series written (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
        }
      }
    }),
  );
  return performance.now() - started;
}

const benchStarted = performance.now();
process.on('exit', () => console.log(`\nwhole run: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`));
console.log(
  `command: npm run bench:cardinality -- --hosts ${HOSTS} --containers ${CONTAINERS} --runs ${RUNS} --plain-runs ${PLAIN_RUNS} --store ${args.get('store') ?? 'both'}`,
);
console.log(
  `dataset: metric ${METRIC}, ${HOSTS} hosts × ${CONTAINERS} containers = ${(HOSTS * CONTAINERS).toLocaleString('en')} series, one double each in the last hour; ` +
    `TAG_INDEXED_METRICS={"${METRIC}":["host"]}; query: one host's last hour, raw points (${CONTAINERS} series), a new request each`,
);

if (STORES.includes('embedded')) {
  const store = await EmbeddedStore.open({
    path: tempDir('kairograph-bench-cardinality-'),
    tagIndexedMetrics: TAG_INDEX,
  });
  try {
    await bench('embedded (LMDB)', store, () => writeAll(store));
  } finally {
    await store.close();
    removeTempDirs();
  }
}

if (STORES.includes('cassandra')) {
  const server: CassandraServer = await startCassandra({ heap: '1g' });
  const keyspace = 'kg_bench_cardinality';
  const admin = new cassandra.Client({
    contactPoints: [server.contactPoint],
    localDataCenter: server.localDataCenter,
    protocolOptions: { maxVersion: 4 },
    socketOptions: { readTimeout: 120_000 },
  });
  await admin.connect();
  try {
    await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    const store = await CassandraStore.open({
      contactPoints: [server.contactPoint],
      localDataCenter: server.localDataCenter,
      keyspace,
      writeConsistency: 'ONE',
      tagIndexedMetrics: TAG_INDEX,
    });
    try {
      await bench(
        `Cassandra (${server.pid ? 'booted' : 'reused'} node ${server.contactPoint}, write consistency ONE)`,
        store,
        () => writeAll(store),
      );
      console.log(`  Cassandra statements of the whole run: ${JSON.stringify(store.statements)}`);
    } finally {
      await store.close();
    }
    await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  } finally {
    await admin.shutdown();
    await server.stop();
  }
}
